"""Training FLOPs per token, peak selection, effective MFU, and step time for a layout.

Formulas: shared/research/training_estimators.md §1.1, §1.4, §6.2, §6.4. Pure functions.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace

from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.memory import Layout

FRAMEWORK_CLASS = {
    "megatron": "megatron",
    "megatron-lm": "megatron",
    "nemo": "megatron",
    "llm-foundry": "foundry",
    "torchtitan": "torchtitan",
    "hf": "hf",
    "pytorch": "pytorch",
}


def attention_flops_per_token(model: ModelSpec, seq_len: int) -> float:
    """Score and AV matmuls, fwd + bwd: 12 × layers × (heads × head_dim) × seq_len (PaLM/LLM Foundry)."""
    return 12.0 * model.layers * model.num_attention_heads * model.head_dim * seq_len


def dense_flops_per_token(model: ModelSpec, method: str) -> float:
    """k × active params: k = 6 for pretrain/full FT, 4 for LoRA/QLoRA (no weight gradients)."""
    k = 4.0 if method in ("lora", "qlora") else 6.0
    return k * model.active_params_b * 1e9


def model_flops_per_token(model: ModelSpec, method: str, seq_len: int) -> float:
    return dense_flops_per_token(model, method) + attention_flops_per_token(model, seq_len)


def gpu_family(gpu: GpuSpec) -> str:
    arch = gpu.architecture.lower()
    for key, family in (
        ("ampere", "ampere"),
        ("hopper", "hopper"),
        ("blackwell", "blackwell"),
        ("ada", "ada"),
        ("cdna", "cdna"),
    ):
        if key in arch:
            return family
    return "other"


def peak_tflops(gpu: GpuSpec, precision: str) -> tuple[float | None, str, str]:
    """(dense peak TFLOPS, precision class used, note). fp8 falls back to 16-bit where unsupported."""
    if precision == "fp8" and gpu.fp8_tflops:
        return gpu.fp8_tflops, "fp8", ""
    note = "no FP8 tensor cores: runs in BF16; " if precision == "fp8" else ""
    if gpu.bf16_tflops:
        return gpu.bf16_tflops, "16", note
    if gpu.fp16_tflops:
        return gpu.fp16_tflops, "16", note + "BF16 peak unknown: FP16 peak used"
    if gpu.fp32_tflops:
        return 2 * gpu.fp32_tflops, "16", note + "16-bit tensor peak unknown: 2 × FP32 used"
    return None, "16", note + "no published compute peak"


def fill_missing_peaks(gpu: GpuSpec, gpus: dict[str, GpuSpec]) -> tuple[GpuSpec, str]:
    """A GPU without published peaks borrows the median peaks of GPUs of the same architecture."""
    if gpu.bf16_tflops or gpu.fp16_tflops or gpu.fp32_tflops:
        return gpu, ""
    siblings = [g for g in gpus.values() if g.architecture == gpu.architecture and g.bf16_tflops]
    if not siblings:
        return gpu, ""
    filled = replace(
        gpu,
        fp32_tflops=_median_peak(siblings, lambda g: g.fp32_tflops),
        tf32_tflops=_median_peak(siblings, lambda g: g.tf32_tflops),
        bf16_tflops=_median_peak(siblings, lambda g: g.bf16_tflops),
        fp16_tflops=_median_peak(siblings, lambda g: g.fp16_tflops),
        fp8_tflops=_median_peak(siblings, lambda g: g.fp8_tflops),
    )
    return filled, f"peaks unknown: median of {len(siblings)} {gpu.architecture} GPUs used"


def _median_peak(siblings: list[GpuSpec], peak: Callable[[GpuSpec], float | None]) -> float | None:
    """Lower median of one peak over the siblings (unknown counted as 0); None when that median is 0."""
    return statistics.median_low([peak(g) or 0.0 for g in siblings]) or None


def base_mfu(e: TrainingEfficiency, family: str, precision_class: str) -> float:
    return getattr(e, f"mfu_{family}_{precision_class}", None) or getattr(e, f"mfu_other_{precision_class}")


def framework_factor(e: TrainingEfficiency, framework: str, precision_class: str) -> float:
    cls = FRAMEWORK_CLASS.get(framework, "auto")
    if cls in ("torchtitan", "foundry") and precision_class == "fp8":
        return getattr(e, f"fw_{cls}_fp8")
    if cls == "torchtitan":
        return e.fw_torchtitan_16
    return getattr(e, f"fw_{cls}")


def width_factor(e: TrainingEfficiency, hidden: int) -> float:
    return 1.0 / (1.0 + (e.width_half_hidden / hidden) ** e.width_exponent)


def scale_factor(e: TrainingEfficiency, gpu_count: int) -> float:
    if gpu_count <= 256:
        return 1.0
    return e.scale_factor_2k if gpu_count <= 2048 else e.scale_factor_big


def method_factor(e: TrainingEfficiency, method: str) -> float:
    return {"lora": e.lora_factor, "qlora": e.lora_factor * e.qlora_factor}.get(method, 1.0)


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by part; mfu_eff is the compute-phase efficiency used."""

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    mfu_eff: float

    @property
    def total_s(self) -> float:
        return self.compute_s + self.bubble_s + self.tp_comm_s + self.dp_comm_s


def _bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, group_gpus: int) -> float:
    """Per-GPU collective bandwidth (one direction): scale-up link, scale-out NIC, or PCIe."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        if group_gpus <= gpu.scaleup_domain_gpus:
            return gpu.interconnect_gbs / 2 * e.nvlink_efficiency
        return e.scaleout_gbs_per_gpu
    return e.pcie_gbs_per_gpu


def _dp_comm_bytes(model: ModelSpec, method: str, layout: Layout, dp: int, adapters: float) -> float:
    """Per-GPU gradient (and ZeRO-3 parameter) traffic per step, ring all-reduce volume."""
    if dp <= 1:
        return 0.0
    split = layout.tensor_parallel * layout.pipeline_parallel
    ring = (dp - 1) / dp
    full = method in ("pretrain", "full_ft")
    grads = 2.0 * (model.params_b * 1e9 if full else adapters) / split
    volume = 2 * ring * grads  # reduce-scatter + all-gather of bf16 grads
    if layout.zero_stage >= 3:
        base = 2.0 * model.params_b * 1e9 / split if (full or method == "lora") else 0.0
        volume += 2 * ring * base * (0.5 if full else 1.0)  # param all-gathers fwd + bwd (1.5× DP total)
    return volume


def effective_mfu(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    precision_class: str,
) -> float:
    """Compute-phase MFU: family × precision × framework × width × scale × method (× MoE), at most 1."""
    mfu = (
        base_mfu(e, gpu_family(gpu), precision_class)
        * framework_factor(e, framework, precision_class)
        * width_factor(e, model.hidden_size)
        * scale_factor(e, gpu_count)
        * method_factor(e, method)
        * (e.moe_factor if model.is_moe else 1.0)
    )
    return min(mfu, 1.0)


def compute_seconds(
    e: TrainingEfficiency,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    seq_len: int,
    global_batch_seqs: int,
    recompute: str,
    peak: float,
    mfu: float,
) -> float:
    """Compute phase of one step: tokens per GPU × FLOPs per token (with recompute) at the effective MFU."""
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    n_active = model.active_params_b * 1e9
    extra = {"selective": e.selective_recompute_flops_per_param, "full": e.full_recompute_flops_per_param}
    dense = dense_flops_per_token(model, method) + extra.get(recompute, 0.0) * n_active
    attn = attention_flops_per_token(model, seq_len) * (4 / 3 if recompute == "full" else 1.0)
    return tokens_per_gpu * (dense + attn / e.attn_efficiency) / (peak * 1e12 * mfu)


def step_time(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    seq_len: int,
    global_batch_seqs: int,
    layout: Layout,
    peak: float,
    precision_class: str,
    adapters: float,
    mfu: float | None = None,
    compute_s: float | None = None,
) -> StepTime:
    """Compute at effective MFU, plus PP bubble, exposed TP and DP/FSDP communication.

    `mfu` (effective_mfu) and `compute_s` (compute_seconds) do not depend on the parallel split; a
    search over layouts may pass them in rather than have them recomputed.
    """
    return StepTime(
        *step_parts(
            e,
            gpu,
            gpu_count,
            model,
            method,
            framework,
            seq_len,
            global_batch_seqs,
            layout,
            peak,
            precision_class,
            adapters,
            mfu,
            compute_s,
        )
    )


def step_parts(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    seq_len: int,
    global_batch_seqs: int,
    layout: Layout,
    peak: float,
    precision_class: str,
    adapters: float,
    mfu: float | None = None,
    compute_s: float | None = None,
) -> tuple[float, float, float, float, float]:
    """step_time's fields as a plain tuple (compute, bubble, TP, DP seconds, MFU), for sweeps."""
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    if mfu is None:
        mfu = effective_mfu(e, gpu, gpu_count, model, method, framework, precision_class)
    compute = compute_s
    if compute is None:
        compute = compute_seconds(e, gpu_count, model, method, seq_len, global_batch_seqs, layout.recompute, peak, mfu)
    tp, pp, dp = layout.tensor_parallel, layout.pipeline_parallel, layout.data_parallel(gpu_count)
    bubble = 0.0
    if pp > 1:
        micro_batches = max(1.0, global_batch_seqs / (dp * layout.micro_batch_seqs))
        chunks = layout.pipeline_interleave or e.pp_interleave_default
        bubble = compute * (pp - 1) / (chunks * micro_batches)
    tp_comm = 0.0
    if tp > 1:
        per_token = model.layers * 16.0 * model.hidden_size * (tp - 1) / tp  # 4 all-reduces × 2·h bytes × ring 2(t-1)/t
        tp_comm = e.tp_comm_exposed * tokens_per_gpu * tp * per_token / (_bandwidth_gbs(e, gpu, tp) * 1e9)
    dp_bytes = _dp_comm_bytes(model, method, layout, dp, adapters)
    dp_raw = dp_bytes / (_bandwidth_gbs(e, gpu, gpu_count) * 1e9)
    dp_comm = max(0.0, dp_raw - e.dp_overlap * compute)
    return compute, bubble, tp_comm, dp_comm, mfu
