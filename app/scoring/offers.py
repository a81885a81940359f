"""Joining per-configuration estimates to priced offers, shared by both rankings."""

from __future__ import annotations

from collections.abc import Iterable

from app.scoring.specs import GpuSpec, Offer
from app.scoring.workload import Filters


def matching_offers(offers: Iterable[Offer], gpus: dict[str, GpuSpec], filters: Filters) -> list[Offer]:
    """Offers allowed by the workload's provider, price-type, GPU and vendor filters."""
    providers = {p.lower() for p in filters.providers}
    gpu_ids = {g.lower() for g in filters.gpus}
    vendors = {v.lower() for v in filters.vendors}
    price_types = set(filters.price_types)
    if not (providers or gpu_ids or vendors or price_types):
        return [offer for offer in offers if offer.gpu_id in gpus]
    kept = []
    for offer in offers:
        gpu = gpus.get(offer.gpu_id)
        if gpu is None:
            continue
        if providers and offer.provider_id.lower() not in providers:
            continue
        if price_types and offer.price_type not in price_types:
            continue
        if gpu_ids and offer.gpu_id.lower() not in gpu_ids:
            continue
        if vendors and gpu.vendor.lower() not in vendors:
            continue
        kept.append(offer)
    return kept


def cheapest_offer_per_provider(offers: Iterable[Offer]) -> list[Offer]:
    """One offer per (GPU, provider, price type): the cheapest per GPU-hour."""
    best: dict[tuple[str, str, str], Offer] = {}
    for offer in offers:
        key = (offer.gpu_id, offer.provider_id, offer.price_type)
        if key not in best or offer.usd_per_gpu_hour < best[key].usd_per_gpu_hour:
            best[key] = offer
    return list(best.values())
