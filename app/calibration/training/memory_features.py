"""Memory features a training row's notes state, read so its published peak is set beside a like-for-like estimate.

A technique counts where the row names it as its own, or where a cumulative table (torchtune's optimization-flags
table: each row adds its technique to every row above it, case_files.TECHNIQUES_ABOVE) lists it above the row and no
"without ..." clause for the row's rows names it (that table's "LoRA/QLoRA rows on top of the stack but without
optimizer_in_bwd / 8-bit AdamW" speaks of its LoRA and QLoRA rows only).

- A chunked loss is modelled per stack (efficiency.FUSED_LOSS_FRAMEWORKS): a cumulative table's row that does not
  count "Chunked Cross Entropy" ran an unfused loss, and its memory is sized with one.
- Optimizer in backward (torchtune's `optimizer_in_bwd`: each parameter stepped and its gradient freed as soon as it
  is ready, so the whole gradient is never held) and activation offloading (activations copied to host memory in the
  forward) are the workload's options of those names (stated_memory_options): a row that states them runs with them,
  where its stack takes them (the optimizer step in the backward on pytorch and torchtitan, without an offloaded
  optimizer); otherwise the row's reason says they are not modelled and the estimate keeps them on the GPU.
- FSDP's CPU offload keeps the sharded weights in host memory too (FSDP_OFFLOAD_STACKS): the product's offload
  "cpu_weights", with which the validator sizes such a row's memory (its tokens/s stays priced as offload "cpu", the
  reading its fitted constants were refitted on).
- Eager mode is modelled on the stacks that run uncompiled by default (layouts/eager_activations: torchtune's and
  HF Trainer's layers store what their eager ops save), so a cumulative row above its "+ Compile" is sized with
  torchtune's eager layer; on another stack it is not modelled and said so. A row that ran compiled (its notes or the
  rows above it state torch.compile) or on a stack that swaps fused kernels into every layer (FUSED_KERNEL_STACKS)
  stores the fused count: fused_layers_stated, which the validator applies (TrainingEfficiency.eager_layer_share 0)
  to the search and the memory check alike.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from app.calibration.training.training_notes import CUMULATIVE_ROW, ran_eager, stack_in_notes
from app.calibration.training.training_recipes import WITHOUT_CLAUSE
from app.calibration.validation.case_files import TECHNIQUES_ABOVE
from app.scoring.workload.field_types import OPTIMIZER_IN_BACKWARD_FRAMEWORKS

PADDED_BATCHES = "padded batches shorter than seq_len"
CHUNKED_LOSS = re.compile(r"chunked (?:cross[- ]entropy|loss)", re.IGNORECASE)
COMPILED = re.compile(r"\bcompile", re.IGNORECASE)
NOT_MODELLED = {
    "optimizer in backward": re.compile(
        r"optimizer_in_bwd|optimi[sz]er (?:step )?(?:in|into) (?:the )?backward", re.IGNORECASE
    ),
    "activation offloading": re.compile(r"activation offloading|offload(?:ed|ing)? activations", re.IGNORECASE),
    # Unpacked fine-tuning batches padded to their longest sample (torchtune's padded collate): seq_len is the cap,
    # not the length run, and no row states the length; the activations and logits are sized at the cap.
    PADDED_BATCHES: re.compile(r"not packed|padded batch", re.IGNORECASE),
}

# Stacks whose CPU offload is FSDP's, which moves the sharded weights to host memory with the gradients and optimizer
# states (FSDP2 CPUOffloadPolicy, FSDP1 CPUOffload(offload_params=True)) and copies each layer's up for its compute:
# torchtune, which the "pytorch" stack stands for (its distributed recipes' one CPU offload is fsdp_cpu_offload, "CPU
# offload of parameters, gradients, and optimizer states": full_finetune_distributed.py, torchtune 0.3.0;
# training/_distributed.py passes CPUOffloadPolicy()), and torchtitan (FSDP2). The product's offload "cpu" is
# ZeRO-Offload's (DeepSpeed offload_optimizer): the GPU keeps its shard of the bf16 weights (layouts/optimizer.py).
FSDP_OFFLOAD_STACKS = frozenset({"pytorch", "torchtitan"})
FSDP_WEIGHT_OFFLOAD = "FSDP's CPU offload of the weights"

# Stacks a row's notes name (training_notes.STACKS_IN_NOTES) that run an eager stack's layers with fused kernels.
# XTuner (InternLM/xtuner, xtuner/model/modules/dispatch/__init__.py): dispatch_modules, called when its
# SupervisedFinetune wraps the model, replaces LlamaRMSNorm's and InternLM(2)RMSNorm's forward with its Triton
# rms_norm_forward (RMS_DISPATCH_MAPPING) and the Llama/InternLM attention forwards with flash-attn's
# (ATTN_DISPATCH_MAPPING; _prepare_for_flash_attn sets attn_implementation "flash_attention_2" where flash_attn is
# installed, as its sequence-parallel configs require): its rows, read as hf, store the fused count.
FUSED_KERNEL_STACKS = {"xtuner": "XTuner's fused RMSNorm and flash-attention kernels"}


# A "without ..." clause with the rows it speaks of before it: "LoRA/QLoRA rows on top of the stack but without ...".
SCOPED_WITHOUT = re.compile(r"([^;(]*?)\bwithout ([^;)]*)", re.IGNORECASE)
METHOD_WORDS = {"lora": "lora", "qlora": "qlora", "full_ft": "full", "pretrain": "pretrain"}


def _excluded(notes: str, method: str) -> str:
    """The "without" clauses that apply to a row of `method`: those naming no rows, and those naming its method's
    (a row whose method is not given: those naming no rows only)."""
    word = METHOD_WORDS.get(method, method)
    return " ".join(
        what
        for scope, what in SCOPED_WITHOUT.findall(notes)
        if " rows" not in scope or (word and word in scope.lower())
    )


def states_technique(notes: str, pattern: re.Pattern[str], method: str = "") -> bool:
    """The row ran the technique: its own notes name it outside a "without" clause, or it is listed above the row in
    a cumulative table and no "without" clause for rows of its `method` excludes it."""
    own, _, above = notes.partition(TECHNIQUES_ABOVE)
    if pattern.search(WITHOUT_CLAUSE.sub("", own)):
        return True
    return bool(pattern.search(above)) and not pattern.search(_excluded(notes, method))


def unfused_loss_stated(notes: str, method: str = "") -> bool:
    """A cumulative table's row of `method` that ran without its chunked loss (the rows above "+ Chunked Cross
    Entropy", or a "without" clause for its method's rows naming it)."""
    return CUMULATIVE_ROW.search(notes.lower()) is not None and not states_technique(notes, CHUNKED_LOSS, method)


def fused_layers_stated(row: dict[str, str]) -> str | None:
    """Why the row's layers store the fused count though its stack runs eager by default: a stack of
    FUSED_KERNEL_STACKS, or torch.compile named in its notes (its own, or above it in a cumulative table) and no
    eager run stated (training_notes.ran_eager: "no compile", a cumulative row above "+ Compile"); None otherwise.
    Not states_technique: its "without" clause runs to the next ";" and would swallow the 2024-09 table's
    "batch size 2 without grad accumulation, dataset packed to 2048, torch.compile"."""
    stack = stack_in_notes(row)
    if stack in FUSED_KERNEL_STACKS:
        return FUSED_KERNEL_STACKS[stack]
    if COMPILED.search(row.get("notes") or "") and not ran_eager(row):
        return "torch.compile"
    return None


# The workload option each of NOT_MODELLED's techniques is, when the row's stack takes it (TrainingWorkload).
WORKLOAD_OPTIONS = {"optimizer in backward": "optimizer_in_backward", "activation offloading": "activation_offload"}


def stated_memory_options(notes: str, method: str, framework: str, offload: str) -> dict[str, bool]:
    """The workload options (WORKLOAD_OPTIONS) a row of `method` states and its stack takes: activation offloading
    anywhere, the optimizer step in the backward on OPTIMIZER_IN_BACKWARD_FRAMEWORKS without an offloaded optimizer."""
    options = {}
    for name, option in WORKLOAD_OPTIONS.items():
        takes = option != "optimizer_in_backward" or (
            framework in OPTIMIZER_IN_BACKWARD_FRAMEWORKS and offload == "none"
        )
        if takes and states_technique(notes, NOT_MODELLED[name], method):
            options[option] = True
    return options


def unmodelled_memory_features(
    notes: str, method: str, eager_counted: bool = False, taken: Collection[str] = ()
) -> list[str]:
    """The memory features a row of `method` ran that the estimator does not model, in NOT_MODELLED's words (those
    whose workload option is `taken` are modelled), and a cumulative table's row above its "+ Compile" as eager mode
    where its stack's eager layer is not `eager_counted` (PyTorch's eager norms, rotary embeddings and gated MLP keep
    intermediates a compiled graph fuses away)."""
    stated = [
        name
        for name, pattern in NOT_MODELLED.items()
        if WORKLOAD_OPTIONS.get(name) not in taken and states_technique(notes, pattern, method)
    ]
    eager = CUMULATIVE_ROW.search(notes.lower()) and not states_technique(notes, COMPILED, method)
    if eager and not eager_counted:
        stated.append("eager mode (no torch.compile)")
    return stated


def fsdp_weight_offload(framework: str, offload: str, zero_stage: int) -> bool:
    """A CPU offload read from the notes that ran as FSDP's, the weights offloaded too: on a stack of
    FSDP_OFFLOAD_STACKS, at a layout that shards the weights (ZeRO-3, FSDP)."""
    return offload == "cpu" and framework in FSDP_OFFLOAD_STACKS and zero_stage >= 3
