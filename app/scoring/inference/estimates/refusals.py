"""Why a configuration that holds the model is refused at its latency limits or load, in words: even one request in
flight misses the limits (one_request_misses), what a request alone meets (alone_words, checked as latency_bound
checks a batch: meets_limits), and an open loop above its capacity (overload_reason)."""

from __future__ import annotations

import math

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.explain import duration_text, fixed, percent, significant
from app.scoring.inference.bands.limits import ON_ESTIMATE, ONE_TOKEN_NOTE, SLOW_END, slow_end_words
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.workload import InferenceWorkload


def meets_limits(
    w: InferenceWorkload, eff: InferenceEfficiency, point: OperatingPoint, multiples: tuple[float, float]
) -> bool:
    """Whether `point` meets the limits as latency_bound checks them: p99 TTFT within its limit, mean TPOT within
    slo_tpot_utilisation of its limit (each at the band's slow end where the workload asks for it)."""
    ttft = point.ttft_p99_ms(eff.p99_ttft_over_mean, w.prompt_p99_over_mean) * multiples[0]
    return ttft <= w.ttft_ms and point.tpot_ms * multiples[1] <= eff.slo_tpot_utilisation * w.tpot_limit_ms


def alone_words(
    w: InferenceWorkload, eff: InferenceEfficiency, alone: OperatingPoint, multiples: tuple[float, float]
) -> str:
    """What a request meets with no other traffic (scenario single_stream), checked as latency_bound checks a batch:
    a configuration whose lone request meets the limits is kept at a lighter load (light_load_point), so a refusal
    nearly always finds it over them too."""
    ttft = alone.ttft_p99_ms(eff.p99_ttft_over_mean, w.prompt_p99_over_mean) * multiples[0]
    verdict = (
        "within the limits with no other traffic at all (rank scenario single_stream)"
        if meets_limits(w, eff, alone, multiples)
        else "over the limits too"
    )
    tpot_words = "" if math.isinf(w.tpot_limit_ms) else f", mean TPOT {fixed(alone.tpot_ms * multiples[1], 1)} ms"
    return f"; a request alone, with no other traffic: p99 TTFT {fixed(ttft, 0)} ms{tpot_words}, {verdict}"


def one_request_misses(
    w: InferenceWorkload,
    eff: InferenceEfficiency,
    ttft_p99_ms: float,
    tpot_mean_ms: float,
    multiples: tuple[float, float],
) -> str:
    """Why latency_bound finds no batch: batch 1's p99 TTFT or mean TPOT, where the limits are checked."""
    target = eff.slo_tpot_utilisation * w.tpot_ms
    share = f"{percent(eff.slo_tpot_utilisation)} of the {significant(w.tpot_ms)} ms p99 limit, headroom for load"
    if math.isinf(w.tpot_limit_ms):  # a one-token output: only its first token is limited
        ttft_multiple = multiples[0]
        there = f" {SLOW_END} (TTFT {fixed(ttft_multiple, 2)}× the estimate)" if multiples != ON_ESTIMATE else ""
        return (
            f"even one request misses the TTFT limit{there}: p99 TTFT {fixed(ttft_p99_ms * ttft_multiple, 0)} ms "
            f"(limit {significant(w.ttft_ms)}); {ONE_TOKEN_NOTE}"
        )
    if multiples == ON_ESTIMATE:
        return (
            f"even one request misses the limits: p99 TTFT {fixed(ttft_p99_ms, 0)} ms (limit "
            f"{significant(w.ttft_ms)}), mean TPOT {fixed(tpot_mean_ms, 1)} ms (target {fixed(target)}: {share})"
        )
    ttft_multiple, tpot_multiple = multiples
    return (
        f"even one request misses the limits {SLOW_END} {slow_end_words(multiples)}: p99 TTFT "
        f"{fixed(ttft_p99_ms * ttft_multiple, 0)} ms there, {fixed(ttft_p99_ms, 0)} estimated (limit "
        f"{significant(w.ttft_ms)}), mean TPOT {fixed(tpot_mean_ms * tpot_multiple, 1)} ms there, "
        f"{fixed(tpot_mean_ms, 1)} estimated (target {fixed(target)}: {share})"
    )


# The horizon over which overload_reason pictures the growing queue: a minute, as its words say.
OVERLOAD_HORIZON_S = 60.0


def overload_reason(requests_per_s: float, point: OperatingPoint) -> str:
    """Why an open loop above capacity cannot serve its rate. Its queue grows by rate - capacity requests a second
    with no steady state, so after a minute a new arrival waits (rate - capacity) x 60 / capacity seconds for a
    slot (the fluid limit of the queue; finite_run.py replays such runs step by step for the validator and agrees
    to a few per cent once the backlog dominates)."""
    capacity = requests_per_s - point.backlog_per_s
    growth = point.backlog_per_s * OVERLOAD_HORIZON_S
    grown = fixed(growth, 0)  # just over capacity: "0.31 requests", not "0 requests"
    return (
        f"overloaded: keeps up with {significant(capacity, 3)} requests/s at most (batch {significant(point.batch)}), "
        f"not {significant(requests_per_s, 7)}; the queue grows by {grown} request{'' if grown == '1' else 's'} a "
        f"minute, so after a minute a new request waits {duration_text(growth / max(capacity, 1e-9))} for a slot: add "
        "replicas or GPUs"
    )
