"""Settings that need less memory for the same training run, and the first of them that makes a run fit on GPUs
where it fits nowhere (settings_that_fit: the advice a no-fit reason ends with)."""

from __future__ import annotations

from collections.abc import Callable

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.choice import fits_at
from app.scoring.training.layouts.search_space import data_parallel_only_method
from app.scoring.training.layouts.step_peak import FOREACH_TEMPORARY_BYTES, FUSED_OPTIMIZER_STACKS
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY, NO_MODEL_PARALLEL
from app.scoring.workload import TrainingWorkload
from app.scoring.workload.field_types import QLORA_FRAMEWORKS

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


# Whether the run fits on the GPUs asked about with these settings changed: fits_at of the changed workload, which a
# ranking answers from a memoised search (ranking.layout_search.LayoutSearch.fits_with)
FitsWith = Callable[[dict[str, str]], bool]


def settings_that_fit(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency,
    fits_with: FitsWith | None = None,
) -> str:
    """The first of FRUGAL_SETTINGS, each a change the workload has not made, that makes the run fit on these GPUs
    ('' when none does)."""
    for update, words in FRUGAL_SETTINGS:
        if all(getattr(w, name) == value for name, value in update.items()):
            continue  # already so: no advice
        if any(getattr(w, name) != default for name, default in _DEFAULTS.items() if name in update):
            continue  # the user chose another setting there: leave their stack alone
        if fits_with(update) if fits_with else fits_at(gpu, gpu_count, model, w.model_copy(update=update), e):
            return words
    return ""


_DEFAULTS = {"optimizer": "adamw", "framework": "auto", "offload": "none"}


# Stacks that split what FSDP alone cannot hold, for a run its own stack cannot split the same way (stack_limit):
# Megatron's TP/PP/CP splits the activations too, HF's DeepSpeed-Ulysses the sequence (QLoRA included).
MODEL_PARALLEL_STACKS: tuple[tuple[str, str], ...] = (
    ("megatron", "framework megatron or nemo (tensor, pipeline and context parallelism)"),
    ("hf", "framework hf (DeepSpeed-Ulysses: Ulysses sequence parallelism, SP)"),
)


# The stack with a fused loss and no TP, PP or sequence split (torchtune): where it fits, no split is missing.
FUSED_LOSS_NO_SPLIT = "pytorch"


def stack_limit(w: TrainingWorkload) -> str:
    """What the run's stack cannot split that another may ('' when it splits layers and sequences already): QLoRA runs
    data parallel only off HF and a stack without TP/PP shards no activations (every stack with TP/PP, auto included,
    also splits sequences by ring context parallelism)."""
    if data_parallel_only_method(w.method) and w.framework not in DATA_PARALLEL_ONLY:
        return "qlora runs data parallel only (no tensor, pipeline or context parallelism over NF4 weights)"
    if w.framework in DATA_PARALLEL_ONLY:
        return f"{w.framework} runs no tensor or pipeline parallelism"
    if w.framework in NO_MODEL_PARALLEL:
        why = "its FSDP shards weights and optimizer states, not activations"
        return f"{w.framework} runs no tensor or pipeline parallelism ({why})"
    return ""


def stack_that_fits(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency,
    update_bound: bool = False,
) -> str:
    """For a run that fits nowhere on these GPUs and that its stack cannot split as another can (stack_limit), the
    first other stack of MODEL_PARALLEL_STACKS it fits on ('' when none does, or when a fused loss alone would fit it:
    then the other stack fits by its loss, not by a split, and one GPU splits nothing). `update_bound`: the run's need
    is its optimizer step with foreach AdamW's temporary, so a fused update is part of why the other stack fits."""
    if not stack_limit(w) or gpu_count == 1:
        return ""
    if w.framework != FUSED_LOSS_NO_SPLIT and fits_at(
        gpu, gpu_count, model, w.model_copy(update={"framework": FUSED_LOSS_NO_SPLIT}), e
    ):
        return ""
    for framework, words in MODEL_PARALLEL_STACKS:
        runs_it = w.method != "qlora" or framework in QLORA_FRAMEWORKS  # megatron refuses QLoRA (TrainingWorkload)
        if (
            runs_it
            and framework != w.framework
            and fits_at(gpu, gpu_count, model, w.model_copy(update={"framework": framework}), e)
        ):
            return words + (_fused_update(w, framework) if update_bound else "")
    return ""


def _fused_update(w: TrainingWorkload, framework: str) -> str:
    """Where the other stack's AdamW is one fused kernel and the run's own holds foreach AdamW's temporary, that is
    part of why it fits (step_peak: the optimizer step may be the need, which no split of activations shrinks)."""
    fused = framework in FUSED_OPTIMIZER_STACKS and w.framework not in FUSED_OPTIMIZER_STACKS
    if not fused or not FOREACH_TEMPORARY_BYTES[w.optimizer] or w.offload != "none":
        return ""
    return ", and a fused AdamW that holds no update temporary"
