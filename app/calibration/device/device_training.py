"""Training steps timed on a real GPU (benchmarks/device/train_step.py) beside the training estimator.

Each timed run is read as the validation file would state it: one GPU, bf16, the run's sequence length and sequences
per step, activation checkpointing on or off, micro-batch = the sequences per step. The estimator's step time, for
framework "pytorch", is set beside the measured one. The memory its layout needs at the step's peak (weights,
gradients, optimizer states, activations, logits; the runtime reserve left out, as PyTorch's allocator counts only
tensors) is set beside the peak allocated memory, with the script's own eager layer (eager_activations.PLAIN_LOOP_LAYER)
and the loss it ran: unfused (12 B per logit) or in chunks (torchtune's chunked loss, 6 B). Like the kernel rows, a
check of the estimator, not a validation case: the script is a plain eager loop, not a tuned stack.
"""

from __future__ import annotations

from app.calibration.device.kernel_terms import KernelCheck
from app.calibration.training.validate_training import predict_estimate
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY, USABLE_HBM_SHARE, TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.estimate import TrainingEstimate
from app.scoring.training.layouts.eager_activations import PLAIN_LOOP_LAYER
from app.scoring.training.layouts.memory import GB, activation_bytes, logits_bytes, memory_needed_gb, runtime_reserve_gb
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.step_peak import workload_peak
from app.scoring.training.step.flops import CAUSAL_SHARE, attention_flops_per_token
from app.scoring.training.step.mfu import attention_efficiency, effective_mfu, peak_tflops
from app.scoring.workload import TrainingWorkload

FRAMEWORK = "pytorch"
UNFUSED_LOSS_FRAMEWORK = "auto"  # a plain loop's cross-entropy: the logits' bytes of an unfused loss
STEP_CONSTANTS = "mfu_hopper_16 × fw_pytorch × width_factor, attn_efficiency_hopper, step_latency_s_per_layer"
MEMORY_CONSTANTS = "BYTES_MIXED_ADAMW, activation_bytes (the plain loop's eager layer), logits bytes per element"
CARD_CONSTANTS = (
    "USABLE_HBM_SHARE (allocator reserve, fragmentation), SINGLE_GPU_RESERVE_GB (context); catalog GB as bytes"
)
ATTENTION_CONSTANTS = "12 × heads × dim × seq FLOPs per token × causal 0.5, at the step's MFU × attn_efficiency_hopper"


def case_row(row: dict, gpu: GpuSpec, framework: str = FRAMEWORK) -> dict[str, str]:
    """The run as a training_cases.csv row (the columns predict_estimate reads)."""
    checkpointing = "true" if row.get("recompute") == "full" else "false"
    return {
        "case_id": "device",
        "source": "own",
        "gpu": gpu.id,
        "gpu_count": "1",
        "model": row["model"],
        "method": row["method"],
        "precision": "bf16",
        "seq_len": str(row["seq_len"]),
        "global_batch_seqs": str(row["batch_seqs"]),
        "metric": "tokens_s_per_gpu",
        "value": str(row["tokens_s"]),
        "framework": framework,
        "notes": f"activation checkpointing {checkpointing}; micro-batch {row['batch_seqs']}",
    }


def training_checks(row: dict, gpu: GpuSpec, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> list:
    """The step time and, where the script read it, the peak memory, each beside the estimator's; none for a model
    or method the estimator does not cover."""
    result = predict_estimate(case_row(row, gpu), gpus, models)
    if isinstance(result, str):
        return []
    estimate, _, model, w = result
    chunks = row.get("loss_chunks", 1)
    label = (
        f"{model.name} {row['method'].replace('_', ' ')}, {row['batch_seqs']} × {row['seq_len']} tokens, "
        f"{'every block recomputed' if row.get('recompute') == 'full' else 'no recompute'}"
        + (f", loss in {chunks} chunks" if chunks > 1 else "")
    )
    checks = [KernelCheck("train_step", label, row["ms"], estimate.step_time_s * 1e3, STEP_CONSTANTS)]
    if row.get("peak_memory_gb") and estimate.layout is not None:
        needed = plain_loop_need_gb(estimate, model, w, chunks)
        constants = f"{MEMORY_CONSTANTS} ({'chunked' if chunks > 1 else 'unfused'} loss)"
        checks.append(KernelCheck("train_memory", label, row["peak_memory_gb"], needed, constants, "GB"))
        checks += card_memory_check(row, label, needed)
    return checks


def plain_loop_need_gb(estimate: TrainingEstimate, model: ModelSpec, w: TrainingWorkload, chunks: int) -> float:
    """The step peak of the estimate's layout (framework pytorch: gradients freed between steps), with the tensors
    the script's own loop stores: its eager layer (PLAIN_LOOP_LAYER: F.rms_norm, SDPA with enable_gqa) and, for a
    loss in one piece, an unfused loss's logits; the runtime reserve left out."""
    assert estimate.layout is not None
    layout, recipe = estimate.layout, state_recipe(w)
    loss = FRAMEWORK if chunks > 1 else UNFUSED_LOSS_FRAMEWORK
    activations = activation_bytes(
        model, w.seq_len, layout, DEFAULT_TRAINING_EFFICIENCY, FRAMEWORK, PLAIN_LOOP_LAYER, w.method, recipe
    )
    breakdown = {
        **estimate.memory_breakdown_gb,
        "activations": activations / GB,
        "logits": logits_bytes(model, w.seq_len, layout, loss) / GB,
    }
    return memory_needed_gb(breakdown, workload_peak(model, w, layout, estimate.gpu_count))


# Bytes (in 10^9) one catalog GB of the H200 holds: the catalog states NVIDIA's "141 GB", the lent H200 holds about
# 139 GiB (docs in .library/device), 149.3 x 10^9 bytes. Datasheet GB are binary-ish, while the estimator counts needs
# in 10^9 bytes: the card holds ~6 % more than the fit rule counts.
H200_BYTES_PER_CATALOG_GB = 139 * 2**30 / 1e9 / 141


def card_memory_check(row: dict, label: str, needed_gb: float) -> list:
    """The card memory the job took (the allocator's reserved peak, its cache and fragmentation included, plus what
    the process holds outside it: CUDA context, library workspaces) beside the card memory the estimator's fit rule
    asks for the same need, in bytes: (need + runtime reserve) / usable share catalog GB (memory.usable_gb), each
    holding H200_BYTES_PER_CATALOG_GB."""
    phases = row.get("memory_by_phase_gb") or {}
    if "timed_steps_reserved_gb" not in phases or "outside_allocator_gb" not in phases:
        return []
    taken = phases["timed_steps_reserved_gb"] + phases["outside_allocator_gb"]
    asked = (needed_gb + runtime_reserve_gb(1)) / USABLE_HBM_SHARE * H200_BYTES_PER_CATALOG_GB
    return [KernelCheck("train_card_memory", label, taken, asked, CARD_CONSTANTS, "GB")]


def attention_check(
    row: dict, gpu: GpuSpec, models: dict[str, ModelSpec], e: TrainingEfficiency = DEFAULT_TRAINING_EFFICIENCY
) -> KernelCheck | None:
    """One layer's causal attention, forward and backward, beside the time compute_seconds gives it: the model's
    attention FLOPs per token (a third forward, two thirds backward; causal half) over the sequence, for one layer,
    at the step's effective MFU (framework pytorch) times the attention efficiency."""
    model = models.get(row["model"])
    if model is None:
        return None
    peak, precision, _ = peak_tflops(gpu, "bf16")
    if peak is None:
        return None
    mfu = effective_mfu(e, gpu, 1, model, "full_ft", FRAMEWORK, precision) * attention_efficiency(e, gpu)
    flops = attention_flops_per_token(model, row["seq_len"]) * CAUSAL_SHARE * row["seq_len"] / model.layers
    label = (
        f"{model.name} shapes ({row['heads']} heads of {row['head_dim']}), {row['seq_len']} tokens, "
        f"{row['backend'].split()[0]}: {row['tflops']:.0f} TFLOPS executed"
    )
    return KernelCheck(kind_of_attention(row), label, row["ms"], flops / (peak * 1e12 * mfu) * 1e3, ATTENTION_CONSTANTS)


def kind_of_attention(row: dict) -> str:
    """cuDNN's Hopper-native kernels apart from PyTorch's default (FlashAttention-2)."""
    return "train_attention_cudnn" if "CUDNN" in row["backend"] else "train_attention"
