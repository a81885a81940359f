"""Where nothing serves a model within its latency limits: the refusals nearest the limits first, and a note naming
the nearest and the limits that would admit it, as training's nothing-on-time note names the nearest run (found by
qa39: 64×GB200 at p99 TTFT 337 ms against a 300 ms limit sat among layouts that hold no model, in offer order)."""

from __future__ import annotations

import math
from typing import NamedTuple

from app.scoring.explain import significant
from app.scoring.inference.ranking.pricing import ConfigurationPricing
from app.scoring.specs import Offer
from app.scoring.workload import InferenceWorkload


class NearestMiss(NamedTuple):
    """The refusal nearest the limits: its configuration, the least limits one request in flight meets there, the
    rounded limits the note gives (never below those asked) and the note."""

    gpu_id: str
    gpu_count: int
    ttft_limit_needed_ms: float
    tpot_limit_needed_ms: float
    ttft_ms: float  # the rounded TTFT limit that admits it
    tpot_ms: float
    note: str


def miss_ratio(needed_ms: tuple[float, float], workload: InferenceWorkload) -> float:
    """How far past the limits a refusal is: the larger of its needed TTFT and TPOT limits over those asked."""
    tpot_limit = workload.tpot_limit_ms
    tpot = 0.0 if math.isinf(tpot_limit) else needed_ms[1] / tpot_limit
    return max(needed_ms[0] / workload.ttft_ms, tpot)


def nearest_first(
    infeasible: list[int],
    offers: list[Offer],
    slot_of: list[int],
    by_slot: list[ConfigurationPricing],
    workload: InferenceWorkload,
) -> list[int]:
    """Refused offers (indices in offer order) with those refused at the limits first, nearest them first (then the
    cheaper configuration an hour), and the rest (no fit, overloaded) after, in offer order."""

    def key(index: int) -> tuple[int, float, float, int]:
        p = by_slot[slot_of[index]]
        needed = p.est.limits_needed_ms
        if needed is None:
            return (1, 0.0, 0.0, index)
        return (0, miss_ratio(needed, workload), offers[index].usd_per_gpu_hour * p.est.gpu_count, index)

    return sorted(infeasible, key=key)


def rounded_up(ms: float) -> float:
    """`ms` rounded up at its second significant digit (337 -> 340, 39.4 -> 40), so the limit named admits it."""
    if ms <= 0:
        return 0.0
    step = 10.0 ** (math.floor(math.log10(ms)) - 1)
    return round(math.ceil(round(ms / step, 9)) * step, 9)


def nearest_miss(first: ConfigurationPricing, workload: InferenceWorkload) -> NearestMiss | None:
    """The note on the nearest refusal (`first`, nearest_first's first) where it was refused at the limits."""
    needed = first.est.limits_needed_ms
    if needed is None:
        return None
    ttft = max(workload.ttft_ms, rounded_up(needed[0]))
    tpot_limit = workload.tpot_limit_ms
    tpot = workload.tpot_ms if math.isinf(tpot_limit) else max(workload.tpot_ms, rounded_up(needed[1]))
    changed = [
        f"{name} {significant(new)} ms (asked {significant(asked)})"
        for name, new, asked in (("TTFT", ttft, workload.ttft_ms), ("TPOT", tpot, workload.tpot_ms))
        if new != asked
    ]
    if not changed:  # met where checked after all (a refusal before its search times a nearby point)
        return None
    est = first.est
    config = f"{est.gpu_count}×{est.gpu_id}"
    tpot_words = "" if math.isinf(tpot_limit) else f" and a p99 TPOT limit of {significant(needed[1], 3)} ms"
    note = (
        f"Nearest option: {config}, which one request in flight meets at a p99 TTFT limit of "
        f"{significant(needed[0], 3)} ms{tpot_words}: p99 limits of {' and '.join(changed)} would admit its "
        f"{est.gpu_id} offers"
    )
    return NearestMiss(est.gpu_id, est.gpu_count, needed[0], needed[1], ttft, tpot, note)
