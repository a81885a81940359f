"""Peak selection and the compute phase's effective MFU of a training run: the GPU family's 16-bit base, times the
framework, FP8/FP4, matmul width, scale, method and MoE factors (effective_mfu), and attention's own efficiency.

Formulas: shared/research/training_estimators.md §1.4, §6.4; constants in app.scoring.efficiency.training. Pure
functions.
"""

from __future__ import annotations

from app.scoring.efficiency.bands import UNKNOWN_BAND_WORDS
from app.scoring.efficiency.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.explain import percent
from app.scoring.specs import GpuSpec, ModelSpec, is_gddr
from app.scoring.training.step.frameworks import FRAMEWORK_CLASS

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
        f"{percent(e.fp4_bf16_linear_share)} of the linear layers kept in BF16 (NVIDIA's NVFP4 recipe); "
        f"no published FP4 training run validates it (band at least {UNKNOWN_BAND_WORDS})"
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
    return 1.0 / (1.0 + (width_half_point(e, gpu) / hidden) ** e.width_exponent)


def width_half_point(e: TrainingEfficiency, gpu: GpuSpec | None = None) -> float:
    """width_half_hidden scaled from the A100-80GB's FLOPs per byte to the GPU's (bf16 peak / HBM bandwidth)."""
    half = e.width_half_hidden
    if gpu is not None:
        peak = gpu.bf16_tflops or gpu.fp16_tflops
        if peak and gpu.memory_bandwidth_tbs:
            half *= peak / gpu.memory_bandwidth_tbs / WIDTH_REFERENCE_FLOPS_PER_BYTE
    return half


def scale_factor(e: TrainingEfficiency, gpu_count: int) -> float:
    if gpu_count <= 256:
        return 1.0
    return e.scale_factor_2k if gpu_count <= 2048 else e.scale_factor_big


def method_factor(e: TrainingEfficiency, method: str) -> float:
    """LoRA and QLoRA share the adapter efficiency; QLoRA's NF4 dequantisation is priced as memory traffic
    (qlora_dequant_seconds), not as a factor."""
    return e.lora_factor if method in ("lora", "qlora") else 1.0


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
