"""The estimator's kernel terms against kernels timed on a real GPU (benchmarks/device/gpu_kernels.py).

A check of the physics underneath the fit, not a validation case. The script times cuBLAS GEMMs, decode
attention (PyTorch's FlashAttention-2 and cuDNN), routed experts (a CUTLASS grouped GEMM and one cuBLAS pair
per expert; as served: TP/EP shards, bf16 and FP8), whole decode steps captured in a CUDA graph and eager
prefill, with no serving engine around them. So no host-side scheduling is in the measured times, except in
one row kind: an eager MoE layer minus the same layer graphed, the host's exposed time.

Each measurement is set beside the estimator's own term for the same work:
- the committed constants, at TensorRT-LLM's engine factor (1.0: no engine discount);
- for a whole step, its kernel terms plus the per-layer launch cost. The per-step and per-sequence host
  costs are left out, because a graph replay has no scheduler.

The measured model is Llama-3.1-8B-shaped with random weights, no RoPE and an untied LM head. The
catalog's 8.03 B parameters include the 0.53 B embedding table, which a decode step gathers rows from
rather than streams, so the estimate streams ~7 % more bytes than the kernels read.
"""

from __future__ import annotations

import json
import statistics
import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.config import PROJECT_ROOT
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.efficiency_factors import mbu, mfu
from app.scoring.inference.step.steps import forward_parts, prefill_attention_flops, prefill_parts, roofline_ms
from app.scoring.specs import GpuSpec, ModelSpec

MEASUREMENTS_DIR = PROJECT_ROOT / "docs" / "measurements"
DENSE_MODEL = "llama-3.1-8b"
MOE_MODELS = {  # the script's MoE shape names -> catalog ids
    name: name for name in ("mixtral-8x7b", "qwen3-30b-a3b", "deepseek-r1", "gpt-oss-120b")
}
GPU_IDS = {"NVIDIA H200": "H200", "NVIDIA H100 80GB HBM3": "H100-SXM"}  # torch's device name -> catalog id
BYTES = {"bf16": 2, "fp8": 1, "fp8+quant": 1}
# A whole MoE layer run eagerly minus the same layer replayed from a CUDA graph: the host's time. Below this the
# difference is within run-to-run noise and is not set beside the estimator's per-layer prefill host cost.
MIN_HOST_MS = 0.02


@dataclass(frozen=True, slots=True)
class KernelCheck:
    """One timed kernel (or step) beside the estimator's time for it."""

    kind: str  # gemm, attention_decode, moe, moe_served, moe_layer, decode, prefill, mixed, train_step, ...
    label: str
    measured: float
    estimated: float
    constants: str  # what the estimate rests on
    unit: str = "ms"  # train_memory: GB

    @property
    def ratio(self) -> float:
        """Estimated / measured: above 1 the estimator expects more time (or memory) than was measured."""
        return self.estimated / self.measured


def _context(gpu: GpuSpec, model: ModelSpec, weight_dtype: str) -> InferenceContext:
    return build_context(gpu, model, "fp8" if weight_dtype.startswith("fp8") else "bf16", "bf16", "trtllm", 1)


def gemm_ms(ctx: InferenceContext, eff: InferenceEfficiency, m: int, n: int, k: int, weight_bytes: int) -> float:
    """One dense GEMM as the estimator times it: weights at peak x MBU, FLOPs at peak x MFU, soft roofline."""
    memory = n * k * weight_bytes / (ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff)) * 1e3
    compute = 2 * m * n * k / (ctx.peak_tflops * 1e12 * mfu(ctx, eff)) * 1e3
    return roofline_ms(memory, compute, eff.overlap_power)


def attention_ms(ctx: InferenceContext, eff: InferenceEfficiency, model: ModelSpec, batch: int, context: int) -> float:
    """One layer's decode attention: the KV read at MBU x kv_mbu_factor against QK^T and AV FLOPs."""
    kv = 2 * batch * context * model.num_kv_heads * model.head_dim * 2
    flops = 4 * batch * model.num_attention_heads * model.head_dim * context
    memory = kv / (ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff) * eff.kv_mbu_factor) * 1e3
    compute = flops / (ctx.peak_tflops * 1e12 * mfu(ctx, eff)) * 1e3
    return roofline_ms(memory, compute, eff.overlap_power)


def moe_ms(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    model: ModelSpec,
    tokens: int,
    touched: int,
    split: tuple[int, int] = (1, 1),
    weight_bytes: int = 2,
) -> float:
    """One MoE layer's routed experts (gate/up + down) as forward_parts prices them: the touched experts' bytes
    at MBU (no TP penalty) x moe_mbu_factor, the routed FLOPs at the MoE MFU. `split` = (tensor parallel, expert
    parallel): each expert's shard is 1/TP of it; with EP a token's k experts land k/EP on this GPU on average."""
    tp, ep = split
    expert_params = 3 * model.hidden_size * (model.moe_intermediate_size or model.intermediate_size) / tp
    touched_bytes = touched * expert_params * weight_bytes
    flops = 2 * tokens * model.experts_per_token / ep * expert_params
    bandwidth = ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff, tp_penalty=False) * eff.moe_mbu_factor
    compute = flops / (ctx.peak_tflops * 1e12 * mfu(ctx, eff)) * 1e3
    return roofline_ms(touched_bytes / bandwidth * 1e3, compute, eff.overlap_power)


def served_split(name: str) -> tuple[str, tuple[int, int]]:
    """'deepseek-r1/tp8' -> ('deepseek-r1', (8, 1)); 'deepseek-r1/ep8' -> ('deepseek-r1', (1, 8))."""
    model, _, layout = name.partition("/")
    degree = int(layout[2:] or 1)
    return model, ((degree, 1) if layout.startswith("tp") else (1, degree))


def _kernel_terms_ms(ctx: InferenceContext, eff: InferenceEfficiency, parts: Any) -> float:
    """A graph-captured step: the kernels plus the per-layer launch cost (no per-step or per-sequence host work)."""
    return parts.busy_ms + parts.comm_ms + ctx.layers_per_stage * eff.layer_overhead_ms


def mixed_step_ms(ctx: InferenceContext, eff: InferenceEfficiency, batch: int, context: int, prompt: int) -> float:
    """Kernel terms of one pass over `batch` decoding sequences plus one `prompt`-token prompt stacked under them:
    forward_parts as the continuous-batching steady state prices it (steps.mixed_step_parts), for one prompt."""
    attention = prefill_attention_flops(ctx, 1, prompt) if prompt else 0.0
    requests = 1.0 if prompt else 0.0
    parts = forward_parts(ctx, eff, batch, context, prompt, attention, 1.0, requests, requests)
    return _kernel_terms_ms(ctx, eff, parts)


def mixed_label(row: dict) -> str:
    """'batch 64 x context 1024 + a 512-token prompt'; either part alone said so."""
    batch = f"batch {row['batch']} x context {row['context']}"
    prompt = f"a {row['prompt_tokens']}-token prompt"
    if not row["prompt_tokens"]:
        return f"{batch} decoding alone"
    return f"{batch} + {prompt}" if row["batch"] else f"{prompt} alone"


def marginal_checks(rows: list[dict], gpu: GpuSpec, models: dict[str, ModelSpec], eff: InferenceEfficiency) -> list:
    """A prompt's cost inside a mixed step (mixed minus the same batch decoding alone), measured and estimated:
    its share of the step is the utilisation of the M/D/1 prefill queue behind TTFT under load
    (queueing.prefill_share_of_step)."""
    timed = [r for r in rows if r["kind"] == "mixed" and "error" not in r]
    alone = {(r["batch"], r["context"]): r["ms"] for r in timed if not r["prompt_tokens"]}
    ctx = _context(gpu, models[DENSE_MODEL], "bf16")
    checks = []
    for r in timed:
        decode_ms = alone.get((r["batch"], r["context"]))
        if not (r["batch"] and r["prompt_tokens"]) or decode_ms is None or r["ms"] <= decode_ms:
            continue
        estimated = mixed_step_ms(ctx, eff, r["batch"], r["context"], r["prompt_tokens"])
        estimated_alone = mixed_step_ms(ctx, eff, r["batch"], r["context"], 0)
        measured = r["ms"] - decode_ms
        label = (
            f"{r['prompt_tokens']}-token prompt beside batch {r['batch']} x context {r['context']}: "
            f"{measured / r['ms']:.0%} of the step measured, {1 - estimated_alone / estimated:.0%} estimated"
        )
        checks.append(KernelCheck("mixed_marginal", label, measured, estimated - estimated_alone, "prefill share"))
    return checks


def kind_of(row: dict) -> str:
    """The row's kind, with each variant apart:
    - FP8 steps and FP8 GEMMs behind the script's own activation quantisation: the script quantises activations in
      separate kernels (amax, scale, cast), which engines fuse into the norm or activation before the matmul, so
      those rows time the script, not the floor an engine reaches;
    - attention through cuDNN rather than the default backend (PyTorch's FlashAttention-2);
    - routed experts as one cuBLAS GEMM pair per touched expert rather than one grouped GEMM;
    - routed experts as served (TP or EP shards), per implementation: bf16 or FP8 grouped GEMMs, FP8 per expert
      (both FP8 ones quantise activations per token in separate kernels, as the script's FP8 GEMMs do)."""
    if row["kind"] in ("decode", "prefill") and row.get("weights") == "fp8" or row.get("dtype") == "fp8+quant":
        return f"{row['kind']}_unfused_fp8"
    if "CUDNN" in row.get("backend", ""):
        return f"{row['kind']}_cudnn"
    if row.get("impl") == "cublas_per_expert":
        return "moe_cublas_per_expert"
    if row["kind"] == "moe_served":
        return f"moe_served_{row['impl']}"
    return row["kind"]


def _check(row: dict, gpu: GpuSpec, models: dict[str, ModelSpec], eff: InferenceEfficiency) -> KernelCheck | None:
    kind = kind_of(row)
    dense = models[DENSE_MODEL]
    if row["kind"] == "gemm":
        ctx = _context(gpu, dense, row["dtype"])
        estimate = gemm_ms(ctx, eff, row["m"], row["n"], row["k"], BYTES[row["dtype"]])
        label = f"{row['layer']} {row['n']}x{row['k']} {row['dtype']}, M={row['m']}"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu, mfu_max, fp8_mfu_factor, overlap_power")
    if row["kind"] == "attention_decode":
        ctx = _context(gpu, dense, "bf16")
        estimate = attention_ms(ctx, eff, dense, row["batch"], row["context"])
        label = f"batch {row['batch']} x context {row['context']}"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu x kv_mbu_factor")
    if row["kind"] == "moe" and row.get("model") in MOE_MODELS:
        model = models[MOE_MODELS[row["model"]]]
        ctx = _context(gpu, model, "bf16")
        estimate = moe_ms(ctx, eff, model, row["tokens"], row["experts_touched"])
        label = f"{model.name}, {row['tokens']} tokens ({row['experts_touched']} experts touched)"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu x moe_mbu_factor, moe_mfu_factor")
    if row["kind"] == "moe_served" and served_split(row["model"])[0] in MOE_MODELS:
        name, split = served_split(row["model"])
        model = models[MOE_MODELS[name]]
        dtype = row["impl"].split("_")[0]
        ctx = _context(gpu, model, dtype)
        estimate = moe_ms(ctx, eff, model, row["tokens"], row["experts_touched"], split, BYTES[dtype])
        label = f"{model.name} {row['model'].partition('/')[2].upper()}, {row['tokens']} tokens"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu x moe_mbu_factor, moe_mfu_factor")
    if row["kind"] == "moe_layer" and row["host_ms"] >= MIN_HOST_MS:
        label = (
            f"{row['model']}, {row['tokens']} tokens: eager {row['eager_ms']:.3g} ms, graph {row['graph_ms']:.3g} ms"
        )
        return KernelCheck(kind, label, row["host_ms"], eff.moe_prefill_layer_ms, "moe_prefill_layer_ms")
    if row["kind"] == "decode":
        ctx = _context(gpu, dense, row["weights"])
        parts = forward_parts(ctx, eff, row["batch"], row["context"])
        label = f"{row['weights']} weights, batch {row['batch']} x context {row['context']}"
        return KernelCheck(kind, label, row["ms"], _kernel_terms_ms(ctx, eff, parts), "all kernel terms")
    if row["kind"] == "mixed":
        ctx = _context(gpu, dense, row["weights"])
        estimate = mixed_step_ms(ctx, eff, row["batch"], row["context"], row["prompt_tokens"])
        return KernelCheck(kind, mixed_label(row), row["ms"], estimate, "all kernel terms over the stacked rows")
    if row["kind"] == "prefill":
        ctx = _context(gpu, dense, row["weights"])
        parts = prefill_parts(ctx, eff, 1, row["input_len"])
        label = f"{row['weights']} weights, {row['input_len']} tokens"
        return KernelCheck(kind, label, row["ms"], _kernel_terms_ms(ctx, eff, parts), "mfu_max, fp8_mfu_factor")
    return None


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
    "in bytes (the catalog's 141 GB H200 holds 149 x 10^9)",
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
        "TFLOPS count the executed causal FLOPs (backward 2.5x forward). Estimate = the attention term of the "
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
