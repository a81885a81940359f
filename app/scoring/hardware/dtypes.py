"""Bytes per element and the tensor-core peak that runs a matmul, per dtype."""

from __future__ import annotations

from app.scoring.explain import significant
from app.scoring.hardware.gpu_gaps import borrowed_peaks
from app.scoring.specs import GpuSpec

# Bytes per stored weight element, including quantisation scales.
WEIGHT_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,  # per-tensor scales only: negligible
    "int8": 1.0625,  # GGUF Q8_0: 34 B per block of 32 weights (fp16 scale); per-channel int8 ~1.0
    # INT8 W8A8 (SmoothQuant, llm-compressor's quantized.w8a8): one scale per output channel of thousands of weights,
    # the activations' scales found per token at run time; ~1.0
    "int8_w8a8": 1.0,
    "int4": 0.5625,  # GGUF Q4_0: 18 B per 32 weights; AWQ g128 (4 b + fp16 scale/zero) ~0.53
    "fp4": 0.5625,  # NVFP4: 4 b + one fp8 scale per 16 elements = 4.5 b
}

# Bytes per KV-cache element (no block scales in the engines we model).
KV_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}

# All-reduce payloads and the activations between layers stay 16-bit in all engines modelled (W8A8 quantises a
# GEMM's input inside the GEMM: its output, and what the layers hand on, stay 16-bit).
ACTIVATION_BYTES = 2.0

# The weight_dtype of INT8 W8A8: INT8 weights and activations multiplied on the INT8 tensor peak (vLLM's CUTLASS
# int8 kernels for compressed-tensors checkpoints, SGLang's w8a8_int8, TensorRT-LLM's SmoothQuant). Plain "int8" is
# weight-only (W8A16), as it always meant.
INT8_W8A8 = "int8_w8a8"


def compute_dtype(weight_dtype: str) -> str:
    """The dtype of the matmul: weight-only int4/int8 dequantise to 16-bit; fp8/fp4 run natively, INT8 W8A8 on INT8."""
    if weight_dtype in ("fp8", "fp4", "fp32"):
        return weight_dtype
    return "int8" if weight_dtype == INT8_W8A8 else "bf16"


def matmul_dtype(gpu: GpuSpec, weight_dtype: str) -> tuple[str, str | None]:
    """The dtype the GPU's matmuls actually run in, and a note when it differs from the weights'.

    FP8/FP4 weights run natively only where the GPU has that tensor peak; elsewhere engines dequantise
    them to 16-bit in the GEMM (vLLM Marlin FP8 on Ampere, MXFP4 gpt-oss on Hopper: w8a16 / w4a16).
    INT8 W8A8 without an INT8 tensor peak (Volta, Gaudi, Trainium) is priced as its weights run weight-only, W8A16.
    """
    dtype = compute_dtype(weight_dtype)
    if dtype == "int8" and not gpu.int8_tops:
        return "bf16", (
            f"{gpu.name} has no INT8 tensor peak in the catalog: INT8 W8A8 priced as its weights dequantised to "
            "16-bit matmuls (W8A16)"
        )
    if (dtype == "fp4" and not gpu.fp4_tflops) or (dtype == "fp8" and not gpu.fp8_tflops):
        return "bf16", f"{gpu.name} has no {dtype.upper()} tensor peak: {dtype} weights dequantised, 16-bit matmuls"
    return dtype, None


def peak_unit(dtype: str) -> str:
    """TOPS for integer matmuls (the datasheets' unit), TFLOPS for floating point."""
    return "TOPS" if dtype == "int8" else "TFLOPS"


def dense_peak_tflops(gpu: GpuSpec, dtype: str) -> tuple[float, str | None]:
    """Dense peak for the compute dtype and an assumption sentence when a fallback was used."""
    peak, note = _dense_peak_tflops(gpu, dtype)
    if borrowed := borrowed_peaks(gpu):  # from its architecture's GPUs (app/scoring/hardware/gpu_gaps.py)
        said = f"{gpu.name}: {borrowed} ({significant(peak)} {peak_unit(dtype)} {dtype.upper()})"
        return peak, "; ".join(n for n in (note, said) if n)
    return peak, note


def _dense_peak_tflops(gpu: GpuSpec, dtype: str) -> tuple[float, str | None]:
    if dtype == "int8" and gpu.int8_tops:  # matmul_dtype runs INT8 only where the GPU has the peak
        return gpu.int8_tops, None
    if dtype == "fp4":
        if gpu.fp4_tflops:
            return gpu.fp4_tflops, None
        peak, note = _dense_peak_tflops(gpu, "fp8")
        return peak, note or f"{gpu.name} has no FP4 peak; FP8 peak {significant(peak)} TFLOPS used"
    if dtype == "fp8":
        if gpu.fp8_tflops:
            return gpu.fp8_tflops, None
        peak, note = _dense_peak_tflops(gpu, "bf16")
        return peak, note or f"{gpu.name} has no FP8 peak; 16-bit peak {significant(peak)} TFLOPS used"
    if dtype == "fp32":
        return (gpu.tf32_tflops or gpu.fp32_tflops or 1.0), None
    if gpu.bf16_tflops:
        return gpu.bf16_tflops, _estimated_note(gpu, gpu.bf16_tflops)
    if gpu.fp16_tflops:
        return gpu.fp16_tflops, f"{gpu.name}: BF16 peak unknown, FP16 peak {significant(gpu.fp16_tflops)} TFLOPS used"
    if gpu.fp32_tflops:
        peak = 2.0 * gpu.fp32_tflops
        return peak, f"{gpu.name}: tensor peaks unverified, assumed 2 × FP32 = {significant(peak)} TFLOPS"
    return 1.0, f"{gpu.name}: no compute peak known, 1 TFLOPS assumed"


def _estimated_note(gpu: GpuSpec, peak: float) -> str | None:
    """Peak estimated: the catalog's 16-bit tensor peak is derived from a ratio or unverified, not a datasheet."""
    if not gpu.peak_estimated or borrowed_peaks(gpu):  # a borrowed peak says so itself
        return None
    return (
        f"peak estimated: {gpu.name}'s 16-bit tensor peak {significant(peak)} TFLOPS is derived or unverified, not "
        "a datasheet"
    )
