"""The engine's running batch: the scenario it is timed under and the caps on its size (the engine's batch cap,
its per-step token budget)."""

from __future__ import annotations

from app.scoring.efficiency.inference import STATIC_BATCH_ENGINES
from app.scoring.inference.batching.operating_points import CONTINUOUS_SCENARIOS, token_budget_cap
from app.scoring.inference.step.context import InferenceContext
from app.scoring.workload import InferenceWorkload


def batching_scenario(workload: InferenceWorkload) -> str:
    """The scenario operating_point times the running batch under: a statically batching engine at max throughput
    runs full batches one after another (the fixed-batch point); open and closed loops run loops of requests."""
    if workload.scenario == "max_throughput" and workload.engine in STATIC_BATCH_ENGINES:
        return "fixed_batch"
    if workload.scenario == "request_rate":
        return "concurrency"
    return workload.scenario


def running_cap(ctx: InferenceContext, workload: InferenceWorkload) -> int:
    """The engine's cap on the running batch: its batch cap and, under continuous batching, what its
    per-iteration token budget sustains (token_budget_cap)."""
    cap = engine_batch_cap(workload, ctx)
    if workload.scenario not in CONTINUOUS_SCENARIOS:
        return cap
    budget = token_budget_cap(
        ctx, workload.input_len, workload.output_len, workload.beam_width, workload.max_num_batched_tokens
    )
    return cap if budget is None else min(cap, budget)


def engine_batch_cap(workload: InferenceWorkload, ctx: InferenceContext) -> int:
    """The engine's cap on sequences in one batch: the workload's max_num_seqs, else the engine's default on this
    GPU (engine_defaults: vLLM's depends on it)."""
    return workload.max_num_seqs or ctx.default_batch_cap
