"""Training FLOPs per token, peak selection, effective MFU, and step time for a layout.

Formulas: shared/research/training_estimators.md §1.1, §1.4, §6.2, §6.4. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.efficiency.training import BYTES_QLORA_BASE, TrainingEfficiency
from app.scoring.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.specs import GpuSpec, ModelSpec, is_gddr
from app.scoring.training.memory import Layout, layer_mean_ffn_width
from app.scoring.training.optimizer import DEFAULT_RECIPE, StateRecipe, offload_time, state_recipe

if TYPE_CHECKING:
    from app.scoring.workload import TrainingWorkload

# Stacks that split a job by data parallelism only (DeepSpeed ZeRO / FSDP sharding, optionally DeepSpeed-Ulysses
# sequence parallelism), without Megatron tensor or pipeline parallelism: HF Trainer / Accelerate and the
# fine-tuning stacks built on DeepSpeed (LLaMA-Factory, XTuner, axolotl).
DATA_PARALLEL_ONLY = frozenset({"hf"})

FRAMEWORK_CLASS = {
    "megatron": "megatron",
    "megatron-lm": "megatron",
    "nemo": "megatron",
    "llm-foundry": "foundry",
    "torchtitan": "torchtitan",
    "hf": "hf",
    "pytorch": "pytorch",
}


# Executed share of the score/AV FLOPs under a causal mask: flash attention skips the masked upper triangle
# (FlashAttention-2 paper §4: causal FLOPs are half the full count). Model-FLOPs conventions (MFU) keep 12·L·h·s.
CAUSAL_SHARE = 0.5


def value_head_dim(model: ModelSpec) -> int:
    """Width of one head's values. MLA's query/key heads are qk_nope + qk_rope wide (the catalog's head_dim, 192 on
    DeepSeek-V3) and its values qk_nope (128): v_head_dim = qk_nope_head_dim in the DeepSeek-V2/V3 and Kimi-K2
    configs, and hf_config's default where a config omits it. Other attention: head_dim."""
    if model.attention == "mla" and 0 < model.qk_rope_head_dim < model.head_dim:
        return model.head_dim - model.qk_rope_head_dim
    return model.head_dim


def attention_flops_per_token(model: ModelSpec, seq_len: int) -> float:
    """Score (QK^T, head_dim wide) and AV (value_head_dim wide) matmuls, fwd + bwd: 6 × layers × heads × (head_dim +
    value width) × seq_len; 12 × layers × (heads × head_dim) × seq_len where the two match (PaLM/LLM Foundry)."""
    width = model.head_dim + value_head_dim(model)
    return 6.0 * model.layers * model.num_attention_heads * width * seq_len


def dense_flops_per_token(model: ModelSpec, method: str) -> float:
    """k × active params: k = 6 for pretrain/full FT, 4 for LoRA/QLoRA (no weight gradients)."""
    k = 4.0 if method in ("lora", "qlora") else 6.0
    return k * model.active_params_b * 1e9


def routed_expert_params(model: ModelSpec) -> float:
    """Routed-expert weights one token passes through: MoE layers × top-k × 3 matrices × hidden × expert width
    (SwiGLU experts; DeepSeek-V3's first 3 dense layers and Llama 4 Maverick's every other are not MoE layers),
    at most the active parameters."""
    if not model.is_moe:
        return 0.0
    routed = model.moe_layers * model.experts_per_token * 3.0 * model.hidden_size * model.moe_intermediate_size
    return min(routed, model.active_params_b * 1e9)


def op_sac_recomputed_share(model: ModelSpec) -> float:
    """Share of a block's matmul weights that torchtitan's op-level SAC runs again in the backward pass.

    Its policy saves the output of every compute op except every second matmul of a block (torchtitan
    `_apply_ac_to_transformer_block`, mode "selective", option "op"): in call order q, k, v, o, gate, up, down
    that is k, o and the FFN's second projection (Llama-3-8B: 0.37 of the block's weights). Routed experts
    count as one FFN of top-k × their width on the MoE layers, a dense layer's as its own, averaged over the layers
    (an approximation: no torchtitan MoE row is in the validation file).
    """
    h, attention = model.hidden_size, model.num_attention_heads * model.head_dim
    width = layer_mean_ffn_width(model, model.experts_per_token * model.moe_intermediate_size)
    q = o = h * attention
    kv = h * model.num_kv_heads * model.head_dim
    ffn = h * width  # one of the three SwiGLU matrices
    return (kv + o + ffn) / (q + 2 * kv + o + 3 * ffn)


def recompute_flops_per_param(e: TrainingEfficiency, model: ModelSpec, recompute: str, framework: str) -> float:
    """FLOPs per active parameter per token that recomputation adds: full runs the forward again (2 × N);
    Megatron-style selective recomputes the attention core only (~0.2 N, research §6.2); torchtitan's selective
    is op-level SAC, every second matmul of a block run again (2 × its share of N)."""
    if recompute == "full":
        return e.full_recompute_flops_per_param
    if recompute != "selective":
        return 0.0
    if FRAMEWORK_CLASS.get(framework) == "torchtitan":
        return 2.0 * op_sac_recomputed_share(model)
    return e.selective_recompute_flops_per_param


def model_flops_per_token(model: ModelSpec, method: str, seq_len: int) -> float:
    return dense_flops_per_token(model, method) + attention_flops_per_token(model, seq_len)


# Architectures whose NVIDIA GDDR cards (GA102/AD102/GB202 class: RTX 3090/4090/5090, A10, A40, RTX A6000, L4, L40S,
# RTX PRO 6000) form the "gddr" regime: PCIe cards with a fraction of the HBM parts' bandwidth and clocks held by power,
# whatever the generation; the fitted Ampere base belongs to the A100 (GA100), not to them.
GDDR_FAMILY_ARCHITECTURES = ("ampere", "ada", "blackwell")


def gpu_family(gpu: GpuSpec) -> str:
    arch = gpu.architecture.lower()
    if gpu.vendor.upper() == "NVIDIA" and is_gddr(gpu) and any(key in arch for key in GDDR_FAMILY_ARCHITECTURES):
        return "gddr"
    for key, family in (
        ("ampere", "ampere"),
        ("hopper", "hopper"),
        ("blackwell", "blackwell"),
        ("cdna 4", "cdna4"),
        ("cdna", "cdna"),
    ):
        if key in arch:
            return family
    return "other"


def peak_tflops(gpu: GpuSpec, precision: str) -> tuple[float | None, str, str]:
    """(dense peak TFLOPS, precision class used, note). fp4 falls back to fp8, fp8 to 16-bit, where unsupported."""
    if precision == "fp4" and gpu.fp4_tflops and gpu.fp8_tflops:
        return gpu.fp4_tflops, "fp4", ""
    note = ""
    if precision == "fp4":
        if gpu.fp8_tflops:
            return gpu.fp8_tflops, "fp8", "no FP4 tensor cores: runs in FP8; "
        note = "no FP4 or FP8 tensor cores: runs in BF16; "
    if precision == "fp8" and gpu.fp8_tflops:
        return gpu.fp8_tflops, "fp8", ""
    if precision == "fp8":
        note = "no FP8 tensor cores: runs in BF16; "
    if gpu.bf16_tflops:
        return gpu.bf16_tflops, "16", note
    if gpu.fp16_tflops:
        return gpu.fp16_tflops, "16", note + "BF16 peak unknown: FP16 peak used"
    if gpu.fp32_tflops:
        return 2 * gpu.fp32_tflops, "16", note + "16-bit tensor peak unknown: 2 × FP32 used"
    return None, "16", note + "no published compute peak"


def base_mfu(e: TrainingEfficiency, family: str, precision_class: str = "16") -> float:
    """16-bit MFU of a GPU family (FP8/FP4 runs are priced from it by low_precision_factor)."""
    return getattr(e, f"mfu_{family}_16", None) or e.mfu_other_16


def framework_factor(e: TrainingEfficiency, framework: str, precision_class: str = "16") -> float:
    cls = FRAMEWORK_CLASS.get(framework, "auto")
    if cls == "torchtitan":
        return e.fw_torchtitan_16
    return getattr(e, f"fw_{cls}")


# Stacks whose default attention on Hopper/Blackwell is FlashAttention-2, not a Hopper-native kernel. LLM Foundry's
# `attn_impl: flash` calls the flash-attn 2 package (FlashAttention-3 is a separate Hopper build it does not call).
# The others run Hopper-native kernels by default: Megatron-LM and NeMo through TransformerEngine's fused attention
# (cuDNN's backend on sm90+); HF Trainer (attn_implementation "sdpa"), torchtune ("pytorch") and torchtitan through
# PyTorch SDPA, which in today's PyTorch puts cuDNN first on Hopper/Blackwell (the torch 2.14.1 wheel's
# check_prefer_cudnn_attention with its TORCH_CUDNN_SDPA_DEPRIORITIZED opt-out, where 2.5.1 had made cuDNN opt-in).
FLASH_ATTENTION_2_STACKS = frozenset({"foundry"})


def hopper_native_attention(framework: str) -> bool:
    """True where the stack's default attention on Hopper/Blackwell is a Hopper-native kernel (cuDNN, TE)."""
    return FRAMEWORK_CLASS.get(framework, "auto") not in FLASH_ATTENTION_2_STACKS


def attention_efficiency(e: TrainingEfficiency, gpu: GpuSpec | None, framework: str = "auto") -> float:
    """Attention kernels' efficiency relative to the dense GEMMs. Hopper/Blackwell GEMMs use WGMMA/TMA, which
    FlashAttention-2 does not: it reaches ~35 % of the H100 peak against ~72 % of the A100's (FlashAttention-3 paper
    §4), so a stack on FA2 runs attn_fa2_hopper_ratio of its Ampere efficiency there; a stack on a Hopper-native
    kernel runs attn_efficiency_hopper."""
    family = gpu_family(gpu) if gpu is not None else "other"
    if family not in ("hopper", "blackwell"):
        return e.attn_efficiency
    if hopper_native_attention(framework):
        return e.attn_efficiency_hopper
    return e.attn_efficiency * e.attn_fa2_hopper_ratio


def fp8_speedup(e: TrainingEfficiency, framework: str) -> float:
    """FP8 training over the same run in BF16, as TransformerEngine and torchao publish it."""
    return e.fp8_speedup_torchao if FRAMEWORK_CLASS.get(framework) == "torchtitan" else e.fp8_speedup


def low_precision_speedup(e: TrainingEfficiency, framework: str, precision_class: str, gpu: GpuSpec) -> float:
    """How much faster the step's compute runs than in BF16: 1 for 16-bit, the fitted FP8 speedup, and for FP4 an
    Amdahl step from it. The FP8 speedup s on a GPU whose FP8 peak is r8 × its BF16 peak says the GEMMs are
    p = (1 - 1/s) / (1 - 1/r8) of the BF16 compute time; FP4 runs them at r4 = FP4 / BF16 peak, except the
    share of linear layers the recipe keeps in BF16 (e.fp4_bf16_linear_share)."""
    if precision_class not in ("fp8", "fp4"):
        return 1.0
    speedup = fp8_speedup(e, framework)
    if precision_class == "fp8":
        return speedup
    peak16 = gpu.bf16_tflops or gpu.fp16_tflops
    if not (peak16 and gpu.fp8_tflops and gpu.fp4_tflops):
        return speedup
    r8, r4 = gpu.fp8_tflops / peak16, gpu.fp4_tflops / peak16
    gemm_share = min(1.0, (1 - 1 / speedup) / (1 - 1 / r8)) if r8 > 1 else 0.0
    kept = e.fp4_bf16_linear_share
    return 1 / ((1 - gemm_share) + gemm_share * (kept + (1 - kept) / r4))


def fp4_modelled_note(e: TrainingEfficiency) -> str:
    """What an FP4 training estimate rests on: said once per ranking and in each estimate's assumptions."""
    return (
        "FP4 training is modelled, not measured: the GEMM share of the FP8 speedup runs at the FP4 peak, "
        f"{e.fp4_bf16_linear_share:.0%} of the linear layers kept in BF16 (NVIDIA's NVFP4 recipe); "
        "no published FP4 training run validates it (band at least ±50 %)"
    )


def low_precision_factor(e: TrainingEfficiency, gpu: GpuSpec, framework: str, precision_class: str) -> float:
    """FP8/FP4 MFU relative to the 16-bit MFU, as a fraction of that precision's peak: speedup × (16-bit peak /
    its peak).

    Low-precision training is priced as a bounded speedup over the same run in BF16 (the quantity TransformerEngine
    and torchao publish), so a GPU generation with little FP8 evidence inherits its BF16 efficiency, not a
    free-floating FP8 MFU.
    """
    if precision_class not in ("fp8", "fp4"):
        return 1.0
    peak16 = gpu.bf16_tflops or gpu.fp16_tflops
    peak = gpu.fp4_tflops if precision_class == "fp4" else gpu.fp8_tflops
    # peaks unpublished: each halving of the width doubles the dense peak (FP8 = 2x, FP4 = 4x the 16-bit one)
    ratio = peak16 / peak if peak16 and peak else (0.25 if precision_class == "fp4" else 0.5)
    return low_precision_speedup(e, framework, precision_class, gpu) * ratio


# 16-bit dense peak per unit of HBM bandwidth (TFLOPS per TB/s) of the GPU the width constants are quoted for:
# A100-SXM-80GB, 312 TFLOPS over 2.039 TB/s (catalog).
WIDTH_REFERENCE_FLOPS_PER_BYTE = 312 / 2.039


def width_factor(e: TrainingEfficiency, hidden: int, gpu: GpuSpec | None = None) -> float:
    """Small-matmul saturation: 1 / (1 + (h0 / hidden) ** exponent).

    Per token, the GEMMs of a layer scale with hidden² and its memory-bound ops (norms, activations, residuals,
    optimizer) with hidden, so their time ratio is ∝ (peak / bandwidth) / hidden: the half-point h0 moves with the
    GPU's FLOPs per byte (roofline ridge point), quoted at the A100-80GB's and scaled for the GPU that runs it.
    """
    half = e.width_half_hidden
    if gpu is not None:
        peak = gpu.bf16_tflops or gpu.fp16_tflops
        if peak and gpu.memory_bandwidth_tbs:
            half *= peak / gpu.memory_bandwidth_tbs / WIDTH_REFERENCE_FLOPS_PER_BYTE
    return 1.0 / (1.0 + (half / hidden) ** e.width_exponent)


def scale_factor(e: TrainingEfficiency, gpu_count: int) -> float:
    if gpu_count <= 256:
        return 1.0
    return e.scale_factor_2k if gpu_count <= 2048 else e.scale_factor_big


def method_factor(e: TrainingEfficiency, method: str) -> float:
    """LoRA and QLoRA share the adapter efficiency; QLoRA's NF4 dequantisation is priced as memory traffic
    (qlora_dequant_seconds), not as a factor."""
    return e.lora_factor if method in ("lora", "qlora") else 1.0


def qlora_dequant_seconds(
    e: TrainingEfficiency, gpu: GpuSpec, model: ModelSpec, layout: Layout, micro_batches: float
) -> float:
    """NF4 base weights are dequantised to BF16 before each GEMM: every pass (forward, backward, plus the
    recomputed forward under full recompute) reads 0.5 B and writes and re-reads 2 B per weight, per micro-batch,
    at HBM speed (QLoRA paper §2; bitsandbytes/torchao NF4 dequantise-then-matmul)."""
    passes = 3.0 if layout.recompute == "full" else 2.0
    weights = model.params_b * 1e9 / (layout.tensor_parallel * layout.pipeline_parallel)
    bandwidth = max(gpu.memory_bandwidth_tbs, 0.1) * 1e12
    return passes * micro_batches * weights * e.qlora_dequant_bytes_per_param / bandwidth


def sequence_parallel_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    model: ModelSpec,
    layout: Layout,
    tokens_per_gpu: float,
    framework: str,
) -> float:
    """DeepSpeed-Ulysses all-to-alls (the data-parallel-only stacks): per layer, q, k, v and the attention output
    change hands forward and again backward (Jacobs et al. 2023, §3), each GPU sending (sp-1)/sp of its bf16 share;
    they sit on the critical path between the projections and attention, so none of it is hidden. Megatron's
    context parallelism passes K/V blocks around a ring while the attention of the previous block runs (Megatron-Core
    context-parallel docs): counted as hidden."""
    sp = layout.sequence_parallel
    if sp <= 1 or framework not in DATA_PARALLEL_ONLY:
        return 0.0
    q_dim, kv_dim = model.num_attention_heads * model.head_dim, model.num_kv_heads * model.head_dim
    per_token = model.layers * 2 * 2.0 * (2 * q_dim + 2 * kv_dim) * (sp - 1) / sp  # fwd + bwd × bf16 bytes
    return tokens_per_gpu * per_token / (_bandwidth_gbs(e, gpu, sp) * 1e9)


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by part; mfu_eff is the compute-phase efficiency used."""

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    offload_s: float  # the optimizer's PCIe copies and CPU step, with its states offloaded (optimizer.offload_time)
    mfu_eff: float

    @property
    def total_s(self) -> float:
        return self.compute_s + self.bubble_s + self.tp_comm_s + self.dp_comm_s + self.offload_s


def _bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, group_gpus: int) -> float:
    """Per-GPU collective bandwidth (one direction): scale-up link, scale-out NIC, or PCIe. A group smaller than a
    switchless mesh board (mesh.py) is still priced at the full listed bandwidth here, unlike inference: see the
    note in docs/ACCURACY.md (2026-12-05, mesh) for why it is held."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        if group_gpus <= gpu.scaleup_domain_gpus:
            return gpu.interconnect_gbs / 2 * e.nvlink_efficiency
        return e.scaleout_gbs_per_gpu_ampere if "ampere" in gpu.architecture.lower() else e.scaleout_gbs_per_gpu
    return e.pcie_gbs_per_gpu


# Public names for the terms, which state the bandwidth each collective was timed at and the bytes it moved.
collective_bandwidth_gbs = _bandwidth_gbs


def local_micro_batches(global_batch_seqs: int, replicas: int, micro_batch_seqs: int) -> int:
    """Micro-batches one data-parallel replica runs per optimizer step (gradient accumulation): its share of the
    global batch (the busiest replica's, busiest_replica_factor) in whole micro-batches."""
    return max(1, math.ceil(math.ceil(global_batch_seqs / replicas) / micro_batch_seqs))


def _dp_comm_bytes(
    model: ModelSpec, method: str, layout: Layout, dp: int, adapters: float, micro_batches: int = 1
) -> float:
    """Per-GPU gradient (and ZeRO-3 parameter) traffic per step, ring all-reduce volume.

    ZeRO-3/FSDP FULL_SHARD frees each layer's gathered weights after use, so every micro-batch gathers them again
    forward and backward (ZeRO paper §7.2.2: 2Ψ of parameter all-gathers per forward-backward pass; FSDP
    FULL_SHARD reshards after forward and backward): the gathers scale with the micro-batches, the gradient
    reduction happens once per step."""
    if dp <= 1:
        return 0.0
    split = layout.tensor_parallel * layout.pipeline_parallel
    ring = (dp - 1) / dp
    full = method in ("pretrain", "full_ft")
    grads = 2.0 * (model.params_b * 1e9 if full else adapters) / split
    volume = 2 * ring * grads  # reduce-scatter + all-gather of bf16 grads
    if layout.zero_stage >= 3:  # QLoRA's FSDP gathers the NF4 storage (bitsandbytes quant_storage), not bf16
        base = (2.0 if full or method == "lora" else BYTES_QLORA_BASE) * model.params_b * 1e9 / split
        # param all-gathers fwd + bwd per micro-batch; for trained weights the gradients' all-gather above stands in
        # for one of them (ZeRO-3: 1.5x DP's volume at one micro-batch)
        volume += ring * base * (2 * micro_batches - (1 if full else 0))
    return volume


dp_comm_bytes = _dp_comm_bytes


def effective_mfu(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    precision_class: str,
) -> float:
    """Compute-phase MFU: family × framework (× FP8 speedup) × width × scale × method (× MoE), at most 1. The MoE factor
    falls on the MoE layers' share of the matmuls (moe_share.moe_layer_factor, as inference does)."""
    mfu = (
        base_mfu(e, gpu_family(gpu))
        * framework_factor(e, framework)
        * low_precision_factor(e, gpu, framework, precision_class)
        * width_factor(e, model.hidden_size, gpu)
        * scale_factor(e, gpu_count)
        * method_factor(e, method)
        * moe_layer_factor(e.moe_factor, moe_layer_share(model))
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
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    attention_slowdown: float = 1.0,
    attention_eff: float | None = None,
    framework: str = "auto",
) -> float:
    """Compute phase of one step: tokens per GPU × FLOPs per token (with recompute) at the effective MFU.

    `attention_span` is the tokens a query attends over when it is shorter than the sequence (packed short
    documents with a per-document mask); `capacity_factor` > 1 pads routed-expert matmuls to the expert
    capacity (token-dropping MoE with dense expert matmuls computes capacity × tokens, dropless computes 1×).
    """
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    dense, attn = executed_flops_per_token(
        e, model, method, seq_len, recompute, attention_span, capacity_factor, framework
    )
    attn_eff = e.attn_efficiency if attention_eff is None else attention_eff
    return tokens_per_gpu * (dense + attn * attention_slowdown / attn_eff) / (peak * 1e12 * mfu)


def executed_flops_per_token(
    e: TrainingEfficiency,
    model: ModelSpec,
    method: str,
    seq_len: int,
    recompute: str,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    framework: str = "auto",
) -> tuple[float, float]:
    """(matmul, attention) FLOPs a token costs as executed, which the compute phase is timed on: k × active params
    plus expert padding and recompute; the score/AV matmuls at their causal share (flash attention skips the masked
    half), a third more under full recompute. Model FLOPs (model_flops_per_token, the MFU convention) differ: no
    recompute, attention in full."""
    n_active = model.active_params_b * 1e9
    extra = recompute_flops_per_param(e, model, recompute, framework)
    padded = max(0.0, capacity_factor - 1.0) * routed_expert_params(model)
    k = 4.0 if method in ("lora", "qlora") else 6.0
    dense = dense_flops_per_token(model, method) + k * padded + extra * (n_active + padded)
    span = min(seq_len, attention_span) if attention_span else seq_len
    attn = attention_flops_per_token(model, span) * (4 / 3 if recompute == "full" else 1.0) * CAUSAL_SHARE
    return dense, attn


def busiest_replica_factor(global_batch_seqs: int, replicas: int) -> float:
    """A data-parallel step waits for its busiest replica. Where the global batch does not split into a whole number
    of sequences per replica (512 over 24), some replicas run ceil(B / R) of them (PyTorch's DistributedSampler pads
    to that; Megatron-LM and torchtitan refuse the layout), so the step takes that share: ceil(B / R) x R / B of the
    even split's time (1 where it divides)."""
    return math.ceil(global_batch_seqs / replicas) * replicas / global_batch_seqs


def workload_step_time(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    peak: float,
    precision_class: str,
    adapters: float,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
) -> StepTime:
    """The step time of a training workload's method, framework, sequence length and global batch (step_parts)."""
    return StepTime(
        *step_parts(
            e,
            gpu,
            gpu_count,
            model,
            w.method,
            w.framework,
            w.seq_len,
            w.global_batch_seqs,
            layout,
            peak,
            precision_class,
            adapters,
            attention_span=attention_span,
            capacity_factor=capacity_factor,
            recipe=state_recipe(w),
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
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    recipe: StateRecipe = DEFAULT_RECIPE,
) -> tuple[float, float, float, float, float, float]:
    """Compute at effective MFU, plus PP bubble, exposed TP and DP/FSDP communication and an offloaded optimizer's
    time: StepTime's fields as a plain tuple (compute, bubble, TP, DP, offload seconds, MFU), for sweeps.

    `mfu` (effective_mfu) and `compute_s` (compute_seconds) do not depend on the parallel split; a search over
    layouts may pass them in rather than have them recomputed."""
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    if mfu is None:
        mfu = effective_mfu(e, gpu, gpu_count, model, method, framework, precision_class)
    compute = compute_s
    if compute is None:
        compute = compute_seconds(
            e,
            gpu_count,
            model,
            method,
            seq_len,
            global_batch_seqs,
            layout.recompute,
            peak,
            mfu,
            attention_span,
            capacity_factor,
            low_precision_speedup(e, framework, precision_class, gpu),
            attention_efficiency(e, gpu, framework),
            framework,
        )
    tp, pp, dp = layout.tensor_parallel, layout.pipeline_parallel, layout.data_parallel(gpu_count)
    replicas = layout.replicas(gpu_count)
    busiest = busiest_replica_factor(global_batch_seqs, replicas)
    compute *= busiest
    tokens_per_gpu *= busiest
    local_micro = local_micro_batches(global_batch_seqs, replicas, layout.micro_batch_seqs)
    if method == "qlora":
        compute += qlora_dequant_seconds(e, gpu, model, layout, local_micro)
    # Fixed per-step latency of the layers a GPU runs (kernel launches, optimizer, norm/clip syncs): visible when
    # strong scaling leaves each GPU little work per step.
    bubble = e.step_latency_s_per_layer * model.layers / pp
    if pp > 1:
        chunks = layout.pipeline_interleave or e.pp_interleave_default
        bubble += compute * (pp - 1) / (chunks * local_micro)
    tp_comm = 0.0
    if tp > 1:
        per_token = model.layers * 16.0 * model.hidden_size * (tp - 1) / tp  # 4 all-reduces × 2·h bytes × ring 2(t-1)/t
        tp_comm = e.tp_comm_exposed * tokens_per_gpu * tp * per_token / (_bandwidth_gbs(e, gpu, tp) * 1e9)
    tp_comm += sequence_parallel_seconds(e, gpu, model, layout, tokens_per_gpu, framework)
    dp_bytes = _dp_comm_bytes(model, method, layout, dp, adapters, local_micro)
    dp_raw = dp_bytes / (_bandwidth_gbs(e, gpu, gpu_count) * 1e9)
    dp_comm = max(0.0, dp_raw - e.dp_overlap * compute)
    offload = offload_seconds(recipe, gpu, gpu_count, model, method, layout, adapters)
    return compute, bubble, tp_comm, dp_comm, offload, mfu


def offload_seconds(
    recipe: StateRecipe, gpu: GpuSpec, gpu_count: int, model: ModelSpec, method: str, layout: Layout, adapters: float
) -> float:
    """optimizer.offload_time of the trained parameters in one GPU's optimizer shard (0 unless offloaded)."""
    if not recipe.on_cpu:
        return 0.0
    return offload_time(recipe, gpu, gpu_count, trained_per_gpu(model, method, layout, gpu_count, adapters)).total_s


def trained_per_gpu(model: ModelSpec, method: str, layout: Layout, gpu_count: int, adapters: float) -> float:
    """Trained parameters in one GPU's optimizer shard: every weight or the adapters, over TP x PP x DP."""
    trained = model.params_b * 1e9 if method in ("pretrain", "full_ft") else adapters
    return trained / (layout.tensor_parallel * layout.pipeline_parallel * layout.data_parallel(gpu_count))
