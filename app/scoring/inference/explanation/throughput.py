"""The headline output tokens/s, as a term: how the scenario turns the step and the TTFT into the tokens a second the
estimate shows (and prices), so the explanation ends at the number it explains."""

from __future__ import annotations

from app.scoring.explain import Term, figure
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.inference.batching.running_batch import batching_scenario
from app.scoring.inference.estimates.results import Solution

NAME = "output tokens/s"


def per_token_words(tokens_per_step: float) -> str:
    """What a per-token time is: a step's, or under speculative decoding a step's shared by the tokens it gives."""
    return "ms a step" if tokens_per_step == 1.0 else "ms per output token"


def _speculative_step(p: OperatingPoint) -> str:
    tokens = p.step.tokens_per_step
    return (
        f"a step of {figure(p.step.total_ms * tokens)} ms gives each running request {figure(tokens)} output tokens "
        "on average (speculative decoding)"
    )


def throughput_term(s: Solution) -> list[Term]:
    """The output tokens/s of the solved point (a batch job's are the job's term), with the arithmetic behind them."""
    if s.job is not None:
        return []
    p, w = s.point, s.workload
    out = w.output_len
    scenario = batching_scenario(w)
    if w.scenario == "request_rate":
        detail = (
            f"{figure(w.requests_per_s or 0.0)} requests/s × {figure(out)} output tokens; an open loop that keeps up "
            f"serves what arrives ({figure(p.batch)} requests in flight on average, by Little's law)"
        )
    elif scenario in ("concurrency", "fixed_batch", "single_stream"):
        first_ms = p.ttft_ms - p.queue_ms  # a queued client's wait for a slot is not the running batch's time
        who = {"concurrency": "running requests", "fixed_batch": "requests in the batch"}.get(scenario, "request")
        detail = (
            f"{figure(p.batch)} {who} × {figure(out)} output tokens / ({figure(first_ms)} ms to the first token + "
            f"{figure(max(out - 1, 0))} × {figure(p.tpot_ms)} {per_token_words(p.step.tokens_per_step)}) × 1,000 ms/s; "
            "each request's life, by Little's law"
            + ("" if p.step.tokens_per_step == 1.0 else "; " + _speculative_step(p))
        )
    else:
        running = "requests in flight on average" if s.light_load else "running requests"
        detail = (
            f"{figure(p.batch)} {running} / {figure(p.step.total_ms)} {per_token_words(p.step.tokens_per_step)} × "
            "1,000 ms/s; "
            + (
                "each step gives every running request one output token"
                if p.step.tokens_per_step == 1.0
                else _speculative_step(p)
            )
        )
    return [Term(NAME, p.tokens_per_s, "tokens/s", detail)]
