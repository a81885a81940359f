"""A training estimate's notes are written once per what they read (assumptions._NOTES) and read the same as written
afresh: for workloads that differ in every choice a training question has, on dense, MoE and MLA models, with and
without a GPU's peak note. A note that read a field the memo's key leaves out would differ here."""

import itertools

from app.catalog.spec_files import load_model_specs
from app.scoring.training import assumptions
from app.scoring.workload import TrainingWorkload

MODELS = load_model_specs()
VARIANTS = (
    {},
    {"method": "full_ft"},
    {"method": "pretrain", "framework": "megatron"},
    {"method": "lora"},
    {"method": "lora", "lora_rank": 64},
    {"method": "qlora", "framework": "hf"},
    {"method": "qlora", "framework": "pytorch", "lora_rank": 8},
    {"optimizer": "adamw_8bit"},
    {"optimizer": "adamw_bf16", "offload": "cpu"},
    {"offload": "cpu"},
    {"framework": "torchtitan"},
    {"framework": "hf"},
    {"precision": "fp8"},
    {"precision": "fp4"},
    {"seq_len": 32_768, "global_batch_seqs": 8},
)


def test_notes_read_from_the_memo_are_the_notes_written_afresh() -> None:
    checked = 0
    for model_id, values, note in itertools.product(
        ("llama-3.1-8b", "mixtral-8x7b", "deepseek-v3"), VARIANTS, ("", "16-bit tensor peak unknown: 2 × FP32 used")
    ):
        w = TrainingWorkload.model_validate({"model": model_id, **values})
        model = MODELS[model_id]
        first = assumptions.estimate_assumptions(None, model, w, note)  # type: ignore[arg-type]
        again = assumptions.estimate_assumptions(None, model, w, note)  # type: ignore[arg-type]
        assert first == again == assumptions._written_assumptions(model, w, note), (model_id, values, note)
        assert first is not again  # a list of its own: an estimate may extend it
        checked += 1
    assert checked == 3 * len(VARIANTS) * 2
    # different choices write different notes: the memo keeps them apart
    model = MODELS["llama-3.1-8b"]
    written = {tuple(assumptions.estimate_assumptions(None, model, TrainingWorkload(**v), "")) for v in VARIANTS}  # type: ignore[arg-type]
    assert len(written) >= 8
