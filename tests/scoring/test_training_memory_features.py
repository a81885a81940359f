"""Memory features the validation notes state (found by peak): torchtune's optimization-flags table adds a chunked loss,
optimizer in backward and activation offloading row by row; the validator sized every row with the stack's chunked
loss and said nothing of the two it does not model."""

from __future__ import annotations

import pytest

from app.calibration.training.memory_features import (
    fused_layers_stated,
    unfused_loss_stated,
    unmodelled_memory_features,
)
from app.calibration.training.validate_training import predict_estimate, predict_training_case
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.layouts.memory import GB, activation_bytes, runtime_reserve_gb

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


def test_the_reason_names_features_stated_and_how_they_are_sized() -> None:
    """trainmem: both are workload options now; the optimizer step in the backward only where the stack takes it."""
    gpus, models = load_gpu_specs(), load_model_specs()
    case = predict_training_case({**ROW, "notes": _notes("+ 8-bit AdamW")}, gpus, models)
    assert "optimizer in backward, activation offloading stated: sized with them" in case.reason
    assert "not modelled" not in case.reason and "unfused" not in case.reason
    on_hf = predict_training_case({**ROW, "framework": "hf", "notes": _notes("+ 8-bit AdamW")}, gpus, models)
    assert "activation offloading stated: sized with them" in on_hf.reason
    assert "optimizer in backward stated but not modelled" in on_hf.reason


# The 2024-09 table's own words: its "without" clause runs on to "torch.compile" (found by peak3).
COMPILED_TABLE = (
    "framework: torchtune; Memory-and-training-speed table: batch size 2 without grad accumulation, dataset packed "
    "to 2048, torch.compile; peak mem/GPU 16.2 GiB"
)
XTUNER = "framework: XTuner (DeepSpeed ZeRO-3, sp8); peak memory not published"


@pytest.mark.parametrize(
    ("framework", "notes", "fused"),
    [
        ("pytorch", _notes("+ Packed Dataset"), None),  # above "+ Compile": eager
        ("pytorch", _notes("+ Compile"), "torch.compile"),
        ("pytorch", _notes("+ Activation Checkpointing"), "torch.compile"),  # compile listed above it
        ("pytorch", COMPILED_TABLE, "torch.compile"),
        ("torchtitan", "framework: torchtitan FSDP2; selective AC; no compile", None),
        ("other", XTUNER, "XTuner's fused RMSNorm and flash-attention kernels"),
        ("other", "framework: LLaMA-Factory; peak memory not published", None),
    ],
)
def test_compiled_rows_and_fused_kernel_stacks_store_the_fused_count(framework, notes, fused) -> None:
    """peak2 sized every torchtune and hf row with its stack's eager layer: XTuner rows (read as hf) and compiled
    torchtune rows too, which moved two XTuner rows' searched layouts and their tokens/s (found by peak3)."""
    assert fused_layers_stated({"framework": framework, "notes": notes}) == fused


def test_a_compiled_row_is_sized_with_the_fused_count_an_eager_one_with_torchtunes_layer() -> None:
    gpus, models = load_gpu_specs(), load_model_specs()
    model = models["llama-3.2-3b"]
    for own, eager in (("+ Packed Dataset", True), ("+ Compile", False)):
        row = {**ROW, "notes": _notes(own)}
        est, _, _, w = predict_estimate(row, gpus, models)
        fused = activation_bytes(model, 4096, est.layout, E, "pytorch") / GB
        assert (est.memory_breakdown_gb["activations"] > fused * 1.05) is eager, own
        assert (est.memory_breakdown_gb["activations"] == pytest.approx(fused)) is not eager, own
        case = predict_training_case(row, gpus, models)
        assert ("torch.compile: activations sized with the fused count" in case.reason) is not eager
        assert "eager mode" not in case.reason  # torchtune's eager layer is modelled


def test_eager_mode_is_unmodelled_only_where_the_stack_has_no_eager_layer() -> None:
    assert unmodelled_memory_features(_notes("+ Packed Dataset"), "full_ft", eager_counted=True) == []


def test_a_without_clause_for_lora_rows_leaves_a_full_fine_tunes_loss_alone() -> None:
    """A clause scoped to a table's LoRA rows ("LoRA rows on top of the stack but without chunked cross entropy")
    was applied to every row when the loss was read (no method given: every scope matched the empty word), so a
    full fine-tune below "+ Chunked Cross Entropy" read as running an unfused loss."""
    notes = (
        "framework: torchtune single device; Optimization-flags table, cumulative technique '+ Activation "
        "Checkpointing' (LoRA rows on top of the stack but without chunked cross entropy); batch 2; techniques above "
        "it in the cumulative table: Baseline, + Packed Dataset, + Compile, + Chunked Cross Entropy"
    )
    assert not unfused_loss_stated(notes, "full_ft")
    assert unfused_loss_stated(notes, "lora")
    assert not unfused_loss_stated(notes)  # no method: only a clause naming no rows applies
