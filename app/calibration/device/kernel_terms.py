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

device_check.py reads a recorded run and sets each row beside the term computed here (`_check`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.efficiency_factors import mbu, mfu
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.inference.step.steps import forward_parts, prefill_attention_flops, roofline_ms
from app.scoring.specs import GpuSpec, ModelSpec

DENSE_MODEL = "llama-3.1-8b"
MOE_MODELS = {  # the script's MoE shape names -> catalog ids
    name: name for name in ("mixtral-8x7b", "qwen3-30b-a3b", "deepseek-r1", "gpt-oss-120b")
}
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
    """'batch 64 × context 1024 + a 512-token prompt'; either part alone said so."""
    batch = f"batch {row['batch']} × context {row['context']}"
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
            f"{r['prompt_tokens']}-token prompt beside batch {r['batch']} × context {r['context']}: "
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
        label = f"batch {row['batch']} × context {row['context']}"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu × kv_mbu_factor")
    if row["kind"] == "moe" and row.get("model") in MOE_MODELS:
        model = models[MOE_MODELS[row["model"]]]
        ctx = _context(gpu, model, "bf16")
        estimate = moe_ms(ctx, eff, model, row["tokens"], row["experts_touched"])
        label = f"{model.name}, {row['tokens']} tokens ({row['experts_touched']} experts touched)"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu × moe_mbu_factor, moe_mfu_factor")
    if row["kind"] == "moe_served" and served_split(row["model"])[0] in MOE_MODELS:
        name, split = served_split(row["model"])
        model = models[MOE_MODELS[name]]
        dtype = row["impl"].split("_")[0]
        ctx = _context(gpu, model, dtype)
        estimate = moe_ms(ctx, eff, model, row["tokens"], row["experts_touched"], split, BYTES[dtype])
        label = f"{model.name} {row['model'].partition('/')[2].upper()}, {row['tokens']} tokens"
        return KernelCheck(kind, label, row["ms"], estimate, "decode_mbu × moe_mbu_factor, moe_mfu_factor")
    if row["kind"] == "moe_layer" and row["host_ms"] >= MIN_HOST_MS:
        label = (
            f"{row['model']}, {row['tokens']} tokens: eager {row['eager_ms']:.3g} ms, graph {row['graph_ms']:.3g} ms"
        )
        return KernelCheck(kind, label, row["host_ms"], eff.moe_prefill_layer_ms, "moe_prefill_layer_ms")
    if row["kind"] == "decode":
        ctx = _context(gpu, dense, row["weights"])
        parts = forward_parts(ctx, eff, row["batch"], row["context"])
        label = f"{row['weights']} weights, batch {row['batch']} × context {row['context']}"
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
