"""A configuration that meets the latency limits only below one request in flight (Solution.light_load,
loops.light_load_point), in words: the option's reason, its assumption line and the term of the requests a second
it serves."""

from __future__ import annotations

from app.scoring.explain import Term, figure, in_flight_text, significant
from app.scoring.inference.batching.queueing import request_life_ms, sustained_requests_per_s
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.explanation.throughput import per_token_words


def _in_flight(s: Solution) -> str:
    """The mean requests in flight at a light-load point, in words: never rounded up to one."""
    return in_flight_text(s.point.batch)


def _light_load_rate(s: Solution) -> float:
    """Requests a second a replica serves at a light-load point: its mean in flight over one request's life
    (sustained_requests_per_s, as its replicas for traffic count it)."""
    p = s.point
    return sustained_requests_per_s(p.batch, p.ttft_ms, p.tpot_ms, s.workload.output_len, p.tokens_per_s)


def _rate_arithmetic(s: Solution) -> str:
    """The light-load rate's arithmetic, as evaluated: Little's law, or the tokens/s where they carry fewer."""
    p, out = s.point, s.workload.output_len
    tokens = (
        f"the tokens/s: {figure(p.batch)} requests in flight on average / {figure(p.step.total_ms)} "
        f"{per_token_words(p.step.tokens_per_step)} × 1,000 ms/s"
    )
    if p.batch * 1e3 / request_life_ms(p.ttft_ms, p.tpot_ms, out) <= p.tokens_per_s / max(out, 1.0):
        return (
            f"{figure(p.batch)} requests in flight on average / ({figure(p.ttft_ms)} ms TTFT + "
            f"{figure(max(out - 1, 0))} × {figure(p.tpot_ms)} ms TPOT) × 1,000 ms/s; Little's law: a request holds "
            f"its slot from its prompt to its last token; {tokens}"
        )
    return f"{figure(p.tokens_per_s)} output tokens/s / {figure(out)} output tokens a request; {tokens}"


def light_load_reason(s: Solution) -> str:
    if not s.light_load:
        return ""
    return (
        f"fits below one request in flight: {significant(_light_load_rate(s), 3)} requests/s ({_in_flight(s)} in "
        f"flight on average) meet the limits on {s.tensor_parallel * s.pipeline_parallel}×{s.gpu.name}; one always in "
        "flight misses them"
    )


def light_load_note(s: Solution) -> list[str]:
    """Why a light-load point serves so few tokens: the limits hold only while requests seldom overlap."""
    if not s.light_load:
        return []
    return [
        f"light load: with one request always in flight each arrival waits for the running step and the prompts "
        f"ahead of it, and misses the limits; at most {significant(_light_load_rate(s), 3)} requests/s a replica "
        f"({_in_flight(s)} in flight on average) meet them, so more traffic takes more replicas"
        + _prompt_spread_hint(s)
    ]


def _prompt_spread_hint(s: Solution) -> str:
    """Where the p99 TTFT is the whole mean x the fitted ratio (no prompt spread given), a light load's rate turns on
    the request's own prefill doubling: say how to state prompts of one length, which the limit may allow more of."""
    if s.workload.prompt_p99_over_mean is not None:
        return ""
    return (
        f"; its p99 TTFT is the mean × {significant(s.efficiency.p99_ttft_over_mean)}, the prompt's own prefill "
        "included (prompts "
        "of varied length): where prompts are all about one length, set prompt_p99_over_mean (1 = one length)"
    )


def light_load_terms(s: Solution) -> list[Term]:
    if not s.light_load:
        return []
    return [
        Term(
            "requests within the limits",
            _light_load_rate(s),
            "requests/s",
            _rate_arithmetic(s) + " (below one in flight: one always in flight misses the limits)",
        )
    ]
