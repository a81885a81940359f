"""Rank GPU offers for a training workload by cost per optimizer step.

Per GPU type: GPU counts from the fewest that fit up through powers of two and multiples of the
scale-up domain on a geometric grid (≤ max_gpus, a few dozen counts even at 65,536), each timed at
most once and only if its compute time alone could still beat the best cost so far; the cheapest
count per step wins and only its estimate is explained (terms, strings). Every matching offer of
that GPU is then priced with a dict lookup and a multiplication. Pure: the catalog snapshot is passed in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import lru_cache
from itertools import islice
from typing import TypeAlias

from app.scoring.explain import Band, Term, is_close_call, win_is_contested
from app.scoring.offers import LazyOptions, MergedOrder, offer_terms, offers_by_gpu, snapshot_offers
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.training.estimate import TrainingEstimate, estimate_training
from app.scoring.training.memory import Layout
from app.scoring.training.search import GpuTimer, LayoutSearch
from app.scoring.training.step_time import fill_missing_peaks
from app.scoring.workload import TrainingWorkload


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~3 µs per offer (22 fields)
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
    price_note: str = ""  # the nuance of the price terms ("as low as", managed endpoint, ...)
    stale: bool = False  # the price is older than the stale-after days (ranked only when asked for)
    interruptible: bool = False  # spot: the provider may reclaim the GPUs

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TrainingRanking:
    model_id: str
    options: Sequence[TrainingOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    notes: list[str] = field(default_factory=list)
    feasible_count: int = 0  # the first feasible_count options are the feasible ones

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [asdict(o) for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
            "notes": list(self.notes),
        }


def node_multipliers(limit: int) -> list[int]:
    """1…8, then four per doubling, at most 25 % apart (10, 12, 14, 16, 20, 24, 28, 32, 40…), up to limit."""
    out = list(range(1, min(limit, 8) + 1))
    base = 8
    while base <= limit:
        out.extend(k for k in range(base + base // 4, 2 * base + 1, base // 4) if k <= limit)
        base *= 2
    return out


def candidate_counts(min_count: int, max_gpus: int, node_gpus: int) -> list[int]:
    """min_count, then powers of two and node multiples (node × node_multipliers) above it, up to max_gpus."""
    counts = {min_count}
    n = 1
    while n <= max_gpus:
        if n > min_count:
            counts.add(n)
        n *= 2
    node = node_gpus if node_gpus >= 8 else 8  # PCIe cards and NVL pairs: 8-GPU servers
    counts.update(k * node for k in node_multipliers(max_gpus // node) if k * node > min_count)
    return sorted(c for c in counts if c <= max_gpus)


@lru_cache(maxsize=256)
def _grid(max_gpus: int, node_gpus: int) -> tuple[int, ...]:
    return tuple(candidate_counts(1, max_gpus, node_gpus))


def min_fitting_count(gpu: GpuSpec, search: LayoutSearch) -> int | None:
    """Fewest GPUs that fit: the first fitting grid count, refined down over the node multiples the
    geometric grid skipped (a scan for short gaps, bisection for long ones), so the result is the
    same as walking every node multiple while fitting is monotone in the count."""
    node = gpu.scaleup_domain_gpus if gpu.scaleup_domain_gpus >= 8 else 8
    below = 0
    for n in _grid(search.workload.max_gpus, gpu.scaleup_domain_gpus):
        if search.fits(gpu, n):
            break
        below = n
    else:
        return None
    low_k, high_k = below // node + 1, (n - 1) // node  # node multiples strictly between below and n
    if high_k - low_k < 32:
        return next((k * node for k in range(low_k, high_k + 1) if search.fits(gpu, k * node)), n)
    while low_k <= high_k:  # invariant: n fits; every multiple below low_k does not
        mid = (low_k + high_k) // 2
        if search.fits(gpu, mid * node):
            n, high_k = mid * node, mid - 1
        else:
            low_k = mid + 1
    return n


# (GPU id, count) -> (step time × count, fastest fitting layout or None): each count is timed at most once.
LayoutMemo: TypeAlias = dict[tuple[str, int], tuple[float, Layout | None]]
# What every offer of one GPU type shares: (step × count, hours × count, tok/s ÷ band high, tok/s ÷ band low,
# (count, layout text, terms, step s, tok/s per GPU, MFU, hours, memory GB per GPU)).
_SharedTerms: TypeAlias = tuple[
    float, float, float, float, tuple[int, str, list[Term], float, float, float, float, float]
]


def best_estimate(gpu: GpuSpec, search: LayoutSearch, memo: LayoutMemo) -> TrainingEstimate:
    """Cheapest GPU count per step (step time × count) for one GPU type; infeasible estimate if none fits."""
    model, w = search.model, search.workload
    first = min_fitting_count(gpu, search)
    if first is None:
        return estimate_training(gpu, w.max_gpus, model, w, e=search.e)
    timer = GpuTimer(search, gpu)
    best_n, best_layout, best_cost, worse = first, None, float("inf"), 0
    sweep = (first, *(c for c in _grid(w.max_gpus, gpu.scaleup_domain_gpus) if c > first))  # candidate_counts
    for n in sweep:
        if worse >= 2:  # cost per step rose twice after the best: more GPUs only add communication
            break
        threshold = best_cost * 0.999
        if timer.compute_s(n, "none") * n >= threshold:  # cost ≥ compute without recompute: cannot improve
            worse += 1
            continue
        key = (gpu.id, n)
        if key not in memo:
            layout, seconds = timer.best_layout(n)
            memo[key] = (seconds * n if layout else float("inf"), layout)
        cost, layout = memo[key]
        if cost < threshold:
            best_n, best_layout, best_cost, worse = n, layout, cost, 0
        else:
            worse += 1
    return estimate_training(gpu, best_n, model, w, layout=best_layout, e=search.e)


def _per_gpu(est: TrainingEstimate, w: TrainingWorkload) -> _SharedTerms | None:
    """What every option of one GPU type shares; the offer only multiplies by its price. None if infeasible.

    usd/step = (step × count) × price / 3600 and total = (hours × count) × price: the same operations in the
    same order as pricing each offer from the estimate."""
    if not est.feasible:
        return None
    tok = est.tokens_per_s_per_gpu
    hours = w.total_tokens / (est.gpu_count * tok) / 3600
    return (
        est.step_time_s * est.gpu_count,
        hours * est.gpu_count,
        tok / est.band.high,
        tok / est.band.low,
        (est.gpu_count, est.layout_text, est.terms, est.step_time_s, tok, est.mfu, hours, est.memory_per_gpu_gb),
    )


def rank_training(workload: TrainingWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> TrainingRanking:
    """All matching offers, feasible ones by USD per step (cheapest first), infeasible after with reasons.

    Order: (USD per step, GPU id, provider id, offer order). Each GPU type's offers are already sorted
    by price (memoised per snapshot), so the ranking is a lazy merge of one run per GPU type: offers
    are priced and option objects built only as far as a caller reads."""
    offers = snapshot_offers(snapshot, workload)
    groups = offers_by_gpu(snapshot, workload)
    search = LayoutSearch(model, workload)
    memo: LayoutMemo = {}
    estimates: dict[str, TrainingEstimate] = {}
    notes = []
    for gpu_id in sorted(groups):
        gpu, note = fill_missing_peaks(snapshot.gpus[gpu_id], snapshot.gpus)
        if note:
            notes.append(f"{gpu_id}: {note}")
        estimates[gpu_id] = best_estimate(gpu, search, memo)
    shared = {gpu_id: share for gpu_id, est in estimates.items() if (share := _per_gpu(est, workload)) is not None}
    order = MergedOrder(
        [_priced_run(offers, groups[g], g, shared[g]) for g in shared], sum(len(groups[g]) for g in shared)
    )
    infeasible_gpus = [g for g in sorted(groups) if g not in shared]
    infeasible: list[int] = []  # (GPU id, provider id, offer order), filled when first read
    winner = _band(order[0][0], shared[order[0][1]]) if order else None
    runners_up = ((usd, _band(usd, shared[g])) for usd, g, _, _ in islice(order, 1, None))
    contested = win_is_contested(winner, runners_up, min((t[2] for t in shared.values()), default=1.0))

    def build(position: int) -> TrainingOption:
        if position >= len(order):
            if not infeasible:
                infeasible.extend(
                    i for g in infeasible_gpus for i in sorted(groups[g], key=lambda i: (offers[i].provider_id, i))
                )
            offer = offers[infeasible[position - len(order)]]
            est = estimates[offer.gpu_id]
            return TrainingOption(
                gpu_id=offer.gpu_id,
                gpu_count=est.gpu_count,
                layout=est.layout_text,
                provider=offer.provider_id,
                provider_name=offer.provider_name,
                price_type=offer.price_type,
                usd_per_gpu_hour=offer.usd_per_gpu_hour,
                as_of=offer.as_of,
                feasible=False,
                reason=est.reason,
                close_call=False,
                terms=est.terms,
                usd_per_step=None,
                step_time_s=None,
                tokens_per_s_per_gpu=None,
                mfu=None,
                total_hours=None,
                total_usd=None,
                memory_per_gpu_gb=est.memory_per_gpu_gb,
                band=None,
                **offer_terms(offer),
            )
        usd_step, gpu_id, _, index = order[position]
        offer, per_gpu = offers[index], shared[gpu_id]
        _, hours_x_count, _, _, (count, layout, terms, step_s, tok, mfu, hours, mem) = per_gpu
        band = _band(usd_step, per_gpu)
        close = contested if position == 0 else is_close_call(band, winner)
        price = offer.usd_per_gpu_hour
        return TrainingOption(
            gpu_id=offer.gpu_id,
            gpu_count=count,
            layout=layout,
            provider=offer.provider_id,
            provider_name=offer.provider_name,
            price_type=offer.price_type,
            usd_per_gpu_hour=price,
            as_of=offer.as_of,
            feasible=True,
            reason="",
            close_call=close,
            terms=terms,
            usd_per_step=usd_step,
            step_time_s=step_s,
            tokens_per_s_per_gpu=tok,
            mfu=mfu,
            total_hours=hours,
            total_usd=hours_x_count * price,
            memory_per_gpu_gb=mem,
            band=band,
            **offer_terms(offer),
        )

    total = len(order) + sum(len(groups[g]) for g in infeasible_gpus)
    return TrainingRanking(model.id, LazyOptions(total, build), len(memo), notes, feasible_count=len(order))


def _priced_run(
    offers: list[Offer], indices: list[int], gpu_id: str, per_gpu: _SharedTerms
) -> Iterator[tuple[float, str, str, int]]:
    """One GPU type's offers, cheapest first, as (USD per step, GPU id, provider id, offer index)."""
    step_x_count = per_gpu[0]
    for i in indices:
        offer = offers[i]
        yield step_x_count * offer.usd_per_gpu_hour / 3600, gpu_id, offer.provider_id, i


def _band(usd_step: float, per_gpu: _SharedTerms) -> Band:
    return Band(usd_step * per_gpu[2], usd_step * per_gpu[3])
