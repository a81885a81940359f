"""A GPU run recorded under docs/measurements checked against the estimator (`gpumatch device-check`, and the
last section of docs/ACCURACY.md): each row beside its estimate, summarised per kind of work, as JSON or markdown.

The kernel terms are kernel_terms.py's (benchmarks/device/gpu_kernels.py, mixed_steps.py); training steps and
attention are device_training.py's (benchmarks/device/train_step.py). A check of the physics underneath the fit,
not a validation case.
"""

from __future__ import annotations

import json
import statistics
import textwrap
from dataclasses import asdict
from pathlib import Path

from app.calibration.device.kernel_terms import _check, marginal_checks
from app.config import PROJECT_ROOT
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.specs import GpuSpec, ModelSpec

MEASUREMENTS_DIR = PROJECT_ROOT / "docs" / "measurements"
GPU_IDS = {"NVIDIA H200": "H200", "NVIDIA H100 80GB HBM3": "H100-SXM"}  # torch's device name -> catalog id


def check_measurements(
    data: dict, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec], eff: InferenceEfficiency = DEFAULT_EFFICIENCY
) -> dict:
    """Every measured row of one run beside its estimate, and per kind the median and range of estimate/measured."""
    gpu_name = data["env"].get("gpu", "")
    gpu = gpus.get(GPU_IDS.get(gpu_name, gpu_name))
    if gpu is None:
        raise ValueError(f"GPU {gpu_name!r} is not in the catalog")
    from app.calibration.device.device_training import attention_check, training_checks  # they build on KernelCheck

    checks = []
    for row in data["rows"]:
        if "error" in row or ("ms" not in row and "host_ms" not in row):
            continue
        if row["kind"] == "train_step":
            checks += training_checks(row, gpu, gpus, models)
            continue
        if row["kind"] == "train_attention":
            checks += [c for c in (attention_check(row, gpu, models),) if c is not None]
            continue
        check = _check(row, gpu, models, eff)
        if check is not None:
            checks.append(check)
    checks += marginal_checks(data["rows"], gpu, models, eff)
    summary = {}
    for kind in dict.fromkeys(c.kind for c in checks):
        ratios = [c.ratio for c in checks if c.kind == kind]
        summary[kind] = {
            "rows": len(ratios),
            "median": statistics.median(ratios),
            "low": min(ratios),
            "high": max(ratios),
        }
    return {"gpu": gpu.id, "env": data["env"], "checks": checks, "summary": summary}


def load(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


KIND_TITLES = {
    "gemm": "Dense GEMMs (cuBLAS through PyTorch; fp8: `torch._scaled_mm` on FP8 activations)",
    "attention_decode": "Decode attention, one layer (PyTorch FlashAttention-2, GQA 32/8, bf16 KV)",
    "moe": "Routed experts, one layer (`torch._grouped_mm`, CUTLASS grouped GEMM, uniform top-k routing)",
    "moe_cublas_per_expert": "Routed experts, one layer, one cuBLAS GEMM pair per touched expert (in a CUDA graph)",
    "moe_served_bf16_grouped_mm": "Routed experts as served (R1 TP8/EP8, Qwen3, gpt-oss, Mixtral TP2), bf16 grouped",
    "moe_served_fp8_grouped_mm": "The same, FP8 grouped GEMM (`torch._scaled_grouped_mm`, per-token scales, unfused)",
    "moe_served_fp8_per_expert": "The same, one FP8 `torch._scaled_mm` pair per touched expert (rowwise scales)",
    "moe_layer": "Exposed host time of one MoE layer run eagerly (router, sort, grouped GEMMs; no host sync)",
    "attention_decode_cudnn": "Decode attention, one layer, through cuDNN 9's SDPA (Hopper-native kernels)",
    "prefill_cudnn": "Prefill of one prompt (eager PyTorch, causal attention through cuDNN 9)",
    "decode": "Whole decode steps (32 layers + LM head, one CUDA graph)",
    "prefill": "Prefill of one prompt (eager PyTorch, causal FlashAttention-2)",
    "gemm_unfused_fp8": "FP8 GEMMs behind the script's unfused activation quantisation (amax, scale, cast)",
    "decode_unfused_fp8": "FP8 decode steps, with that unfused quantisation at every matmul",
    "prefill_unfused_fp8": "FP8 prefill, with that unfused quantisation at every matmul",
    "mixed": "Mixed steps: a decode batch and one prompt in one pass (32 layers + LM head, one CUDA graph, cuDNN)",
    "mixed_marginal": "The prompt's cost inside a mixed step (mixed minus the batch decoding alone)",
    "train_step": "Training steps, one GPU (eager PyTorch, AMP bf16, fused AdamW; estimate: framework pytorch)",
    "train_memory": "Peak memory allocated by those steps (GB; estimate: the layout's memory need)",
    "train_card_memory": "Card memory those steps took (reserved peak + context) against what the fit rule asks, "
    "in bytes (the catalog's 141 GB H200 holds 149 × 10^9)",
    "train_attention_cudnn": "One layer's causal attention, forward + backward, through cuDNN 9 (Hopper-native)",
    "train_attention": "The same through PyTorch's default (FlashAttention-2)",
}


SECTION_INTRO = """## Own measurements on a GPU: the estimator's kernel terms against timed kernels

Not validation cases and not in the fit: a check of the physics under it. `benchmarks/device/gpu_kernels.py` times
cuBLAS GEMMs, decode attention, grouped expert GEMMs, whole decode steps in a CUDA graph and eager prefill of a
Llama-3.1-8B-shaped model with random weights on a lent GPU; `mixed_steps.py` times a decode batch and a prompt in
one pass (the steps of serving under load), and `train_step.py` whole training steps and their peak memory.
`gpumatch device-check` sets each beside the estimator's term for the same work (app/calibration/device/device_check.py,
device_training.py). A ratio below 1 means the estimator expects the work faster (or smaller) than it ran. PyTorch's
kernels are not every engine's (TensorRT-LLM, vLLM and SGLang ship their own attention and MoE kernels), so a ratio is
evidence about a constant, not a verdict on it; docs/measurements/README.md says what each run found and what the
estimator took from it.
"""


def as_json(result: dict) -> dict:
    """The result with each check as a dict (ratio included)."""
    checks = [{**asdict(c), "ratio": c.ratio} for c in result["checks"]]
    return {**result, "checks": checks}


def _smi(reading: str | None) -> str:
    """The script's `nvidia-smi` reading (name, driver, SM clock, its max, memory clock, power limit, °C), labelled."""
    fields = [f.strip() for f in (reading or "").split(",")]
    if len(fields) != 7:
        return reading or "not read"
    _, driver, sm, sm_max, memory, power, celsius = fields
    return f"SM {sm} of {sm_max}, memory {memory}, {power} limit, {celsius} °C, driver {driver}"


SCRIPT_CONDITIONS = {  # the run's script, by its rows' kinds -> how it timed them and what the estimate is
    "train_attention_cudnn": (
        "benchmarks/device/train_step.py --only attention",
        "Each time is the median of 5 eager forward + backward passes after 2 warm-up passes, with CUDA events; "
        "TFLOPS count the executed causal FLOPs (backward 2.5× forward). Estimate = the attention term of the "
        "training estimator's compute time for one layer, at the step's MFU for framework pytorch "
        "(app/calibration/device/device_training.py). Ratio = estimate / measured.",
    ),
    "train_step": (
        "benchmarks/device/train_step.py",
        "Each time is the median of timed optimizer steps after warm-up steps, with CUDA events, run eagerly; memory "
        "is the peak PyTorch allocated. Estimate = the training estimator's step time and its layout's memory need "
        "(runtime reserve left out) for the same run, read as a validation row of framework pytorch on one GPU "
        "(app/calibration/device/device_training.py). Ratio = estimate / measured.",
    ),
    "mixed": (
        "benchmarks/device/mixed_steps.py",
        "Each time is the median of timed repeats of one CUDA graph after warm-up, with CUDA events. Estimate = the "
        "committed constants' kernel terms for the same pass at TensorRT-LLM's engine factor, plus the per-layer "
        "cost, without the per-step host cost (app/calibration/device/device_check.py). Ratio = estimate / measured.",
    ),
}
KERNEL_CONDITIONS = (
    "benchmarks/device/gpu_kernels.py",
    "Each time is the median of timed repeats after warm-up, with CUDA events; the kernels replay from CUDA graphs, "
    "except prefill. Estimate = the committed constants' term for the same work at TensorRT-LLM's engine factor. "
    "For whole steps it is the kernel terms plus the per-layer cost, without the per-step host cost "
    "(app/calibration/device/device_check.py). Ratio = estimate / measured.",
)


def script_conditions(result: dict) -> tuple[str, str]:
    """(script, how it timed and what the estimate is) for the run, from the kinds of its rows."""
    kinds = {c.kind for c in result["checks"]}
    return next((v for k, v in SCRIPT_CONDITIONS.items() if k in kinds), KERNEL_CONDITIONS)


def markdown(result: dict, source: str) -> str:
    """The run's conditions, a per-kind summary and every row, as markdown."""
    env = result["env"]
    script, method = script_conditions(result)
    conditions = (
        f"Measured with `{script}` on one {env.get('gpu')} "
        f"({env.get('sm_count')} SMs; before the run {_smi(env.get('nvidia_smi'))}; "
        f"after it {_smi(env.get('after'))}), "
        f"torch {env.get('torch')}, attention backend {env.get('sdpa_backend') or 'per row'}. {method}"
    )
    lines = [
        f"### {env.get('gpu', '?')}: {source}",
        "",
        textwrap.fill(conditions, width=116, break_on_hyphens=False),
        "",
        "| kernels | rows | median ratio | range |",
        "|---|---|---|---|",
    ]
    for kind, s in result["summary"].items():
        lines.append(
            f"| {KIND_TITLES.get(kind, kind)} | {s['rows']} | {s['median']:.2f} | {s['low']:.2f}-{s['high']:.2f} |"
        )
    lines += ["", "<details><summary>Every row</summary>", ""]
    lines += ["| kind | work | measured | estimated | ratio |", "|---|---|---|---|---|"]
    for c in result["checks"]:
        lines.append(
            f"| {c.kind} | {c.label} | {c.measured:.4g} {c.unit} | {c.estimated:.4g} {c.unit} | {c.ratio:.2f} |"
        )
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def measurement_files(folder: Path = MEASUREMENTS_DIR) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []
