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
tests/scoring/test_training_expert_gemms.py), so the true cost is higher.

The GEMM's shape can also be priced below its floor, through the dense matmuls' small-matmul saturation form
(expert_gemm_saturation, efficiency.training.expert_half_hidden_share): an expert of FLOPs per byte
1 / (1/tokens + 1/width + 1/hidden) saturates as a dense matmul of that width would. Off by default: measured on the
validation file and not adopted (moeshape, 2026-12-07; README). The compute phase's bubble and DP overlap see the
seconds this adds (step_time.step_parts). Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.hardware.dtypes import ACTIVATION_BYTES, WEIGHT_BYTES
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_parallel
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.mfu import width_half_point

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


def expert_gemm_saturation(e: TrainingEfficiency, gemm: ExpertGemm, hidden: int, gpu: GpuSpec | None) -> float:
    """The expert GEMM's small-matmul saturation relative to the dense matmuls' at the model's hidden size, through
    the same form (mfu.width_factor, half-point width_half_hidden scaled by the GPU's FLOPs per byte):
    width_factor(FLOPs per byte of the GEMM) / width_factor(hidden).

    An expert GEMM of t tokens, hidden h and width w runs 6·t·h·w FLOPs over 2·3·(h·w + t·h + t·w) bytes in 16 bits:
    1 / (1/t + 1/w + 1/h) FLOPs per byte. A dense layer's GEMMs see every token of the micro-batch and widths of
    hidden and more, so their saturation is the dense width factor's (1 at the limit t, w → ∞); an expert fed few
    tokens (t) or split thin (w, TP without EP) saturates less. At most 1."""
    intensity = 1.0 / (1.0 / max(gemm.tokens, 1e-9) + 1.0 / max(gemm.width, 1e-9) + 1.0 / hidden)
    half, exponent = width_half_point(e, gpu) * e.expert_half_hidden_share, e.width_exponent
    return min(1.0, (1.0 + (half / hidden) ** exponent) / (1.0 + (half / intensity) ** exponent))


def expert_gemm_efficiency(
    e: TrainingEfficiency | None, model: ModelSpec, gemm: ExpertGemm, gpu: GpuSpec, matmul_efficiency: float
) -> tuple[float, float]:
    """(matmul efficiency, shape saturation) an expert GEMM pass is timed at. With the shape off
    (expert_half_hidden_share 0, the default): the compute phase's efficiency and 1, the roofline floor alone (moeep2).
    With it on: the experts' own efficiency, the MoE factor whole rather than spread over a model's dense layers
    (moe_share.moe_layer_factor), and expert_gemm_saturation."""
    if e is None or e.expert_half_hidden_share <= 0:
        return matmul_efficiency, 1.0
    own = matmul_efficiency * e.moe_factor / moe_layer_factor(e.moe_factor, moe_layer_share(model))
    return own, expert_gemm_saturation(e, gemm, model.hidden_size, gpu)


def expert_gemm_excess_seconds(
    gemm: ExpertGemm, gpu: GpuSpec, peak_tflops: float, matmul_efficiency: float, saturation: float = 1.0
) -> float:
    """What one expert GEMM pass takes over the compute phase's time for its FLOPs: its FLOPs at the matmul
    efficiency times the shape's saturation, or its bytes over the HBM bandwidth (the roofline floor) where slower,
    less FLOPs / (peak × efficiency): max(FLOPs / (peak × efficiency × saturation), bytes / bandwidth) −
    FLOPs / (peak × efficiency)."""
    bandwidth = gpu.memory_bandwidth_tbs * 1e12
    if bandwidth <= 0 or peak_tflops <= 0 or matmul_efficiency <= 0 or saturation <= 0:
        return 0.0
    compute = gemm.flops / (peak_tflops * 1e12 * matmul_efficiency)
    return max(0.0, max(compute / saturation, gemm.bytes / bandwidth) - compute)


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
    e: TrainingEfficiency | None = None,
) -> float:
    """Seconds per step the expert GEMMs' shape adds to the compute phase on one GPU (the memory floor, and the
    saturation where expert_half_hidden_share is on): micro-batches × MoE layers per pipeline stage × experts held ×
    passes × expert_gemm_excess_seconds (0 for a dense model)."""
    if not model.is_moe or model.num_experts <= 0 or model.moe_layers <= 0:
        return 0.0
    gemm = expert_gemm(model, layout, seq_len, precision_class, capacity_factor)
    efficiency, saturation = expert_gemm_efficiency(e, model, gemm, gpu, matmul_efficiency)
    excess = expert_gemm_excess_seconds(gemm, gpu, peak_tflops, efficiency, saturation)
    if excess <= 0:
        return 0.0
    held = max(1, model.num_experts // expert_parallel(layout, model))
    layers = model.moe_layers / layout.pipeline_parallel
    return micro_batches * layers * held * expert_gemm_passes(recompute_flops_per_param) * excess
