"""Memory features a training row's notes state, read so its published peak is set beside a like-for-like estimate.

A technique counts where the row names it as its own, or where a cumulative table (torchtune's optimization-flags
table: each row adds its technique to every row above it, case_files.TECHNIQUES_ABOVE) lists it above the row and no
"without ..." clause for the row's rows names it (that table's "LoRA/QLoRA rows on top of the stack but without
optimizer_in_bwd / 8-bit AdamW" speaks of its LoRA and QLoRA rows only).

- A chunked loss is modelled per stack (efficiency.FUSED_LOSS_FRAMEWORKS): a cumulative table's row that does not
  count "Chunked Cross Entropy" ran an unfused loss, and its memory is sized with one.
- Optimizer in backward (torchtune's `optimizer_in_bwd`: each parameter stepped and its gradient freed as soon as it
  is ready, so the whole gradient is never held) and activation offloading (activations copied to host memory in the
  forward) are not modelled: the row's reason says so and the estimate keeps them on the GPU; so is a cumulative
  row's eager mode, above its "+ Compile".
"""

from __future__ import annotations

import re

from app.calibration.training.training_notes import CUMULATIVE_ROW
from app.calibration.training.training_recipes import WITHOUT_CLAUSE
from app.calibration.validation.case_files import TECHNIQUES_ABOVE

CHUNKED_LOSS = re.compile(r"chunked (?:cross[- ]entropy|loss)", re.IGNORECASE)
COMPILED = re.compile(r"\bcompile", re.IGNORECASE)
NOT_MODELLED = {
    "optimizer in backward": re.compile(
        r"optimizer_in_bwd|optimi[sz]er (?:step )?(?:in|into) (?:the )?backward", re.IGNORECASE
    ),
    "activation offloading": re.compile(r"activation offloading|offload(?:ed|ing)? activations", re.IGNORECASE),
}


# A "without ..." clause with the rows it speaks of before it: "LoRA/QLoRA rows on top of the stack but without ...".
SCOPED_WITHOUT = re.compile(r"([^;(]*?)\bwithout ([^;)]*)", re.IGNORECASE)
METHOD_WORDS = {"lora": "lora", "qlora": "qlora", "full_ft": "full", "pretrain": "pretrain"}


def _excluded(notes: str, method: str) -> str:
    """The "without" clauses that apply to a row of `method`: those naming no rows, and those naming its method's."""
    word = METHOD_WORDS.get(method, method)
    return " ".join(
        what for scope, what in SCOPED_WITHOUT.findall(notes) if " rows" not in scope or word in scope.lower()
    )


def states_technique(notes: str, pattern: re.Pattern[str], method: str = "") -> bool:
    """The row ran the technique: its own notes name it outside a "without" clause, or it is listed above the row in
    a cumulative table and no "without" clause for rows of its `method` excludes it."""
    own, _, above = notes.partition(TECHNIQUES_ABOVE)
    if pattern.search(WITHOUT_CLAUSE.sub("", own)):
        return True
    return bool(pattern.search(above)) and not pattern.search(_excluded(notes, method))


def unfused_loss_stated(notes: str) -> bool:
    """A cumulative table's row that ran without its chunked loss (the rows above "+ Chunked Cross Entropy")."""
    return CUMULATIVE_ROW.search(notes.lower()) is not None and not states_technique(notes, CHUNKED_LOSS)


def unmodelled_memory_features(notes: str, method: str) -> list[str]:
    """The memory features a row of `method` ran that the estimator does not model, in NOT_MODELLED's words, and a
    cumulative table's row above its "+ Compile" as eager mode (PyTorch's eager norms, rotary embeddings and gated MLP
    keep intermediates a compiled graph fuses away; the activation count is of fused kernels)."""
    stated = [name for name, pattern in NOT_MODELLED.items() if states_technique(notes, pattern, method)]
    if CUMULATIVE_ROW.search(notes.lower()) and not states_technique(notes, COMPILED, method):
        stated.append("eager mode (no torch.compile)")
    return stated
