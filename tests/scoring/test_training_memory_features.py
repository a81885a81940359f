"""Memory features the validation notes state (found by peak): torchtune's optimization-flags table adds a chunked loss,
optimizer in backward and activation offloading row by row; the validator sized every row with the stack's chunked
loss and said nothing of the two it does not model."""

from __future__ import annotations

import pytest

from app.calibration.training.memory_features import unfused_loss_stated, unmodelled_memory_features
from app.calibration.training.validate_training import predict_estimate, predict_training_case
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.layouts.memory import runtime_reserve_gb

TABLE = "framework: torchtune single device; Optimization-flags table, cumulative technique '{own}'{without}"
LADDER = ["Baseline", "+ Packed Dataset", "+ Compile", "+ Chunked Cross Entropy", "+ Activation Checkpointing"]
LADDER += ["+ Fuse optimizer step into backward", "+ Activation Offloading", "+ 8-bit AdamW", "LoRA"]
WITHOUT = " (LoRA/QLoRA rows on top of the stack but without optimizer_in_bwd / 8-bit AdamW)"


def _notes(own: str) -> str:
    above = LADDER[: LADDER.index(own)]
    notes = TABLE.format(own=own, without=WITHOUT) + "; batch 2, max seq 4096, bf16; peak active mem 60.0 GiB"
    return notes + (f"; techniques above it in the cumulative table: {', '.join(above)}" if above else "")


@pytest.mark.parametrize(("own", "unfused"), [(t, LADDER.index(t) < 3) for t in LADDER])
def test_rows_above_the_chunked_loss_ran_an_unfused_one(own: str, unfused: bool) -> None:
    assert unfused_loss_stated(_notes(own)) is unfused


def test_a_row_outside_a_cumulative_table_keeps_its_stacks_loss() -> None:
    assert not unfused_loss_stated("framework: torchtune; batch size 2 without grad accumulation; peak mem/GPU 16 GiB")


@pytest.mark.parametrize(
    ("own", "method", "features"),
    [
        ("+ Packed Dataset", "full_ft", ["eager mode (no torch.compile)"]),
        ("+ Activation Checkpointing", "full_ft", []),
        ("+ Fuse optimizer step into backward", "full_ft", ["optimizer in backward"]),
        (
            "+ 8-bit AdamW",
            "full_ft",
            ["optimizer in backward", "activation offloading"],
        ),  # the clause is the LoRA rows'
        ("LoRA", "lora", ["activation offloading"]),  # on the stack, but "without optimizer_in_bwd"
    ],
)
def test_unmodelled_features_are_read_cumulatively_and_excluded_by_a_without_clause(own, method, features) -> None:
    assert unmodelled_memory_features(_notes(own), method) == features


ROW = {
    "case_id": "nt-90003-1",
    "source": "torchtune-readme",
    "framework": "pytorch",
    "gpu": "A100-SXM-80GB",
    "gpu_count": "1",
    "model": "llama-3.2-3b",
    "method": "full_ft",
    "precision": "bf16",
    "seq_len": "4096",
    "global_batch_seqs": "2",
    "metric": "tokens_s_per_gpu",
    "value": "7075",
}


def test_the_memory_check_sizes_an_unfused_loss_and_the_reason_says_so() -> None:
    gpus, models = load_gpu_specs(), load_model_specs()
    unfused = {**ROW, "notes": _notes("+ Compile")}
    est = predict_estimate(unfused, gpus, models)[0]
    case = predict_training_case(unfused, gpus, models)
    assert case.memory is not None
    chunked_need = est.memory_per_gpu_gb - runtime_reserve_gb(1)
    # 12 B against 6 B per logit, 2 x 4,096 tokens x 128,256 vocabulary: 6.3 GB more at the backward's start
    assert case.memory.predicted_gb - chunked_need == pytest.approx(2 * 4096 * 128256 * 6 / 1e9, rel=1e-6)
    assert "memory sized with an unfused loss" in case.reason


def test_the_reason_names_features_stated_but_not_modelled() -> None:
    gpus, models = load_gpu_specs(), load_model_specs()
    case = predict_training_case({**ROW, "notes": _notes("+ 8-bit AdamW")}, gpus, models)
    assert "optimizer in backward, activation offloading stated but not modelled" in case.reason
    assert "unfused" not in case.reason
