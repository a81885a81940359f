"""The global batch a training run is ranked at, in words, and how it compares with published pretraining batches.

The workload's default batch (64 sequences) is a fine-tuning batch. Pretraining batches are millions of tokens,
and a batch far smaller leaves each GPU little work per step, so communication and pipeline bubbles weigh more:
the ranking says so, beside the batch it used, rather than change a default that links and saved comparisons
rest on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.scoring.explain import fixed, significant
from app.scoring.specs import ModelSpec
from app.scoring.workload import TrainingWorkload

# GPT-3's global batch by model size, (parameters in billions, batch in tokens): Brown et al. 2020, "Language Models
# are Few-Shot Learners", Table 2.1 (https://arxiv.org/abs/2005.14165). Later runs went larger (LLaMA: 4M tokens at
# 7B-65B, Touvron et al. 2023, Table 2, https://arxiv.org/abs/2302.13971; Llama 3: 16M, shared/research/
# training_estimators.md §1.4), so these are a typical batch at the low end, not a ceiling.
GPT3_BATCH_TOKENS = (
    (0.125, 0.5e6),
    (0.35, 0.5e6),
    (0.76, 0.5e6),
    (1.3, 1e6),
    (2.7, 1e6),
    (6.7, 2e6),
    (13.0, 2e6),
    (175.0, 3.2e6),
)
GPT3_SOURCE = "Brown et al. 2020, Table 2.1"
LLAMA_WORDS = "4M for LLaMA at 7B-65B (Touvron et al. 2023, Table 2)"
# Under half the typical batch is worth a note: within 2x is a choice, beyond it the default was likely kept.
FAR_BELOW = 0.5
DEFAULT_GLOBAL_BATCH_SEQS = TrainingWorkload.model_fields["global_batch_seqs"].default


@dataclass(frozen=True, slots=True)
class TypicalBatch:
    tokens: float
    sequences: int  # at the workload's sequence length
    read_at_params_b: float  # the GPT-3 size it is read at


@dataclass(frozen=True, slots=True)
class GlobalBatch:
    """The batch a ranking used and why; for pretraining far below a typical batch, that batch and a note."""

    sequences: int
    tokens: int
    default: bool
    why: str
    typical: TypicalBatch | None = None
    note: str = ""


def typical_pretrain_batch(params_b: float, seq_len: int) -> TypicalBatch:
    """GPT-3's batch at the size nearest the model's (in log scale)."""
    size, tokens = min(GPT3_BATCH_TOKENS, key=lambda row: abs(math.log(row[0] / max(params_b, 1e-3))))
    return TypicalBatch(tokens=tokens, sequences=max(1, round(tokens / seq_len)), read_at_params_b=size)


def _size(params_b: float) -> str:
    return f"{significant(params_b * 1000)}M" if params_b < 1 else f"{significant(params_b)}B"


def _default_words(method: str) -> str:
    """The default batch named by the run's method: sized for fine-tuning, so small for a pretraining run."""
    return "small for pretraining" if method == "pretrain" else "a fine-tuning batch"


def global_batch(model: ModelSpec, w: TrainingWorkload) -> GlobalBatch:
    tokens = w.global_batch_seqs * w.seq_len
    default = w.global_batch_seqs == DEFAULT_GLOBAL_BATCH_SEQS
    why = f"the default ({DEFAULT_GLOBAL_BATCH_SEQS} sequences), {_default_words(w.method)}" if default else "as given"
    batch = GlobalBatch(sequences=w.global_batch_seqs, tokens=tokens, default=default, why=why)
    if w.method != "pretrain":
        return batch
    typical = typical_pretrain_batch(model.params_b, w.seq_len)
    if tokens >= FAR_BELOW * typical.tokens:
        return batch
    note = (
        f"Global batch {w.global_batch_seqs:,} sequences × {w.seq_len:,} tokens = {tokens:,} tokens per step, {why}. "
        f"Pretraining batches are millions of tokens: {significant(typical.tokens / 1e6)}M at GPT-3 "
        f"{_size(typical.read_at_params_b)} ({GPT3_SOURCE}), {LLAMA_WORDS}. A batch this small leaves each "
        "GPU little work per step, so communication and pipeline bubbles weigh more; a larger one also changes the "
        f"optimisation, which is yours to judge. The same ranking at {typical.sequences:,} sequences "
        f"({fixed(typical.sequences * w.seq_len / 1e6, 1)}M tokens) shows what it buys."
    )
    return GlobalBatch(w.global_batch_seqs, tokens, default, why, typical, note)
