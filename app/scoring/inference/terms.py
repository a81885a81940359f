"""Explanation lines of an inference estimate: bytes, FLOPs, time per term, bound and efficiency."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.scoring.efficiency.inference import PREFILL_FIRST_WAIT_STEPS, InferenceEfficiency
from app.scoring.explain import Term
from app.scoring.inference.operating_points import wait_steps
from app.scoring.inference.steps import (
    InferenceContext,
    StepParts,
    factor_text,
    mbu,
    mbu_cap_text,
    mbu_factors,
    mfu,
    mfu_factors,
    moe_prefill_ms,
    per_sequence_overhead_ms,
)

if TYPE_CHECKING:
    from app.scoring.inference.operating_points import OperatingPoint

SOURCE = "efficiency/inference.py (fitted by calibrate_inference on the public validation cases)"
# What stands behind the ROCm factors, said wherever they apply.
ROCM_EVIDENCE = (
    "ROCm factors fitted on the two AMD inference publications, argonne's 2024 vLLM 0.6.1 ROCm runs and AMD's tuned "
    "MLPerf v4.1 submission, which disagree 2-5x at large batches: a compromise with a wide band (docs/ACCURACY.md)"
)


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


def _piggyback_text(step: StepParts) -> str:
    """What a mixed step computes beside the decode: the prompts of the requests arriving meanwhile."""
    if step.prefill_tokens < 0.5:
        return ""
    return f" (the batch's decode plus {step.prefill_tokens:,.0f} prompt tokens prefilled per step)"


def step_terms(
    ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, beam_width: int = 1
) -> list[Term]:
    step, prefill = point.step, point.prefill
    tp, bw = ctx.tensor_parallel, ctx.bandwidth_tbs
    step_mbu = mbu(ctx, eff)
    ttft_p99, tpot_p99 = p99_latencies_ms(point, eff)
    step_mfu = mfu(ctx, eff)
    beams = f" x {beam_width} beams" if beam_width > 1 else ""  # each beam reads its whole context
    return [
        Term(
            "decode weight read",
            step.weight_bytes / 1e9,
            "GB/GPU/step",
            f"{step.weight_bytes / 1e9:.2f} GB per GPU at TP{tp}",
        ),
        Term(
            "decode KV read", step.kv_bytes / 1e9, "GB/GPU/step", f"batch {point.batch:g}{beams} x KV at mean context"
        ),
        Term(
            "decode memory time",
            step.memory_ms,
            "ms",
            f"{(step.weight_bytes + step.kv_bytes) / 1e9:.2f} GB / ({bw:g} TB/s x MBU {step_mbu:.2f}); MBU = "
            f"{factor_text(mbu_factors(ctx, eff))}{mbu_cap_text(ctx, eff)}; {SOURCE}"
            + (f"; {ROCM_EVIDENCE}" if ctx.amd else ""),
        ),
        Term(
            "decode compute time",
            step.compute_ms,
            "ms",
            f"{step.flops / 1e12:.2f} TFLOP{_piggyback_text(step)} / ({ctx.peak_tflops:g} TFLOPS {ctx.compute_dtype} x "
            f"MFU {step_mfu:.2f}); MFU = {factor_text(mfu_factors(ctx, eff))}",
        ),
        Term(
            "TP all-reduce",
            step.comm_ms,
            "ms",
            (f"2 per layer, {ctx.link_name} {ctx.link_gbs:g} GB/s one way" if tp > 1 else "TP1: none")
            + (f"; plus pipeline sends across nodes at {ctx.fabric_gbs:g} GB/s per GPU" if ctx.fabric_gbs else ""),
        ),
        Term(
            "launch and host overheads",
            step.overhead_ms,
            "ms",
            f"{eff.step_overhead_ms:.3f} ms/step + {eff.layer_overhead_ms:.4f} ms/layer + "
            f"{per_sequence_overhead_ms(ctx, eff) * 1e3:.1f} us per running sequence"
            + (" (vLLM's Python scheduler, sampler and detokeniser included)" if ctx.engine == "vllm" else ""),
        ),
        *_expert_terms(ctx, point),
        Term(
            "decode memory / compute",
            step.memory_ms / max(step.compute_ms, 1e-9),
            "x",
            f"{step.bound}-bound at batch {point.batch:g}: the step's reads take this multiple of its matmuls' time"
            " (above 1: memory-bound)",
        ),
        Term(
            "prefill compute time", prefill.compute_ms, "ms", f"{prefill.flops / 1e12:.2f} TFLOP per GPU for one prompt"
        ),
        Term("prefill weight read", prefill.memory_ms, "ms", "weights streamed once per prompt"),
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
            f"mean x {eff.p99_ttft_over_mean:g}{P99_SOURCE}; the TTFT limit is checked against it",
        ),
        Term("TPOT", point.tpot_ms, "ms", "mean: one decode step incl. piggybacked prefill work"),
        Term(
            "TPOT p99",
            tpot_p99,
            "ms",
            f"mean x {eff.p99_over_mean:g}{P99_SOURCE}; the limit keeps the mean under "
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
        f"{ctx.layers_per_stage} MoE-model layers x {eff.moe_prefill_layer_ms:.2f} ms, eager (no CUDA graph); {SOURCE}"
    )
    return [Term("prefill MoE host time", host_ms, "ms", detail)]


def _expert_terms(ctx: InferenceContext, point: OperatingPoint) -> list[Term]:
    """MoE: the routed experts' grouped GEMMs, timed as their own kernel class beside the dense GEMMs."""
    if not ctx.moe:
        return []
    share = ctx.experts_active_share
    detail = (
        f"each expert multiplies only k/E = {share:.3g} of the step's tokens, so its grouped GEMM stays memory-bound "
        "at batches where the dense GEMMs are compute-bound: timed at its own roofline, in sequence with them"
    )
    return [Term("decode routed-expert GEMMs", point.step.expert_busy_ms, "ms", detail)]


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
