"""The validator reads the optimizer recipe a case's notes state (general patterns), else its stack's default."""

import re
from pathlib import Path

import pytest

from app.calibration.training.training_recipes import CaseRecipe, recipe_from_notes
from app.calibration.training.validate_training import predict_estimate, predict_training_case, read_row
from app.calibration.validation.case_files import read_cases
from app.catalog.spec_files import load_gpu_specs, load_model_specs

CASES = Path(__file__).resolve().parents[2].parent / "shared" / "validation" / "training_cases.csv"


def row(notes: str, method: str = "full_ft", gpu_count: str = "8") -> dict[str, str]:
    return {"notes": notes, "method": method, "gpu_count": gpu_count}


def test_stated_recipes_are_read_by_general_patterns():
    assert recipe_from_notes(row("framework: DeepSpeed; 8-bit AdamW")) == CaseRecipe("adamw_8bit")
    assert recipe_from_notes(row("optimizer bnb PagedAdamW8bit")) == CaseRecipe("adamw_8bit", paged=True)
    assert recipe_from_notes(row("peak 13.9 GiB (CPU offload with fused optimizer)")).offload == "cpu"
    assert recipe_from_notes(row("activation offloading; FSDP")) == CaseRecipe()  # activations are not the optimizer
    assert recipe_from_notes(row("framework: Megatron-LM; TP8")) == CaseRecipe()


def test_a_without_clause_wins_over_the_techniques_of_a_cumulative_table():
    above = "; techniques above it in the cumulative table: + Compile, + 8-bit AdamW"
    lora = row("rows on top of the stack but without optimizer_in_bwd / 8-bit AdamW)" + above, "lora")
    assert recipe_from_notes(lora).optimizer == "adamw"
    own = row("cumulative technique '+ 8-bit AdamW' (LoRA rows without optimizer_in_bwd / 8-bit AdamW)")
    assert recipe_from_notes(own).optimizer == "adamw_8bit"


def test_torchtune_trains_in_pure_bf16_unless_its_notes_say_otherwise():
    assert recipe_from_notes(row("framework: torchtune; batch size 2")) == CaseRecipe("adamw_bf16")
    assert recipe_from_notes(row("framework: torchtune; batch 2", gpu_count="1")) == CaseRecipe("adamw_bf16")
    assert recipe_from_notes(row("framework: torchtune; PagedAdamW8bit", gpu_count="1")).optimizer == "adamw_8bit"
    said_without = row("framework: torchtune single device; without optimizer_in_bwd / 8-bit AdamW)", gpu_count="1")
    assert recipe_from_notes(said_without).optimizer == "adamw_bf16"


def test_a_paged_8bit_optimizer_spills_to_host_memory_only_where_it_must():
    gpus, models = load_gpu_specs(), load_model_specs()
    cells = {
        "case_id": "x",
        "source": "s",
        "framework": "pytorch",
        "gpu_count": "1",
        "model": "llama-3.1-8b",
        "method": "full_ft",
        "precision": "bf16",
        "seq_len": "2048",
        "global_batch_seqs": "2",
        "metric": "tokens_s_per_gpu",
        "value": "1650",
        "notes": "optimizer PagedAdamW8bit; activation checkpointing True",
    }
    on_a_4090 = predict_estimate({**cells, "gpu": "RTX-4090"}, gpus, models)
    on_an_h100 = predict_estimate({**cells, "gpu": "H100-SXM"}, gpus, models)
    assert not isinstance(on_a_4090, str) and not isinstance(on_an_h100, str)
    assert on_a_4090[3].offload == "cpu" and on_an_h100[3].offload == "none"  # 48 GB of states fit an H100 only


def test_a_per_device_batch_without_accumulation_sets_an_empty_global_batch():
    cells = {
        "case_id": "x",
        "gpu": "A100-SXM-80GB",
        "gpu_count": "8",
        "model": "llama-3.1-70b",
        "method": "lora",
        "precision": "bf16",
        "seq_len": "2048",
        "global_batch_seqs": "",
        "notes": "framework: torchtune; batch size 2 without grad accumulation",
    }
    workload, _, assumed = read_row(cells)
    assert workload.global_batch_seqs == 16 and "2 per GPU without accumulation × 8 GPUs" in assumed[0]
    assert read_row({**cells, "global_batch_seqs": "64"})[0].global_batch_seqs == 64  # a stated cell wins


@pytest.mark.skipif(not CASES.exists(), reason="../shared/validation is not present")
def test_the_assumptions_multiply_with_the_times_sign():
    """The notes read "2 per GPU without accumulation x 8 GPUs" beside the terms' "6 × params" (found by leftovers9)."""
    notes = [note for case in read_cases(CASES) if case.get("seq_len") for note in read_row(case)[2]]
    assert any("without accumulation" in note for note in notes)
    for note in notes:
        assert not re.search(r"[\w)] x [\w({]", note), note


@pytest.mark.skipif(not CASES.exists(), reason="../shared/validation is not present")
def test_torchtune_full_fine_tunes_are_read_with_their_recipe():
    """nt-00044 (70B on 8 A100s, "CPU offload with fused optimizer") was refused at 142 GB per GPU; nt-00039 (8B on one
    RTX 4090), whose notes name no optimizer, is refused at torchtune's pure-bf16 8 B/param, not 16."""
    gpus, models = load_gpu_specs(), load_model_specs()
    by_id = {r["case_id"]: r for r in read_cases(CASES)}
    offloaded = predict_training_case(by_id["nt-00044-1"], gpus, models)
    assert offloaded.covered and abs(offloaded.pct_error) < 25
    refused = predict_training_case(by_id["nt-00039-1"], gpus, models)
    assert not refused.covered and "needs 64 GB of model states" in refused.reason
