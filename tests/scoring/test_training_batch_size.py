"""A pretraining run at the fine-tuning default batch says so, beside the batch it was ranked at."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_model_specs
from app.scoring.training.run.batch_size import global_batch, typical_pretrain_batch
from app.scoring.workload import TrainingWorkload

MODELS = load_model_specs()


@pytest.mark.parametrize(
    ("params_b", "tokens", "read_at"),
    [(0.125, 0.5e6, 0.125), (1.0, 1e6, 1.3), (8.0, 2e6, 6.7), (70.0, 3.2e6, 175.0), (405.0, 3.2e6, 175.0)],
)
def test_the_typical_pretraining_batch_is_gpt3s_at_the_nearest_size(params_b: float, tokens: float, read_at: float):
    typical = typical_pretrain_batch(params_b, 4096)
    assert (typical.tokens, typical.read_at_params_b) == (tokens, read_at)
    assert typical.sequences == round(tokens / 4096)


def test_a_70b_pretrain_at_the_default_batch_gets_a_note_with_the_typical_batch():
    w = TrainingWorkload(model="llama-3.1-70b", method="pretrain", total_tokens=1e12)
    batch = global_batch(MODELS["llama-3.1-70b"], w)
    assert (batch.sequences, batch.tokens, batch.default) == (64, 262_144, True)
    assert batch.why == "the default (64 sequences), small for pretraining"  # it read "a fine-tuning batch"
    assert batch.typical is not None and batch.typical.sequences == 781
    assert batch.note.startswith("Global batch 64 sequences × 4,096 tokens = 262,144 tokens per step, the default")
    assert "3.2M at GPT-3 175B (Brown et al. 2020, Table 2.1)" in batch.note and "781 sequences" in batch.note


def test_no_note_for_fine_tuning_nor_for_a_pretraining_batch_near_the_typical_one():
    model = MODELS["llama-3.1-70b"]
    fine_tune = global_batch(model, TrainingWorkload(model="llama-3.1-70b", method="full_ft"))
    assert fine_tune.note == "" and fine_tune.typical is None and fine_tune.default
    assert fine_tune.why == "the default (64 sequences), a fine-tuning batch"
    near = global_batch(model, TrainingWorkload(model="llama-3.1-70b", method="pretrain", global_batch_seqs=400))
    assert near.note == "" and near.why == "as given"  # 1.6M tokens: within 2x of 3.2M
    small = global_batch(model, TrainingWorkload(model="llama-3.1-70b", method="pretrain", global_batch_seqs=128))
    assert small.note and ", as given. Pretraining batches" in small.note


def test_the_ranking_carries_the_note():
    from app.scoring.specs import CatalogSnapshot
    from app.scoring.training.ranking.rank import rank_training

    w = TrainingWorkload(model="llama-3.1-70b", method="pretrain", total_tokens=1e12)
    ranking = rank_training(w, CatalogSnapshot(gpus={}, offers=()), MODELS["llama-3.1-70b"])
    assert any(n.startswith("Global batch 64 sequences") for n in ranking.notes)
