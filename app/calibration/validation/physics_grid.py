"""Synthetic case rows over the catalog, predicted as `gpumatch validate` predicts them, checked against physics.

The validator is judged on publications it has not seen, combining GPUs, models, dtypes, engines and scenarios in ways
the shared case files do not. Each synthetic row goes through predict_inference_case / predict_training_case, and a
covered prediction is held to bounds no real run can beat, from the GPU spec's own dense peaks and memory bandwidth:

* output tokens/s per GPU: at most the GPU's matmul peak over the FLOPs each output token costs, its prompt's share
  included (no MFU above 1); and at most b x bandwidth / (weight bytes + b x KV bytes read per decode step) at the
  row's batch b (no MBU above 1; an unknown batch is bounded by what the GPUs' memory holds);
* TTFT at least the prompt's FLOPs over (GPUs x peak); TPOT at least one token's FLOPs over (GPUs x peak) and the
  weights read once over (GPUs x bandwidth); decode and prefill tokens/s the inverse;
* training tokens/s per GPU at most the peak over the estimator's own model FLOPs per token; MFU at most 100 %;
  step time at least the batch's FLOPs over (GPUs x peak);
* no NaN, inf or negative value, and no exception (an uncovered row has a reason).

The bounds are lower bounds on work, so they are loose on purpose: the embedding matrices are left out of the weights
(the LM head is counted only for decode), MoE models read only their active parameters, attention FLOPs are left out,
and the peak is the largest the GPU has at any precision the weights could be multiplied in. A prediction past one is
an estimator bug, not a fitting error. scripts/physics_grid.py runs the whole grid; tests sample it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.calibration.inference.validate_inference import predict_inference_case
from app.calibration.training.validate_training import predict_training_case
from app.calibration.validation.cases import CasePrediction
from app.scoring.hardware.dtypes import KV_BYTES
from app.scoring.inference.step.memory import kv_bytes_per_token, kv_context_tokens
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.step.flops import dense_flops_per_token
from app.scoring.workload import default_kv_dtype

# Bytes per weight with no scales: the least any format of that width reads.
WEIGHT_BITS = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}
# Slack for rounding: a prediction must exceed a bound by more than this share to count as a violation.
TOLERANCE = 1e-6

INFERENCE_MODELS = (
    "llama-3.2-1b",  # dense small, tied embeddings
    "llama-2-7b",  # MHA
    "llama-3.1-8b",  # GQA
    "gemma-2-9b",  # sliding window
    "llama-3.1-70b",  # dense large
    "llama-3.1-405b",  # dense, needs a node
    "mixtral-8x7b",  # MoE, few experts
    "qwen3-30b-a3b",  # MoE, many small experts
    "gpt-oss-20b",
    "gpt-oss-120b",
    "deepseek-r1",  # MLA
)
WEIGHT_DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "fp4", "fp32")
ENGINES = ("vllm", "trtllm", "sglang", "llamacpp")
LENGTHS = ((128, 128), (2048, 512), (16000, 1000), (512, 1))  # output 1: a time-to-first-token test
# tensor_parallel stated (= gpu_count), or left empty for the validator to choose over a system of 8
PARALLELISM = ("stated", "unknown")
# (scenario, batch, concurrency, ttft limit, tpot limit, notes)
SCENARIOS = (
    ("max_throughput", "", "", "", "", ""),
    ("fixed_batch", "1", "", "", "", ""),
    ("fixed_batch", "8", "", "", "", ""),
    ("fixed_batch", "64", "", "", "", ""),
    ("single_stream", "1", "", "", "", ""),
    ("concurrency", "", "1", "", "", ""),
    ("concurrency", "", "16", "", "", ""),
    ("concurrency", "", "128", "", "", ""),
    ("request_rate", "", "", "", "", "request rate 2 req/s"),
    ("latency_bound", "", "", "2000", "50", ""),
)
SCENARIO_METRICS = ("output_tok_s_per_gpu", "ttft_ms", "tpot_ms")
SINGLE_STREAM_METRICS = ("decode_tok_s", "prefill_tok_s", "ttft_ms")

TRAINING_MODELS = ("llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3")
METHODS = ("pretrain", "full_ft", "lora", "qlora")
PRECISIONS = ("bf16", "fp16", "fp8", "fp4")
FRAMEWORKS = ("megatron-lm", "nemo", "llm-foundry", "torchtitan", "pytorch", "hf", "other")
GPU_COUNTS = (1, 8, 64, 512)
SEQ_LENS = (2048, 8192)
TRAINING_METRICS = ("tokens_s_per_gpu", "step_time_s", "mfu_pct")


@dataclass(frozen=True, slots=True)
class Violation:
    """A row whose prediction no real run could reach (or that raised)."""

    kind: str  # "exception", "not finite", "MFU > 1", "MBU > 1", "TTFT below compute floor", ...
    row: dict
    predicted: float | None
    bound: float | None
    detail: str = ""


def _peak_tflops(gpu: GpuSpec, widths: Iterable[str]) -> float | None:
    """The largest dense peak among the precisions named (16-bit always among them), else 2 x FP32."""
    fields = {"bf16": gpu.bf16_tflops, "fp16": gpu.fp16_tflops, "fp8": gpu.fp8_tflops, "fp4": gpu.fp4_tflops}
    fields["int8"] = gpu.int8_tops
    peaks = [fields[w] for w in ("bf16", "fp16", *widths) if fields.get(w)]
    if peaks:
        return float(max(p for p in peaks if p is not None))
    return 2 * gpu.fp32_tflops if gpu.fp32_tflops else None


# Precisions a weight format can be multiplied in (the activations' width included): the peak is the largest of them.
MATMUL_WIDTHS = {"fp32": (), "bf16": (), "fp16": (), "fp8": ("fp8",), "int8": ("int8", "fp8")}
MATMUL_WIDTHS |= {"int4": ("int8", "fp8", "fp4"), "fp4": ("fp8", "fp4")}


def _tp_for(gpu: GpuSpec, model: ModelSpec, dtype: str) -> int:
    """The smallest power-of-two group (at most 8) whose memory holds the weights with 10 % to spare."""
    need_gb = model.params_b * WEIGHT_BITS[dtype]
    for tp in (1, 2, 4, 8):
        if need_gb < gpu.memory_gb * tp * 0.9:
            return tp
    return 8


def _sampled(combos: Iterable[tuple], share: float, seed: int) -> Iterator[tuple]:
    """A reproducible random share of the combinations (all of them at share 1)."""
    rng = random.Random(seed)
    return (combo for combo in combos if share >= 1 or rng.random() < share)


def inference_rows(
    gpus: dict[str, GpuSpec],
    models: dict[str, ModelSpec],
    model_ids: Iterable[str] = INFERENCE_MODELS,
    share: float = 1.0,
    seed: int = 0,
) -> Iterator[dict]:
    """The grid's combinations (a random `share` of them) as case rows, one per metric."""
    combos = itertools.product(gpus, model_ids, WEIGHT_DTYPES, ENGINES, LENGTHS, SCENARIOS, PARALLELISM)
    for gpu_id, model_id, dtype, engine, (inp, out), scenario, parallelism in _sampled(combos, share, seed):
        name, batch, concurrency, ttft, tpot, notes = scenario
        tp = _tp_for(gpus[gpu_id], models[model_id], dtype)
        count = tp if parallelism == "stated" else 8
        for metric in SINGLE_STREAM_METRICS if name == "single_stream" else SCENARIO_METRICS:
            yield {
                "case_id": f"grid-{gpu_id}-{model_id}-{dtype}-{engine}-{inp}-{out}-{name}{batch}{concurrency}-"
                f"{parallelism}-{metric}",
                "source": "physics-grid",
                "engine": engine,
                "gpu": gpu_id,
                "gpu_count": str(count),
                "tensor_parallel": str(tp) if parallelism == "stated" else "",
                "pipeline_parallel": "1" if parallelism == "stated" else "",
                "model": model_id,
                "weight_dtype": dtype,
                "kv_dtype": "",
                "input_len": str(inp),
                "output_len": str(out),
                "scenario": name,
                "batch": batch,
                "concurrency": concurrency,
                "ttft_limit_ms": ttft,
                "tpot_limit_ms": tpot,
                "metric": metric,
                "statistic": "mean",
                "value": "1",
                "notes": notes,
                "date": "2026-06",
            }


def training_rows(
    gpus: dict[str, GpuSpec], model_ids: Iterable[str] = TRAINING_MODELS, share: float = 1.0, seed: int = 0
) -> Iterator[dict]:
    """The training grid's combinations (a random `share` of them) as case rows, one per metric."""
    combos = itertools.product(gpus, model_ids, METHODS, PRECISIONS, FRAMEWORKS, GPU_COUNTS, SEQ_LENS)
    for gpu_id, model_id, method, precision, framework, count, seq in _sampled(combos, share, seed):
        for metric in TRAINING_METRICS:
            yield {
                "case_id": f"grid-{gpu_id}-{model_id}-{method}-{precision}-{framework}-{count}-{seq}-{metric}",
                "source": "physics-grid",
                "framework": framework,
                "gpu": gpu_id,
                "gpu_count": str(count),
                "model": model_id,
                "method": method,
                "precision": precision,
                "seq_len": str(seq),
                "global_batch_seqs": str(max(count, 256) if method == "pretrain" else max(count, 64)),
                "metric": metric,
                "value": "1",
                "notes": "",
                "date": "2025-06",
            }


def _embedding_params(model: ModelSpec) -> float:
    return float(model.vocab_size * model.hidden_size)


def _inference_bounds(row: dict, gpu: GpuSpec, model: ModelSpec) -> dict[str, tuple[str, float, str]]:
    """metric -> (kind, bound, "max" or "min") for the row's conditions."""
    dtype = row["weight_dtype"]
    gpus = int(row["gpu_count"])
    inp, out = float(row["input_len"]), float(row["output_len"])
    peak = (_peak_tflops(gpu, MATMUL_WIDTHS[dtype]) or math.inf) * 1e12
    bandwidth = gpu.memory_bandwidth_tbs * 1e12 if gpu.memory_bandwidth_tbs else math.inf
    active = model.active_params_b * 1e9
    prefill_flops = 2 * max(active - 2 * _embedding_params(model), 0.1 * active)  # per prompt token
    decode_flops = 2 * max(active - _embedding_params(model), 0.1 * active)  # per output token, LM head included
    weight_read = max(active - _embedding_params(model), 0.1 * active) * WEIGHT_BITS[dtype]  # per decode step
    kvdt = row.get("kv_dtype") or default_kv_dtype(dtype, row["engine"])
    kv_token = kv_bytes_per_token(model, kvdt) * min(KV_BYTES.values()) / KV_BYTES[kvdt]
    kv_read = kv_token * kv_context_tokens(model, inp + out / 2)  # one sequence's mean context, per decode step
    scenario = row["scenario"]
    stated = {"single_stream": "1", "fixed_batch": row.get("batch"), "concurrency": row.get("concurrency")}
    batch = float(stated.get(scenario) or 0)
    b = batch or (gpus * gpu.memory_gb * 1e9 / max(kv_read, 1.0))  # unknown: what memory holds
    per_gpu_compute = peak * out / (inp * prefill_flops + out * decode_flops)
    per_gpu_bandwidth = b * bandwidth / (weight_read + b * kv_read)
    # b requests arriving together: the k-th first token waits for k prompts' FLOPs at best, (b + 1) / 2 on average
    arrived_together = float(row.get("batch") or 1) if scenario == "fixed_batch" else 1.0
    prompt_ms = inp * prefill_flops / (gpus * peak) * 1e3
    tpot_floor_ms = max(decode_flops / (gpus * peak), weight_read / (gpus * bandwidth)) * 1e3
    return {
        "output_tok_s_per_gpu": min(
            ("MFU > 1 (output tokens/s)", per_gpu_compute, "max"),
            ("MBU > 1 (output tokens/s)", per_gpu_bandwidth, "max"),
            key=lambda kbd: kbd[1],
        ),
        "ttft_ms": ("TTFT below compute floor", prompt_ms * (arrived_together + 1) / 2, "min"),
        "tpot_ms": ("TPOT below weight-read floor", tpot_floor_ms, "min"),
        "decode_tok_s": ("decode tokens/s above weight-read ceiling", 1e3 / tpot_floor_ms, "max"),
        "prefill_tok_s": ("prefill tokens/s above compute ceiling", gpus * peak / prefill_flops, "max"),
    }


def _training_bounds(row: dict, gpu: GpuSpec, model: ModelSpec) -> dict[str, tuple[str, float, str]]:
    precision = row["precision"]
    widths = {"fp8": ("fp8",), "fp4": ("fp8", "fp4")}.get(precision, ())
    peak = (_peak_tflops(gpu, widths) or math.inf) * 1e12
    flops = dense_flops_per_token(model, row["method"])
    # an empty batch is the validator's to assume: no floor then (it says which it assumed)
    tokens_per_step = float(row.get("global_batch_seqs") or 0) * float(row["seq_len"])
    gpus = int(row["gpu_count"])
    return {
        "tokens_s_per_gpu": ("MFU > 1 (training tokens/s)", peak / flops, "max"),
        "step_time_s": ("step faster than its FLOPs", tokens_per_step * flops / (gpus * peak), "min"),
        "mfu_pct": ("MFU > 100 %", 100.0, "max"),
    }


def check_prediction(row: dict, p: CasePrediction, bounds: dict[str, tuple[str, float, str]]) -> Violation | None:
    if not p.covered:
        return None if p.reason else Violation("uncovered without a reason", row, None, None)
    value = p.predicted
    if value is None or not math.isfinite(value) or value <= 0:
        return Violation("not finite or not positive", row, value, None, p.reason)
    kind, bound, side = bounds[row["metric"]]
    if side == "max" and value > bound * (1 + TOLERANCE):
        return Violation(kind, row, value, bound, p.reason)
    if side == "min" and value < bound * (1 - TOLERANCE):
        return Violation(kind, row, value, bound, p.reason)
    return None


def check_row(row: dict, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> tuple[bool, Violation | None]:
    """(covered, violation or None) for one synthetic row, inference or training by its columns."""
    training = "method" in row
    try:
        p = predict_training_case(row, gpus, models) if training else predict_inference_case(row, gpus, models)
    except Exception as error:  # noqa: BLE001 - the grid reports every exception as a violation
        return False, Violation("exception", row, None, None, f"{type(error).__name__}: {error}")
    gpu, model = gpus[row["gpu"]], models[row["model"]]
    bounds = _training_bounds(row, gpu, model) if training else _inference_bounds(row, gpu, model)
    return p.covered, check_prediction(row, p, bounds)
