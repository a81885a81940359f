"""Settings that need less memory for the same training run, and the first of them that makes a run fit on GPUs
where it fits nowhere (settings_that_fit: the advice a no-fit reason ends with)."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.choice import fits_at
from app.scoring.training.step.frameworks import NO_MODEL_PARALLEL
from app.scoring.workload import TrainingWorkload

# Settings that need less memory for the same run, least invasive first: 8-bit Adam moments (6 B a trained param
# where mixed-precision AdamW holds 16), a fused or chunked loss (half the logits' peak; torchtune's, in the
# `pytorch` class), both, then optimizer states and gradients in host memory (ZeRO-Offload; slower steps).
FRUGAL_SETTINGS: tuple[tuple[dict[str, str], str], ...] = (
    ({"optimizer": "adamw_8bit"}, "optimizer adamw_8bit"),
    ({"framework": "pytorch"}, "a fused or chunked loss (framework pytorch: torchtune)"),
    (
        {"optimizer": "adamw_8bit", "framework": "pytorch"},
        "optimizer adamw_8bit and a fused or chunked loss (framework pytorch: torchtune)",
    ),
    ({"offload": "cpu"}, "optimizer states in host memory (offload cpu)"),
)


def settings_that_fit(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> str:
    """The first of FRUGAL_SETTINGS, each a change the workload has not made, that makes the run fit on these GPUs
    ('' when none does)."""
    for update, words in FRUGAL_SETTINGS:
        if all(getattr(w, name) == value for name, value in update.items()):
            continue  # already so: no advice
        if any(getattr(w, name) != default for name, default in _DEFAULTS.items() if name in update):
            continue  # the user chose another setting there: leave their stack alone
        if fits_at(gpu, gpu_count, model, w.model_copy(update=update), e):
            return words
    return ""


_DEFAULTS = {"optimizer": "adamw", "framework": "auto", "offload": "none"}


# Stacks that split what FSDP alone cannot hold, for a run on a stack without tensor or pipeline parallelism
# (frameworks.NO_MODEL_PARALLEL): Megatron's TP/PP/CP splits the activations too, HF's DeepSpeed-Ulysses the sequence.
MODEL_PARALLEL_STACKS: tuple[tuple[str, str], ...] = (
    ("megatron", "framework megatron or nemo (tensor, pipeline and context parallelism)"),
    ("hf", "framework hf (DeepSpeed-Ulysses sequence parallelism)"),
)


def stack_that_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> str:
    """For a run on a stack with no TP/PP that fits nowhere on these GPUs, the first stack of MODEL_PARALLEL_STACKS
    it fits on ('' when none does, or the stack splits by TP/PP already)."""
    if w.framework not in NO_MODEL_PARALLEL:
        return ""
    for framework, words in MODEL_PARALLEL_STACKS:
        if framework != w.framework and fits_at(
            gpu, gpu_count, model, w.model_copy(update={"framework": framework}), e
        ):
            return words
    return ""
