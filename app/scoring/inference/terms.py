"""Explanation lines of an inference estimate: bytes, FLOPs, time per term, bound and efficiency."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.scoring.efficiency.inference import PREFILL_FIRST_WAIT_STEPS, InferenceEfficiency
from app.scoring.explain import Term, figure
from app.scoring.inference.decode_terms import (
    ROCM_EVIDENCE,
    SOURCE,
    compute_term,
    decode_step_terms,
    memory_term,
    tpot_text,
)
from app.scoring.inference.operating_points import wait_steps
from app.scoring.inference.steps import InferenceContext, moe_prefill_ms

if TYPE_CHECKING:
    from app.scoring.inference.operating_points import OperatingPoint

__all__ = ["ROCM_EVIDENCE", "SOURCE", "p99_latencies_ms", "step_terms"]


def _pipeline_prefill_terms(ctx: InferenceContext, point: OperatingPoint) -> list[Term]:
    """With PP a request's own prompt runs the stages in turn; the terms above are one stage's share."""
    if ctx.pipeline_parallel == 1:
        return []
    return [
        Term(
            "prefill through the pipeline",
            point.first_prefill_ms,
            "ms",
            f"{ctx.pipeline_parallel} stages of {ctx.layers_per_stage:g} layers in turn, each with the whole prompt "
            "(a request sits in one micro-batch at a time: vLLM, TensorRT-LLM); the prefill terms above are one "
            "stage's",
        )
    ]


def _ttft_detail(ctx: InferenceContext, eff: InferenceEfficiency) -> str:
    steps = wait_steps(ctx.engine, eff)
    how = (
        "the step in flight: SGLang prefills waiting prompts in a batch of their own"
        if steps == PREFILL_FIRST_WAIT_STEPS
        else "the step in flight and the one that carries the prompt with the batch"
    )
    return f"mean: prefill + (under load) M/D/1 prefill queue + {steps:g} running steps' wait ({how})"


def step_terms(
    ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, beam_width: int = 1
) -> list[Term]:
    step, prefill = point.step, point.prefill
    ttft_p99, tpot_p99 = p99_latencies_ms(point, eff)
    return [
        *decode_step_terms(ctx, eff, step, point.batch, beam_width),
        compute_term(ctx, eff, prefill, "prefill compute time"),
        memory_term(ctx, eff, prefill, "prefill weight read"),
        *_pipeline_prefill_terms(ctx, point),
        *_moe_prefill_terms(ctx, eff),
        *_queue_terms(point),
        Term("TTFT", point.ttft_ms, "ms", _ttft_detail(ctx, eff)),
        Term(
            "TTFT median",
            point.ttft_median_ms,
            "ms",
            _median_ttft_detail(point),
        ),
        Term(
            "TTFT p99",
            ttft_p99,
            "ms",
            f"{figure(point.ttft_ms)} ms mean x {eff.p99_ttft_over_mean:g};{P99_SOURCE}; the TTFT limit is checked "
            "against it",
        ),
        Term("TPOT", point.tpot_ms, "ms", tpot_text(step, eff)),
        Term(
            "TPOT p99",
            tpot_p99,
            "ms",
            f"{figure(point.tpot_ms)} ms mean x {eff.p99_over_mean:g};{P99_SOURCE}; the limit keeps the mean under "
            f"{eff.slo_tpot_utilisation:.0%} of it (slo_tpot_utilisation)",
        ),
    ]


def _median_ttft_detail(point: OperatingPoint) -> str:
    if not point.poisson_arrivals:
        return "a closed loop's arrivals are its clients' departures, not Poisson: reported as the mean"
    return (
        f"Poisson arrivals: the mean with the M/D/1 prefill wait ({point.prefill_queue_ms:.1f} ms mean, utilisation "
        f"{point.prefill_utilisation:.2f}) at its median, none while the queue is busy under half the time"
    )


# Where the p99 / mean ratios come from (efficiency/inference.py: p99_ttft_over_mean, p99_over_mean).
P99_SOURCE = " (p99 / mean ratio fitted on the published p99 rows: MLPerf LoadGen, InferenceX)"


def p99_latencies_ms(point: OperatingPoint, eff: InferenceEfficiency) -> tuple[float, float]:
    """(p99 TTFT, p99 TPOT) in ms: the means times the fitted p99 / mean ratios; the latency limits bound these."""
    return point.ttft_ms * eff.p99_ttft_over_mean, point.tpot_ms * eff.p99_over_mean


def _moe_prefill_terms(ctx: InferenceContext, eff: InferenceEfficiency) -> list[Term]:
    """MoE prefill in a PyTorch engine: eager per-layer host work, part of the prefill's overheads (and TTFT)."""
    host_ms = moe_prefill_ms(ctx, eff)
    if host_ms <= 0:
        return []
    detail = (
        f"{figure(ctx.layers_per_stage)} MoE-model layers x {figure(eff.moe_prefill_layer_ms)} ms; eager (no CUDA "
        f"graph); {SOURCE}"
    )
    return [Term("prefill MoE host time", host_ms, "ms", detail)]


def _queue_terms(point: OperatingPoint) -> list[Term]:
    """Closed loop beyond the running batch: the wait for a slot, which TTFT includes."""
    if point.waiting <= 0:
        return []
    return [
        Term(
            "queue wait for a slot",
            point.queue_ms,
            "ms",
            f"{point.waiting:g} requests wait beyond the {point.batch:g} running: waiting x request life / running",
        )
    ]
