"""The optimizer recipe a training case ran with, as its notes state it (general patterns), else its stack's default.

- "8-bit AdamW", "PagedAdamW8bit", "adamw8bit" -> adamw_8bit; a "without ..." clause naming it wins over the
  techniques above a row in a cumulative table (torchtune's LoRA rows sit on that stack without 8-bit AdamW).
- "CPU offload", "optimizer offloaded to the CPU" -> offload cpu ("activation offloading" is not the optimizer's).
- A stack named after "framework:" whose recipes train in pure bf16 (PURE_BF16_STACKS) -> adamw_bf16.
- A paged 8-bit optimizer (bitsandbytes' paged optimizers: CUDA unified memory the driver evicts to host memory
  under pressure, QLoRA paper §3) stays on the GPU where it fits and is offloaded where it does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.calibration.validation.case_files import TECHNIQUES_ABOVE

EIGHT_BIT_ADAM = re.compile(r"8-?bit adam|adamw_?8 ?bit|paged ?adamw ?8", re.IGNORECASE)
CPU_OFFLOAD = re.compile(r"\bcpu[- ]offload|optimizer (?:states? )?offload|offload(?:ed|s)? (?:the )?optimizer", re.I)
WITHOUT_CLAUSE = re.compile(r"\bwithout [^;)]*", re.IGNORECASE)
FRAMEWORK_NAMED = re.compile(r"framework: ([^;(]+)")

# torchtune trains in pure bf16: its recipes load the model in `dtype: bf16` and step the optimizer on those weights,
# with no fp32 master copy (torchtune has no mixed-precision mode; its README's Llama 3.2 3B full fine-tune peaks at
# 24.9 GiB with activation checkpointing, where 16 B/param alone would be 51 GB).
PURE_BF16_STACKS = ("torchtune",)
# Not read into a row whose notes do not say so: torchtune's single-device full fine-tune config of 2024-09
# (bitsandbytes' PagedAdamW8bit with the step fused into backward) behind its README's 8B rows on one RTX 4090 and one
# RTX A6000 (nt-00039/40). Their notes name neither; the A6000's 37.4 GiB peak is no paged run, and the fused step
# (no gradients held) is not modelled. Covered through that config, both land at -62 % on the RTX cards' compute, as
# the covered RTX LoRA rows do (nt-00041: -64 %).


@dataclass(frozen=True, slots=True)
class CaseRecipe:
    """The optimizer and offload a case ran; paged: an 8-bit optimizer in unified memory (offloaded if it must)."""

    optimizer: str = "adamw"
    offload: str = "none"
    paged: bool = False


def named_stack(notes: str) -> str:
    """The stack the notes name after "framework:", lower case ("" if none)."""
    match = FRAMEWORK_NAMED.search(notes)
    return match.group(1).strip().lower() if match else ""


def _eight_bit(notes: str) -> bool:
    own, _, above = notes.partition(TECHNIQUES_ABOVE)
    excluded = " ".join(WITHOUT_CLAUSE.findall(notes))
    if EIGHT_BIT_ADAM.search(WITHOUT_CLAUSE.sub("", own)):
        return True
    return bool(EIGHT_BIT_ADAM.search(above)) and not EIGHT_BIT_ADAM.search(excluded)


def recipe_from_notes(row: dict[str, str]) -> CaseRecipe:
    """The row's optimizer recipe: stated in its notes, else the default of the stack they name, else adamw."""
    notes = row.get("notes") or ""
    offload = "cpu" if CPU_OFFLOAD.search(WITHOUT_CLAUSE.sub("", notes)) else "none"
    stack = named_stack(notes)
    if _eight_bit(notes):
        return CaseRecipe("adamw_8bit", offload, paged="paged" in notes.lower())
    if any(s in stack for s in PURE_BF16_STACKS):
        return CaseRecipe("adamw_bf16", offload)
    return CaseRecipe("adamw", offload)
