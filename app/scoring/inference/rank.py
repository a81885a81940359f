"""Rank GPU offers for serving one model: estimate each hardware configuration once, join offers.

Offer rule: a configuration of n GPUs can be rented from an offer whose instance has at least n
GPUs (gpu_count >= n), or from single-GPU offers (gpu_count == 1, assumed rentable n at a time within
one scale-up domain). The price is usd_per_gpu_hour x n: unused GPUs of a bigger instance are not
charged, as they can serve another replica.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from itertools import islice

from app.scoring.explain import Band, Term, is_close_call, win_is_contested
from app.scoring.inference.estimate import InferenceEstimate, Solution, explain, solve_inference
from app.scoring.offers import LazyOptions, MergedOrder, hostable_count, offer_terms, offers_by_gpu, snapshot_offers
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.workload import InferenceWorkload


@dataclass(slots=True)  # not frozen: a frozen init costs several µs per offer, and rankings build many
class InferenceOption:
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool
    reason: str
    close_call: bool = False
    terms: list[Term] = field(default_factory=list)
    ttft_ms: float = 0.0
    tpot_ms: float = 0.0
    batch: int = 0
    output_tokens_per_s: float = 0.0
    usd_per_million_output_tokens: float | None = None
    usd_per_million_tokens: float | None = None
    memory_gb: dict[str, float] = field(default_factory=dict)
    band: Band | None = None  # low/high of usd_per_million_output_tokens
    replicas: int = 1
    price_note: str = ""  # the nuance of the price terms ("as low as", managed endpoint, ...)
    stale: bool = False  # the price is older than the stale-after days (ranked only when asked for)
    interruptible: bool = False  # spot: the provider may reclaim the GPUs

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class InferenceRanking:
    model_id: str
    options: Sequence[InferenceOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    feasible_count: int = 0  # the first feasible_count options are the feasible ones

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [o.to_dict() for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
        }


def gpu_counts(gpu: GpuSpec, max_gpus: int) -> list[int]:
    """1, 2, 4, 8, ... up to the scale-up domain and the workload's limit (one replica never spans more)."""
    limit = min(max(gpu.scaleup_domain_gpus, 1), max_gpus)
    counts, n = [], 1
    while n <= limit:
        counts.append(n)
        n *= 2
    return counts


def best_configuration(gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload) -> InferenceEstimate:
    """Per GPU type: the feasible TP count with the highest output tok/s per GPU (else the largest tried);
    only the kept configuration is explained."""
    best: Solution | None = None
    last: Solution | InferenceEstimate | None = None
    for count in gpu_counts(gpu, workload.max_gpus):
        last = solve_inference(gpu, count, model, workload)
        if isinstance(last, Solution) and (
            best is None or last.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu
        ):
            best = last
    if best is not None:
        return explain(best)
    assert isinstance(last, InferenceEstimate)  # no feasible count: the last one tried says why
    return last


def _can_host(offer: Offer, count: int) -> bool:
    return offer.gpu_count >= count or offer.gpu_count == 1


@dataclass(frozen=True, slots=True)
class _Pricing:
    """What every offer of one GPU type shares: the estimate and the factors that turn $/GPU-hour into
    $/M output tokens and its band (cost ∝ price × GPUs / tokens per second)."""

    est: InferenceEstimate
    usd_per_m_per_usd_hour: float  # $/M output tokens per $/GPU-hour
    band_low: float  # band ratios applied to the cost
    band_high: float
    share_out: float
    replicas: int

    @classmethod
    def of(cls, est: InferenceEstimate, workload: InferenceWorkload) -> _Pricing:
        if not est.feasible:
            return cls(est, 0.0, 1.0, 1.0, 0.0, 1)
        tokens_per_s = est.output_tokens_per_s
        replicas = 1
        if workload.peak_requests_per_s:
            replicas = max(1, math.ceil(workload.peak_requests_per_s * workload.output_len / tokens_per_s))
        return cls(
            est,
            est.gpu_count / 3600 / tokens_per_s * 1e6,
            tokens_per_s / est.band.high,
            tokens_per_s / est.band.low,
            workload.output_len / (workload.input_len + workload.output_len),
            replicas,
        )


def _feasible_option(offer: Offer, p: _Pricing, cost: float, close: bool) -> InferenceOption:
    est = p.est
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        provider=offer.provider_id,
        provider_name=offer.provider_name,
        price_type=offer.price_type,
        usd_per_gpu_hour=offer.usd_per_gpu_hour,
        as_of=offer.as_of,
        feasible=True,
        reason=est.reason,
        close_call=close,
        terms=est.terms,
        ttft_ms=est.ttft_ms,
        tpot_ms=est.tpot_ms,
        batch=est.batch,
        output_tokens_per_s=est.output_tokens_per_s,
        usd_per_million_output_tokens=cost,
        usd_per_million_tokens=cost * p.share_out,
        memory_gb=est.memory_gb,
        band=Band(cost * p.band_low, cost * p.band_high),
        replicas=p.replicas,
        **offer_terms(offer),
    )


def _infeasible_option(offer: Offer, est: InferenceEstimate) -> InferenceOption:
    reason = (
        est.reason
        if not est.feasible
        else (f"instance has {offer.gpu_count} GPUs; the configuration needs {est.gpu_count}")
    )
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        provider=offer.provider_id,
        provider_name=offer.provider_name,
        price_type=offer.price_type,
        usd_per_gpu_hour=offer.usd_per_gpu_hour,
        as_of=offer.as_of,
        feasible=False,
        reason=reason,
        memory_gb=est.memory_gb,
        **offer_terms(offer),
    )


_CACHE: dict[tuple, InferenceEstimate] = {}
_CACHE_LIMIT = 20_000
_FILTER_FIELDS = {"providers", "price_types", "gpus", "vendors", "include_stale", "peak_requests_per_s"}


def cached_configuration(gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload, key: str) -> InferenceEstimate:
    """Memoised best_configuration: estimates depend on hardware x model x workload, never on offers."""
    cache_key = (gpu, model, key)
    est = _CACHE.get(cache_key)
    if est is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        est = _CACHE[cache_key] = best_configuration(gpu, model, workload)
    return est


def rank_inference(workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> InferenceRanking:
    """Cheapest $/M output tokens first (ties: GPU id, provider id, offer order); infeasible options last,
    in offer order, with their reasons.

    Only the cheapest offer per (GPU, provider, price type) is ranked and each GPU type is estimated once.
    Each GPU type's offers are already sorted by price (memoised per snapshot), so the ranking is a lazy
    merge of one run per GPU type: offers are priced and option objects built only as far as a caller reads.
    """
    offers = snapshot_offers(snapshot, workload, cheapest_per_provider=True)
    groups = offers_by_gpu(snapshot, workload, cheapest_per_provider=True)
    key = workload.model_dump_json(exclude=_FILTER_FIELDS)
    pricing = {g: _Pricing.of(cached_configuration(snapshot.gpus[g], model, workload, key), workload) for g in groups}
    feasible = {g: p for g, p in pricing.items() if p.est.feasible}
    order = MergedOrder(
        [_priced_run(offers, groups[g], g, p) for g, p in feasible.items()],
        sum(
            hostable_count(snapshot, workload, g, p.est.gpu_count, cheapest_per_provider=True)
            for g, p in feasible.items()
        ),
    )
    infeasible: list[int] = []  # offer order, filled when first read
    winner = _winner_band(order, pricing)
    runners_up = ((cost, _band(cost, pricing[g])) for cost, g, _, _ in islice(order, 1, None))
    contested = win_is_contested(winner, runners_up, min((p.band_low for p in feasible.values()), default=1.0))

    def build(position: int) -> InferenceOption:
        if position >= len(order):
            if not infeasible:
                infeasible.extend(i for i, o in enumerate(offers) if not _ranked(o, pricing[o.gpu_id]))
            offer = offers[infeasible[position - len(order)]]
            return _infeasible_option(offer, pricing[offer.gpu_id].est)
        cost, gpu_id, _, index = order[position]
        p = pricing[gpu_id]
        close = contested if position == 0 else is_close_call(_band(cost, p), winner)
        return _feasible_option(offers[index], p, cost, close)

    return InferenceRanking(model.id, LazyOptions(len(offers), build), len(pricing), feasible_count=len(order))


def _ranked(offer: Offer, p: _Pricing) -> bool:
    return p.est.feasible and _can_host(offer, p.est.gpu_count)


def _priced_run(
    offers: list[Offer], indices: list[int], gpu_id: str, p: _Pricing
) -> Iterator[tuple[float, str, str, int]]:
    """One GPU type's hostable offers, cheapest first, as ($/M output tokens, GPU id, provider id, index)."""
    factor, count = p.usd_per_m_per_usd_hour, p.est.gpu_count
    for i in indices:
        offer = offers[i]
        if _can_host(offer, count):
            yield offer.usd_per_gpu_hour * factor, gpu_id, offer.provider_id, i


def _winner_band(order: MergedOrder[tuple[float, str, str, int]], pricing: dict[str, _Pricing]) -> Band | None:
    if not order:
        return None
    cost, gpu_id, _, _ = order[0]
    return _band(cost, pricing[gpu_id])


def _band(cost: float, p: _Pricing) -> Band:
    return Band(cost * p.band_low, cost * p.band_high)
