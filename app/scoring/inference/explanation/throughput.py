"""The headline output tokens/s, as a term: how the scenario turns the step and the TTFT into the tokens a second the
estimate shows (and prices), so the explanation ends at the number it explains."""

from __future__ import annotations

from app.scoring.explain import Term, figure
from app.scoring.inference.batching.running_batch import batching_scenario
from app.scoring.inference.estimates.results import Solution

NAME = "output tokens/s"


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
            f"{figure(max(out - 1, 0))} × {figure(p.tpot_ms)} ms a step) × 1,000 ms/s; each request's life, by "
            "Little's law"
        )
    else:
        running = "requests in flight on average" if s.light_load else "running requests"
        detail = (
            f"{figure(p.batch)} {running} / {figure(p.step.total_ms)} ms a step × 1,000 ms/s; each step gives every "
            "running request one output token"
        )
    return [Term(NAME, p.tokens_per_s, "tokens/s", detail)]
