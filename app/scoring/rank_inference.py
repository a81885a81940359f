"""Rank GPU offers for serving one model: estimate each hardware configuration once, join offers.

Offer rule: a configuration of n GPUs can be rented from an offer whose instance has at least n
GPUs (gpu_count >= n), or from single-GPU offers (gpu_count == 1, assumed rentable n at a time within
one scale-up domain). The price is usd_per_gpu_hour x n: unused GPUs of a bigger instance are not
charged, as they can serve another replica.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import TypedDict

from app.scoring.explain import Band, Term, close_calls
from app.scoring.inference import InferenceEstimate, estimate_inference
from app.scoring.offers import cheapest_offer_per_provider, matching_offers
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
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

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class InferenceRanking:
    model_id: str
    options: list[InferenceOption]
    configurations_evaluated: int

    def to_dict(self) -> dict:
        return asdict(self)


def gpu_counts(gpu: GpuSpec, max_gpus: int) -> list[int]:
    """1, 2, 4, 8, ... up to the scale-up domain and the workload's limit (one replica never spans more)."""
    limit = min(max(gpu.scaleup_domain_gpus, 1), max_gpus)
    counts, n = [], 1
    while n <= limit:
        counts.append(n)
        n *= 2
    return counts


def best_configuration(gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload) -> InferenceEstimate:
    """Per GPU type: the feasible TP count with the highest output tok/s per GPU (else the largest tried)."""
    best: InferenceEstimate | None = None
    last: InferenceEstimate | None = None
    for count in gpu_counts(gpu, workload.max_gpus):
        estimate = estimate_inference(gpu, count, model, workload)
        last = estimate
        if estimate.feasible and (
                best is None or estimate.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu):
            best = estimate
    chosen = best or last
    assert chosen is not None  # gpu_counts yields at least 1: max_gpus >= 1 and the domain counts at least 1
    return chosen


def _can_host(offer: Offer, count: int) -> bool:
    return offer.gpu_count >= count or offer.gpu_count == 1


class _OptionBase(TypedDict):
    """The InferenceOption fields every option of an offer has, feasible or not."""

    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    memory_gb: dict[str, float]


def _option(offer: Offer, est: InferenceEstimate, workload: InferenceWorkload, provider_name: str) -> InferenceOption:
    base = _OptionBase(gpu_id=offer.gpu_id, gpu_count=est.gpu_count, tensor_parallel=est.tensor_parallel,
                       provider=offer.provider_id, provider_name=provider_name, price_type=offer.price_type,
                       usd_per_gpu_hour=offer.usd_per_gpu_hour, as_of=offer.as_of, memory_gb=est.memory_gb)
    if not est.feasible or not _can_host(offer, est.gpu_count):
        reason = est.reason if not est.feasible else (
            f"instance has {offer.gpu_count} GPUs; the configuration needs {est.gpu_count}")
        return InferenceOption(feasible=False, reason=reason, **base)
    usd_per_s = offer.usd_per_gpu_hour * est.gpu_count / 3600
    per_m_out = usd_per_s / est.output_tokens_per_s * 1e6
    share_out = workload.output_len / (workload.input_len + workload.output_len)
    replicas = 1
    if workload.peak_requests_per_s:
        replicas = max(1, math.ceil(workload.peak_requests_per_s * workload.output_len / est.output_tokens_per_s))
    return InferenceOption(
        feasible=True, reason=est.reason, terms=est.terms, ttft_ms=est.ttft_ms, tpot_ms=est.tpot_ms,
        batch=est.batch, output_tokens_per_s=est.output_tokens_per_s,
        usd_per_million_output_tokens=per_m_out, usd_per_million_tokens=per_m_out * share_out,
        band=Band(usd_per_s / est.band.high * 1e6, usd_per_s / est.band.low * 1e6),
        replicas=replicas, **base,
    )


_CACHE: dict[tuple, InferenceEstimate] = {}
_CACHE_LIMIT = 20_000
_FILTER_FIELDS = {"providers", "price_types", "gpus", "vendors", "peak_requests_per_s"}


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
    """Cheapest $/M output tokens first; infeasible options last with their reasons.

    Only the cheapest offer per (GPU, provider, price type) is ranked; each GPU type is estimated once.
    """
    offers = cheapest_offer_per_provider(matching_offers(snapshot.offers, snapshot.gpus, workload))
    key = workload.model_dump_json(exclude=_FILTER_FIELDS)
    estimates: dict[str, InferenceEstimate] = {}
    options = []
    for offer in offers:
        est = estimates.get(offer.gpu_id)
        if est is None:
            est = estimates[offer.gpu_id] = cached_configuration(snapshot.gpus[offer.gpu_id], model, workload, key)
        options.append(_option(offer, est, workload, offer.provider_name))
    feasible = sorted((o for o in options if o.feasible), key=_usd_per_million_output_tokens)
    infeasible = [o for o in options if not o.feasible]
    flags = close_calls([o.band for o in feasible])
    feasible = [_with_close_call(o, flag) for o, flag in zip(feasible, flags, strict=True)]
    return InferenceRanking(model.id, feasible + infeasible, len(estimates))


def _usd_per_million_output_tokens(option: InferenceOption) -> float:
    """Sort key of feasible options, which always carry a price per token."""
    usd = option.usd_per_million_output_tokens
    assert usd is not None
    return usd


def _with_close_call(option: InferenceOption, close: bool) -> InferenceOption:
    if option.close_call == close:
        return option
    from dataclasses import replace

    return replace(option, close_call=close)
