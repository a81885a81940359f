"""Rank GPU offers for a training workload by cost per optimizer step.

Per GPU type: GPU counts from the fewest that fit up through powers of two and multiples of the
scale-up domain (≤ max_gpus), each evaluated once; the cheapest count per step wins, then every
matching offer of that GPU is priced. Pure: the catalog snapshot is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from app.scoring.explain import Band, Term
from app.scoring.offers import matching_offers
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.training import TrainingEstimate, choose_layout, estimate_training, fits_at, step_seconds
from app.scoring.training_time import fill_missing_peaks
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class TrainingOption:
    gpu_id: str
    gpu_count: int
    layout: str
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool
    reason: str
    close_call: bool
    terms: list[Term]
    usd_per_step: float | None
    step_time_s: float | None
    tokens_per_s_per_gpu: float | None
    mfu: float | None
    total_hours: float | None
    total_usd: float | None
    memory_per_gpu_gb: float
    band: Band | None


@dataclass(frozen=True, slots=True)
class TrainingRanking:
    model_id: str
    options: list[TrainingOption]
    configurations_evaluated: int
    notes: list[str] = field(default_factory=list)


def candidate_counts(min_count: int, max_gpus: int, node_gpus: int) -> list[int]:
    """min_count, then powers of two and multiples of the node size above it, up to max_gpus."""
    counts = {min_count}
    n = 1
    while n <= max_gpus:
        if n > min_count:
            counts.add(n)
        n *= 2
    node = node_gpus if node_gpus >= 8 else 8  # PCIe cards and NVL pairs: 8-GPU servers
    for k in range(node, max_gpus + 1, node):
        if k > min_count:
            counts.add(k)
    return sorted(c for c in counts if c <= max_gpus)


def _min_count(gpu: GpuSpec, model: ModelSpec, w: TrainingWorkload) -> int | None:
    for n in candidate_counts(1, w.max_gpus, gpu.scaleup_domain_gpus):
        if fits_at(gpu, n, model, w):
            return n
    return None


def best_estimate(gpu: GpuSpec, model: ModelSpec, w: TrainingWorkload, memo: dict) -> TrainingEstimate:
    """Cheapest GPU count per step (step time × count) for one GPU type; infeasible estimate if none fits."""
    first = _min_count(gpu, model, w)
    if first is None:
        return estimate_training(gpu, w.max_gpus, model, w)
    best_n, best_cost, worse = first, float("inf"), 0
    for n in candidate_counts(first, w.max_gpus, gpu.scaleup_domain_gpus):
        if worse >= 2:  # cost per step rose twice after the best: more GPUs only add communication
            break
        key = (gpu.id, n)
        if key not in memo:
            layout = choose_layout(gpu, n, model, w)
            memo[key] = step_seconds(gpu, n, model, w, layout) * n if layout else float("inf")
        if memo[key] < best_cost * 0.999:
            best_n, best_cost, worse = n, memo[key], 0
        else:
            worse += 1
    return estimate_training(gpu, best_n, model, w)


def _usd_per_step(offer: Offer, est: TrainingEstimate) -> float:
    return est.step_time_s * est.gpu_count * offer.usd_per_gpu_hour / 3600


def _option(offer: Offer, est: TrainingEstimate, w: TrainingWorkload, usd_step: float, winner: Band | None,
            first: bool, per_est: dict) -> TrainingOption:
    price = offer.usd_per_gpu_hour
    if not est.feasible:
        return TrainingOption(offer.gpu_id, est.gpu_count, est.layout_text, offer.provider_id, offer.provider_name,
                              offer.price_type, price, offer.as_of, False, est.reason, False, est.terms,
                              None, None, None, None, None, None, est.memory_per_gpu_gb, None)
    hours, low_ratio, high_ratio = per_est[id(est)]
    band = Band(usd_step * low_ratio, usd_step * high_ratio)
    close = not first and winner is not None and band.low <= winner.high and winner.low <= band.high
    return TrainingOption(offer.gpu_id, est.gpu_count, est.layout_text, offer.provider_id, offer.provider_name,
                          offer.price_type, price, offer.as_of, True, "", close, est.terms, usd_step, est.step_time_s,
                          est.tokens_per_s_per_gpu, est.mfu, hours, hours * est.gpu_count * price,
                          est.memory_per_gpu_gb, band)


def _per_estimate(est: TrainingEstimate, w: TrainingWorkload) -> tuple[float, float, float]:
    """Offer-independent parts: total hours and the cost band ratios (cost ∝ 1 / tokens per second)."""
    if not est.feasible:
        return (0.0, 1.0, 1.0)
    tok = est.tokens_per_s_per_gpu
    return (w.total_tokens / (est.gpu_count * tok) / 3600, tok / est.band.high, tok / est.band.low)


def rank_training(workload: TrainingWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> TrainingRanking:
    """All matching offers, feasible ones by USD per step (cheapest first), infeasible after with reasons."""
    offers = matching_offers(snapshot.offers, snapshot.gpus, workload)
    memo: dict = {}
    estimates: dict[str, TrainingEstimate] = {}
    notes = []
    for gpu_id in sorted({o.gpu_id for o in offers}):
        gpu, note = fill_missing_peaks(snapshot.gpus[gpu_id], snapshot.gpus)
        if note:
            notes.append(f"{gpu_id}: {note}")
        estimates[gpu_id] = best_estimate(gpu, model, workload, memo)
    priced = []
    for offer in offers:
        est = estimates[offer.gpu_id]
        usd = _usd_per_step(offer, est) if est.feasible else float("inf")
        priced.append((not est.feasible, usd, offer.gpu_id, offer.provider_id, offer, est))
    priced.sort(key=lambda p: p[:4])
    per_est = {id(est): _per_estimate(est, workload) for est in estimates.values()}
    winner = None
    if priced and not priced[0][0]:
        _, low_ratio, high_ratio = per_est[id(priced[0][5])]
        winner = Band(priced[0][1] * low_ratio, priced[0][1] * high_ratio)
    options = [_option(p[4], p[5], workload, p[1], winner, i == 0, per_est) for i, p in enumerate(priced)]
    return TrainingRanking(model.id, options, len(memo), notes)
