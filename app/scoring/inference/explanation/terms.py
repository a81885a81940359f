"""Explanation lines of an inference estimate: bytes, FLOPs, time per term, bound and efficiency."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.scoring.efficiency.inference import PREFILL_FIRST_WAIT_STEPS, InferenceEfficiency
from app.scoring.explain import Term, figure, fixed, percent, significant
from app.scoring.inference.batching.queueing import md1_median_wait_ms, wait_steps
from app.scoring.inference.explanation.decode_terms import (
    ROCM_EVIDENCE,
    SOURCE,
    compute_term,
    decode_step_terms,
    dense_layers_note,
    evidence_words,
    fitted_source,
    memory_term,
    moe_layers_text,
    prefill_pass_term,
    tpot_text,
)
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.host_overheads import moe_prefill_ms
from app.scoring.inference.step.prefill import prefill_latency_ms, prompt_stage_pass

if TYPE_CHECKING:
    from app.scoring.inference.batching.operating_points import OperatingPoint

__all__ = ["ROCM_EVIDENCE", "SOURCE", "p99_latencies_ms", "step_terms"]


def _prefill_terms(
    ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, input_len: float
) -> list[Term]:
    """The pass a first token waits for (prefill.prompt_stage_pass), its parts, and with PP the stages in turn."""
    stage, batches = prompt_stage_pass(ctx, eff, point.ttft_prompts, input_len)
    pp, d = ctx.pipeline_parallel, stage.breakdown
    per_batch = point.ttft_prompts / batches
    prompts = f"{significant(per_batch)} prompts" if per_batch != 1 else "one prompt"
    if batches > 1:
        prompts += f", one of {significant(batches)} micro-batches"
    carried = f"{fixed(d.tokens, 0)} prompt tokens" if d else "prompt tokens"
    work = f"{carried} ({prompts}) in one pass, decoding nothing"
    if pp > 1:
        work += f", through one stage's {figure(ctx.layers_per_stage)} layers"
    terms = [
        compute_term(ctx, eff, stage, "prefill compute time", work),
        memory_term(ctx, eff, stage, "prefill weight read"),
        prefill_pass_term(ctx, eff, stage, "prefill stage pass" if pp > 1 else "prefill pass"),
    ]
    if pp > 1:
        passes = batches + pp - 1
        fill = f"; its {significant(batches)} micro-batches fill the pipeline: m + stages - 1" if batches > 1 else ""
        terms.append(
            Term(
                "prefill through the pipeline",
                prefill_ms(ctx, eff, point, input_len),
                "ms",
                f"{significant(passes)} stage passes × {figure(stage.total_ms / pp)} ms{fill}; {pp} stages of "
                f"{significant(ctx.layers_per_stage)} layers in turn, each with the whole prompt (a request sits in "
                "one "
                "micro-batch at a time: vLLM, TensorRT-LLM)",
            )
        )
    return terms


def prefill_ms(ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, input_len: float) -> float:
    """The prefill a first token waits for: its prompts through every pipeline stage in turn (prefill_latency_ms)."""
    return prefill_latency_ms(ctx, eff, point.ttft_prompts, input_len)


def _ttft_parts(
    ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, input_len: float
) -> list[tuple[float, str]]:
    """TTFT's parts as (ms, label): the prefill, the M/D/1 prefill queue, the running steps' wait, a slot's wait."""
    parts = [
        (prefill_ms(ctx, eff, point, input_len), "prefill"),
        (point.prefill_queue_ms, "prefill queue"),
        (point.step_wait_ms, "running steps' wait"),
        (point.batched_prefill_ms, "shared prefill pass"),
        (point.queue_ms, "slot wait"),
    ]
    return [(value, label) for value, label in parts if value or label == "prefill"]


def _ttft_wait_terms(ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint) -> list[Term]:
    """Under continuous batching: the M/D/1 prefill queue and the running steps a new request waits for."""
    terms = []
    if point.prefill_queue_ms:
        service, rho = point.prefill.total_ms, point.prefill_utilisation
        piped = (
            f"; with PP the prompt's {ctx.pipeline_parallel} stage passes of 1/{ctx.pipeline_parallel} of it each, the "
            "pipeline kept full"
            if ctx.pipeline_parallel > 1
            else ""
        )
        held = (
            " at the batch that carries one prompt a step: beyond it the prompts share a pass, which they lengthen "
            "rather than queue behind (TTFT: shared prefill pass)"
            if point.batched_prefill_ms
            else ""
        )
        terms.append(
            Term(
                "TTFT: prefill queue",
                point.prefill_queue_ms,
                "ms",
                f"{figure(service)} ms × {figure(rho)} / (2 × (1 - {figure(rho)})); the mean M/D/1 wait of a prompt "
                f"for the prefills ahead of it: service × rho / (2(1 - rho)), the service the time a prompt's prefill "
                f"holds the GPUs{piped}, rho the share of each step the arriving prompts take{held}",
            )
        )
    if point.batched_prefill_ms:
        terms.append(_shared_pass_term(point))
    if point.step_wait_ms:
        steps, tokens = wait_steps(ctx.engine, eff), point.step.tokens_per_step
        step_ms = point.step.total_ms * tokens  # a step's wall time: speculative decoding gives `tokens` per step
        busy = point.step_wait_ms / (steps * step_ms)
        share = f" × {figure(busy)} busy" if abs(busy - 1.0) > 1e-9 else ""
        speculative = f"; a step gives {figure(tokens)} tokens (speculative decoding)" if tokens != 1.0 else ""
        terms.append(
            Term(
                "TTFT: running steps' wait",
                point.step_wait_ms,
                "ms",
                f"{significant(steps)} steps × {figure(step_ms)} ms{share}; {_wait_how(steps)}{speculative}"
                + ("; busy: the share of time a running request is there to wait for" if share else ""),
            )
        )
    return terms


def _shared_pass_term(point: OperatingPoint) -> Term:
    """Above one prompt a step on an MoE model: the other prompts' work in the prefill pass a prompt shares."""
    n = point.pass_prompts
    work_ms = point.batched_prefill_ms * n / (n - 1.0)
    return Term(
        "TTFT: shared prefill pass",
        point.batched_prefill_ms,
        "ms",
        f"({figure(n)} - 1) / {figure(n)} × {figure(work_ms)} ms; the step prefills {figure(n)} prompts, more than "
        f"one, in one pass (the engine batches the prompts waiting: SGLang's PrefillAdder, vLLM's token budget), "
        f"paying the MoE prefill host time once; a prompt's pass carries the others' work beside its own, "
        f"{figure(work_ms)} ms of prompt work a step less that host time (a bulk-service queue: Bailey 1954)",
    )


def _wait_how(steps: float) -> str:
    if steps == PREFILL_FIRST_WAIT_STEPS:
        return "the step in flight: SGLang prefills waiting prompts in a batch of their own (PREFILL_FIRST_WAIT_STEPS)"
    return "the step in flight and the one that carries the prompt with the batch (ttft_wait_steps)"


def _ttft_detail(ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, input_len: float) -> str:
    total = " + ".join(f"{figure(value)} ms {label}" for value, label in _ttft_parts(ctx, eff, point, input_len))
    if point.ttft_prompts != 1:
        return f"{total}; static batching: the whole batch prefills before its first token"
    if not (point.prefill_queue_ms or point.step_wait_ms or point.queue_ms):
        return f"{total}; mean: the prompt's own prefill, with no other request to wait for"
    steps = wait_steps(ctx.engine, eff)
    shared = ", the other prompts in its shared prefill pass" if point.batched_prefill_ms else ""
    return (
        f"{total}; mean: the prompt's own prefill, then under load the M/D/1 prefill queue{shared} and "
        f"{significant(steps)} running steps' wait ({_wait_how(steps)})"
    )


def step_terms(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    point: OperatingPoint,
    input_len: float,
    beam_width: int = 1,
    prompt_p99_over_mean: float | None = None,
) -> list[Term]:
    ttft_p99, tpot_p99 = p99_latencies_ms(point, eff, prompt_p99_over_mean)
    return [
        *decode_step_terms(ctx, eff, point.step, point.batch, beam_width),
        *_prefill_terms(ctx, eff, point, input_len),
        *_moe_prefill_terms(ctx, eff),
        *_queue_terms(point),
        *_ttft_wait_terms(ctx, eff, point),
        Term("TTFT", point.ttft_ms, "ms", _ttft_detail(ctx, eff, point, input_len)),
        Term(
            "TTFT median",
            point.ttft_median_ms,
            "ms",
            _median_ttft_detail(point),
        ),
        Term("TTFT p99", ttft_p99, "ms", _p99_ttft_detail(point, eff, prompt_p99_over_mean)),
        Term("TPOT", point.tpot_ms, "ms", tpot_text(point.step, eff)),
        Term(
            "TPOT p99",
            tpot_p99,
            "ms",
            f"{figure(point.tpot_ms)} ms mean × {significant(eff.p99_over_mean)};{p99_source('p99_over_mean')}; the "
            f"limit keeps the mean under {percent(eff.slo_tpot_utilisation)} of it "
            f"({evidence_words(['slo_tpot_utilisation']) or 'slo_tpot_utilisation'})",
        ),
    ]


def _median_ttft_detail(point: OperatingPoint) -> str:
    if not point.poisson_arrivals:
        why = (
            "a closed loop's arrivals are its clients' departures, not Poisson: reported as the mean"
            if point.prefill_queue_ms or point.step_wait_ms or point.queue_ms
            else "the first token waits for no other request: the median is the mean"
        )
        return f"{figure(point.ttft_ms)} ms, the mean; {why}"
    median_wait = md1_median_wait_ms(point.prefill.total_ms, point.prefill_utilisation)
    return (
        f"{figure(point.ttft_ms)} ms mean - {figure(point.prefill_queue_ms)} ms mean prefill queue + "
        f"{figure(median_wait)} ms its median; Poisson arrivals: the M/D/1 prefill wait (utilisation "
        f"{fixed(point.prefill_utilisation, 2)}) at its median, none while the queue is busy under half the time"
    )


# Where the p99 / mean ratios come from (efficiency/inference.py: p99_ttft_over_mean, p99_over_mean).
P99_SOURCE = " (p99 / mean ratio fitted on the published p99 rows: MLPerf LoadGen, InferenceX)"


def p99_source(name: str) -> str:
    """P99_SOURCE with the rows and publications the ratio `name` rests on: '... InferenceX: p99_over_mean on 17 rows
    of 3 publications)'."""
    words = evidence_words([name])
    return f"{P99_SOURCE[:-1]}: {words})" if words else P99_SOURCE


def p99_latencies_ms(
    point: OperatingPoint, eff: InferenceEfficiency, prompt_p99_over_mean: float | None = None
) -> tuple[float, float]:
    """(p99 TTFT, p99 TPOT) in ms, the latency limits bound these: the means times the fitted p99 / mean ratios, a
    TTFT's own prefill times the question's prompt spread where it gives one (OperatingPoint.ttft_p99_ms)."""
    return point.ttft_p99_ms(eff.p99_ttft_over_mean, prompt_p99_over_mean), point.tpot_ms * eff.p99_over_mean


def _p99_ttft_detail(point: OperatingPoint, eff: InferenceEfficiency, prompt_p99_over_mean: float | None) -> str:
    ratio = eff.p99_ttft_over_mean
    checked = "the TTFT limit is checked against it"
    if prompt_p99_over_mean is None:
        return (
            f"{figure(point.ttft_ms)} ms mean × {significant(ratio)};{p99_source('p99_ttft_over_mean')}; with no "
            "prompt spread given, "
            f"the whole mean takes it, the request's own prefill too (a prompt spread of 1, every prompt one length, "
            f"puts that prefill's p99 at its mean); {checked}"
        )
    waits = point.ttft_ms - point.own_prefill_ms
    return (
        f"{figure(point.own_prefill_ms)} ms prefill × {significant(prompt_p99_over_mean)} + {figure(waits)} ms waits × "
        f"{significant(ratio)}; the question's prompt spread (p99 prompt / mean) on the request's own prefill, the "
        f"fitted ratio{p99_source('p99_ttft_over_mean')} on its waits; {checked}"
    )


def _moe_prefill_terms(ctx: InferenceContext, eff: InferenceEfficiency) -> list[Term]:
    """MoE prefill in a PyTorch engine: eager per-layer host work, part of the prefill's overheads (and TTFT)."""
    host_ms = moe_prefill_ms(ctx, eff)
    if host_ms <= 0:
        return []
    detail = (
        f"{moe_layers_text(ctx)} × {figure(eff.moe_prefill_layer_ms)} ms; eager (no CUDA graph)"
        f"{dense_layers_note(ctx)}; {fitted_source(['moe_prefill_layer_ms'])}"
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
            f"{significant(point.waiting)} requests wait beyond the {significant(point.batch)} running: waiting × "
            "request life / running",
        )
    ]
