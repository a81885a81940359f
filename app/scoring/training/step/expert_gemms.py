"""The routed experts' GEMMs at their real shape: a roofline floor per expert GEMM of a training step.

The compute phase (step_time.compute_seconds) times every matmul FLOP at one matmul efficiency, whatever its shape.
An expert GEMM is fed only the tokens routed to it: top-k routing sends each expert tokens × top_k / experts of the
tokens its GPUs route, a micro-batch at a time. Where few tokens meet a large weight the GEMM streams its weights from
HBM for little arithmetic and runs at the memory's speed, not the tensor cores' (the roofline model, Williams et al.
2009). DeepSeek-V3 at TP4 without EP splits each expert into 512-wide slices fed ~128 tokens (~101 FLOP per byte, under
a B200's ridge of 2,250 TFLOPS / 8 TB/s = 281); TP1 EP8 feeds whole 2,048-wide experts ~1,024 tokens (~620).

Each expert GEMM takes max(its FLOPs / (peak × matmul efficiency), its bytes / HBM bandwidth): the step pays what the
second adds over the first (the compute phase already times the first). Nothing is fitted: the shapes come from the
model and the layout, the peak and bandwidth from the GPU's datasheet, the element widths from hardware/dtypes.py.
The peak and bandwidth are the datasheet's: a floor. PyTorch's bf16 grouped GEMM of whole, TP8- and EP8-split experts
on an H200 took 1.5-2.5x it at 128-2,048 tokens (docs/measurements/h200-2026-12-04-moe.json and -moe-served.json;
tests/scoring/test_training_expert_gemms.py), so the true cost is higher. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.hardware.dtypes import ACTIVATION_BYTES, WEIGHT_BYTES
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_parallel
from app.scoring.training.layouts.memory import Layout

# The weights' dtype of a training precision class (step.mfu.peak_tflops' classes): what an expert GEMM streams.
PRECISION_WEIGHT_DTYPE = {"16": "bf16", "fp8": "fp8", "fp4": "fp4"}


@dataclass(frozen=True, slots=True)
class ExpertGemm:
    """One routed expert's three SwiGLU GEMMs (gate, up: hidden → width; down: width → hidden) in one pass of one
    micro-batch on one GPU: tokens it is fed, its width as split, FLOPs and bytes moved."""

    tokens: float
    width: float  # the expert's intermediate width on one GPU: moe_intermediate_size / expert-TP
    flops: float
    bytes: float

    @property
    def flops_per_byte(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0


def expert_tensor_parallel(model: ModelSpec, layout: Layout) -> int:
    """Ranks one routed expert is split over: TP without EP (each expert split as a dense MLP is), 1 under EP (the
    experts run whole beside attention TP: Megatron-Core MoE Parallel Folding, expert-TP 1; experts.py)."""
    return 1 if expert_parallel(layout, model) > 1 else layout.tensor_parallel


def tokens_per_expert(model: ModelSpec, layout: Layout, seq_len: int, capacity_factor: float = 1.0) -> float:
    """Tokens one expert GEMM is fed per micro-batch: the tokens its GPUs route × top_k / experts (even routing).

    Without EP the TP group gathers its micro-batch's tokens (seq_len / the sequence split each) and every rank runs
    its slice of every expert on all of them; under EP each GPU routes its own micro-batch share (/ TP under Megatron
    sequence parallelism) and the EP group's tokens meet at the expert. A token-dropping path pads to capacity."""
    ep = expert_parallel(layout, model)
    tokens = layout.micro_batch_seqs * seq_len / max(1, layout.sequence_parallel)
    if ep > 1:
        tokens = tokens / layout.tensor_parallel * ep
    return tokens * model.experts_per_token / max(1, model.num_experts) * capacity_factor


def expert_gemm(
    model: ModelSpec, layout: Layout, seq_len: int, precision_class: str, capacity_factor: float = 1.0
) -> ExpertGemm:
    """One expert's GEMMs in one pass: FLOPs 2 × tokens × 3 × hidden × width; bytes: its three weight matrices at
    the precision's width plus each GEMM's input and output activations at 16 bits (hardware/dtypes.py)."""
    t = tokens_per_expert(model, layout, seq_len, capacity_factor)
    h, width = model.hidden_size, model.moe_intermediate_size / expert_tensor_parallel(model, layout)
    weight_bytes = WEIGHT_BYTES[PRECISION_WEIGHT_DTYPE.get(precision_class, "bf16")]
    flops = 2.0 * t * 3.0 * h * width
    moved = weight_bytes * 3.0 * h * width + ACTIVATION_BYTES * 3.0 * t * (h + width)
    return ExpertGemm(t, width, flops, moved)


def expert_gemm_passes(recompute_flops_per_param: float) -> float:
    """GEMM passes over each expert weight per micro-batch: forward, the input gradient and the weight gradient (each
    as many FLOPs as the forward, 6 N), plus the forward the recompute adds in the same share as the compute phase
    (flops.recompute_flops_per_param / 2: 1 under full recompute)."""
    return 3.0 + recompute_flops_per_param / 2.0


def expert_gemm_excess_seconds(gemm: ExpertGemm, gpu: GpuSpec, peak_tflops: float, matmul_efficiency: float) -> float:
    """What the roofline adds to one expert GEMM pass over the compute phase's time for its FLOPs:
    max(0, bytes / HBM bandwidth - FLOPs / (peak × efficiency))."""
    bandwidth = gpu.memory_bandwidth_tbs * 1e12
    if bandwidth <= 0 or peak_tflops <= 0 or matmul_efficiency <= 0:
        return 0.0
    return max(0.0, gemm.bytes / bandwidth - gemm.flops / (peak_tflops * 1e12 * matmul_efficiency))


def expert_gemm_floor_seconds(
    gpu: GpuSpec,
    model: ModelSpec,
    layout: Layout,
    seq_len: int,
    precision_class: str,
    peak_tflops: float,
    matmul_efficiency: float,
    micro_batches: int,
    recompute_flops_per_param: float,
    capacity_factor: float = 1.0,
) -> float:
    """Seconds per step the memory-bound expert GEMMs add to the compute phase on one GPU: micro-batches × MoE layers
    per pipeline stage × experts held × passes × expert_gemm_excess_seconds (0 for a dense model)."""
    if not model.is_moe or model.num_experts <= 0 or model.moe_layers <= 0:
        return 0.0
    gemm = expert_gemm(model, layout, seq_len, precision_class, capacity_factor)
    excess = expert_gemm_excess_seconds(gemm, gpu, peak_tflops, matmul_efficiency)
    if excess <= 0:
        return 0.0
    held = max(1, model.num_experts // expert_parallel(layout, model))
    layers = model.moe_layers / layout.pipeline_parallel
    return micro_batches * layers * held * expert_gemm_passes(recompute_flops_per_param) * excess
