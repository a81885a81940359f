"""Issue 10's product questions, answered as the product answers them: the estimate for each setting with its
band, batch, bound and the terms behind it. `make accuracy` writes them into docs/ACCURACY.md; the tests hold
them to smoothness and to the ratios the GPUs' datasheets allow.

1. DeepSeek-R1 (FP8, SGLang) on 8×H200 as the TPOT limit goes from 30 to 150 ms: the batch and throughput should
   rise smoothly with the limit, not jump.
2. gpt-oss-120b (MXFP4 weights, vLLM) on one H100: it fits one card, and serves a real batch.
3. Llama-3.1-405B (FP8, TensorRT-LLM) and DeepSeek-R1 (FP8, SGLang) on 8×H200 against 8×B200: B200's FP8 peak is
   2.27x the H200's and its bandwidth 1.67x, so where the limit is loose its per-GPU throughput should lie near
   those, not at 4-7x.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import Dtype, Engine, InferenceWorkload

# One request shape for every question: 1,000 prompt and 1,000 generated tokens (InferenceX's 1k/1k), a 3 s p99 TTFT
INPUT_TOKENS, OUTPUT_TOKENS, TTFT_LIMIT_MS = 1_000, 1_000, 3_000
R1_TPOT_LIMITS_MS = tuple(range(30, 151, 10))
R1_QUESTION = "DeepSeek-R1 FP8, SGLang, 8×H200"
GPT_OSS_TPOT_LIMITS_MS = (20, 30, 50, 100)
COMPARED_LIMITS_MS = (30, 50, 100)  # B200 against H200; each is also in R1_TPOT_LIMITS_MS


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    gpu_id: str
    gpu_count: int
    tpot_limit_ms: float
    estimate: InferenceEstimate


def _workload(model: str, dtype: Dtype, engine: Engine, tpot_ms: float) -> InferenceWorkload:
    return InferenceWorkload(
        model=model,
        weight_dtype=dtype,
        engine=engine,
        input_len=INPUT_TOKENS,
        output_len=OUTPUT_TOKENS,
        ttft_ms=TTFT_LIMIT_MS,
        tpot_ms=tpot_ms,
        scenario="latency_bound",
    )


def _sweep(
    question: str,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    dtype: Dtype,
    engine: Engine,
    limits: Sequence[float],
) -> list[Answer]:
    return [
        Answer(
            question,
            gpu.id,
            gpu_count,
            limit,
            estimate_inference(gpu, gpu_count, model, _workload(model.id, dtype, engine, limit)),
        )
        for limit in limits
    ]


def r1_on_8_h200(gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> list[Answer]:
    return _sweep(R1_QUESTION, gpus["H200"], 8, models["deepseek-r1"], "fp8", "sglang", R1_TPOT_LIMITS_MS)


def gpt_oss_on_one_h100(gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> list[Answer]:
    question = "gpt-oss-120b MXFP4, vLLM, 1×H100 SXM"
    return _sweep(question, gpus["H100-SXM"], 1, models["gpt-oss-120b"], "fp4", "vllm", GPT_OSS_TPOT_LIMITS_MS)


def b200_against_h200(gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> list[Answer]:
    """Llama-3.1-405B (TensorRT-LLM) on 8×H200 and on 8×B200, and DeepSeek-R1 (SGLang) on 8×B200 to set beside
    its H200 sweep: FP8 weights on both GPUs, so the ratio is the GPUs', not FP4's."""
    b200, h200 = gpus["B200"], gpus["H200"]
    llama, r1 = models["llama-3.1-405b"], models["deepseek-r1"]
    return [
        *_sweep(
            f"Llama-3.1-405B FP8, TensorRT-LLM, 8×{h200.name}", h200, 8, llama, "fp8", "trtllm", COMPARED_LIMITS_MS
        ),
        *_sweep(
            f"Llama-3.1-405B FP8, TensorRT-LLM, 8×{b200.name}", b200, 8, llama, "fp8", "trtllm", COMPARED_LIMITS_MS
        ),
        *_sweep(f"DeepSeek-R1 FP8, SGLang, 8×{b200.name}", b200, 8, r1, "fp8", "sglang", COMPARED_LIMITS_MS),
    ]


def all_answers(gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> list[Answer]:
    return [*r1_on_8_h200(gpus, models), *gpt_oss_on_one_h100(gpus, models), *b200_against_h200(gpus, models)]


def b200_over_h200(answers: Sequence[Answer], model_label: str, tpot_limit_ms: float) -> float | None:
    """Per-GPU throughput of the B200 answer over the H200 one for a model at a TPOT limit (None: either missing)."""
    found = {
        a.gpu_id: a.estimate
        for a in answers
        if a.question.startswith(model_label) and a.tpot_limit_ms == tpot_limit_ms and a.estimate.feasible
    }
    if "H200" not in found or "B200" not in found:
        return None
    return found["B200"].output_tokens_per_s_per_gpu / found["H200"].output_tokens_per_s_per_gpu


def largest_step(answers: Sequence[Answer]) -> float:
    """The largest ratio of per-GPU throughput between neighbouring TPOT limits (1.0: flat; a jump shows as >> 1)."""
    rates = [a.estimate.output_tokens_per_s_per_gpu for a in answers if a.estimate.feasible]
    return max((b / a for a, b in zip(rates, rates[1:], strict=False) if a > 0), default=1.0)


STEP_TERMS = {
    "decode memory time": "memory",
    "decode compute time": "compute",
    "decode routed-expert GEMMs": "routed experts",
    "TP all-reduce": "all-reduce",
    "launch and host overheads": "overheads",
    "MoE prefill host time per step": "MoE prefill host",
}


def _main_terms(estimate: InferenceEstimate) -> str:
    """The decode step's terms in ms: what sets the TPOT, and so the batch that meets the limit."""
    return ", ".join(f"{STEP_TERMS[t.name]} {t.value:.1f}" for t in estimate.terms if t.name in STEP_TERMS)


def band_evidence(answers: Sequence[Answer]) -> list[str]:
    """Each question's band and what it rests on (the estimate's own assumption line), once per question."""
    seen: dict[str, str] = {}
    for a in answers:
        for line in a.estimate.assumptions:
            if line.startswith("band:"):
                seen.setdefault(a.question, line.removeprefix("band: "))
    return [f"{question}: band {evidence}" for question, evidence in seen.items()]


HEADERS = (
    "question",
    "TPOT limit ms",
    "batch",
    "output tok/s per GPU",
    "band (p10-p90)",
    "TPOT mean ms",
    "TTFT mean ms",
    "p99 TPOT band ms",
    "p99 TTFT band ms",
    "bound",
    "decode step terms, ms",
)


def _row(answer: Answer) -> list[str]:
    e = answer.estimate
    if not e.feasible:
        return [answer.question, f"{answer.tpot_limit_ms:g}", *["–"] * (len(HEADERS) - 3), e.reason]
    return [
        answer.question,
        f"{answer.tpot_limit_ms:g}",
        f"{e.batch}",
        f"{e.output_tokens_per_s_per_gpu:,.0f}",
        f"{e.band.low / e.gpu_count:,.0f}-{e.band.high / e.gpu_count:,.0f}",
        f"{e.tpot_ms:.1f}",
        f"{e.ttft_ms:.0f}",
        f"{e.tpot_p99_band.low:.1f}-{e.tpot_p99_band.high:.1f}",
        f"{e.ttft_p99_band.low:,.0f}-{e.ttft_p99_band.high:,.0f}",
        e.bound,
        _main_terms(e),
    ]


def _ratio_lines(answers: Sequence[Answer]) -> list[str]:
    lines = []
    for label in ("Llama-3.1-405B", "DeepSeek-R1"):
        for limit in COMPARED_LIMITS_MS:
            ratio = b200_over_h200(answers, label, limit)
            if ratio is not None:
                lines.append(f"{label} FP8 at TPOT {limit} ms: B200 / H200 per GPU = {ratio:.2f}x")
    return lines


def datasheet_ratios(h200: GpuSpec, b200: GpuSpec) -> tuple[float, float]:
    """B200 / H200: FP8 dense peak and HBM bandwidth (the catalog's datasheet figures)."""
    return (b200.fp8_tflops or 0.0) / (h200.fp8_tflops or 1.0), b200.memory_bandwidth_tbs / h200.memory_bandwidth_tbs


def _datasheet_line(h200: GpuSpec, b200: GpuSpec) -> str:
    peak, bandwidth = datasheet_ratios(h200, b200)
    return (
        f"Datasheet ratios B200 / H200: FP8 dense peak {peak:.2f}×, HBM bandwidth {bandwidth:.2f}×. Near the TPOT "
        "limit the ratio can pass both: the H200 spends most of the step budget streaming the weights, which leaves "
        "little of it for the batch."
    )


def markdown(gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> str:
    answers = all_answers(gpus, models)
    sweep = [a for a in answers if a.question == R1_QUESTION]
    rows = "\n".join("| " + " | ".join(_row(a)) + " |" for a in answers)
    r1_step = largest_step(sweep)
    notes = [
        f"DeepSeek-R1 on 8×H200: the largest step in per-GPU throughput between neighbouring 10 ms TPOT limits is "
        f"{r1_step:.2f}×.",
        *_ratio_lines(answers),
        _datasheet_line(gpus["H200"], gpus["B200"]),
        *band_evidence(answers),
    ]
    return (
        "## Product questions (issue 10)\n\n"
        f"Each row is the estimate the product shows for {INPUT_TOKENS:,} prompt and {OUTPUT_TOKENS:,} generated "
        f"tokens per request under a {TTFT_LIMIT_MS:,} ms p99 TTFT limit and the TPOT limit given "
        "(app/calibration/validation/product_questions.py); the band is the p10-p90 the estimate carries, the terms "
        "are its decode step's.\n\n"
        "| "
        + " | ".join(HEADERS)
        + " |\n|"
        + "---|" * len(HEADERS)
        + "\n"
        + rows
        + "\n\n"
        + "\n".join(f"- {n}" for n in notes)
        + "\n"
    )
