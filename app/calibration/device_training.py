"""Training steps timed on a real GPU (benchmarks/device/train_step.py) beside the training estimator.

Each timed run is read as the validation file would state it: one GPU, bf16, the run's sequence length and sequences
per step, activation checkpointing on or off, micro-batch = the sequences per step. The estimator's step time, for
framework "pytorch", is set beside the measured one. The memory its layout needs (weights, gradients, optimizer
states, activations, logits; the runtime reserve left out, as PyTorch's allocator counts only tensors) is set beside
the peak allocated memory, for the loss the script ran: unfused ("auto", 12 B per logit) or in chunks ("pytorch",
torchtune's chunked loss, 6 B). Like the kernel rows, a check of the estimator, not a validation case: the script is
a plain eager loop, not a tuned stack.
"""

from __future__ import annotations

from app.calibration.device_check import KernelCheck
from app.calibration.validate_training import predict_estimate
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.memory import memory_needed_gb

FRAMEWORK = "pytorch"
UNFUSED_LOSS_FRAMEWORK = "auto"  # a plain loop's cross-entropy: the logits' memory of an unfused loss
STEP_CONSTANTS = "mfu_hopper_16 x fw_pytorch x width_factor, attn_efficiency_hopper, step_latency_s_per_layer"
MEMORY_CONSTANTS = "BYTES_MIXED_ADAMW, activation_bytes (Korthikanti), logits bytes per element"


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
    estimate, _, model, _ = result
    chunks = row.get("loss_chunks", 1)
    label = (
        f"{model.name} {row['method'].replace('_', ' ')}, {row['batch_seqs']} x {row['seq_len']} tokens, "
        f"{'every block recomputed' if row.get('recompute') == 'full' else 'no recompute'}"
        + (f", loss in {chunks} chunks" if chunks > 1 else "")
    )
    checks = [KernelCheck("train_step", label, row["ms"], estimate.step_time_s * 1e3, STEP_CONSTANTS)]
    if row.get("peak_memory_gb"):
        if chunks == 1:  # the memory of the loss the script ran: unfused
            result = predict_estimate(case_row(row, gpu, UNFUSED_LOSS_FRAMEWORK), gpus, models)
            if isinstance(result, str):
                return checks
            estimate = result[0]
        needed = memory_needed_gb(estimate.memory_breakdown_gb)
        constants = f"{MEMORY_CONSTANTS} ({'chunked' if chunks > 1 else 'unfused'} loss)"
        checks.append(KernelCheck("train_memory", label, row["peak_memory_gb"], needed, constants, "GB"))
    return checks
