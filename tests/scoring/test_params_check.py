"""custom_model.params_b is held to the architecture it describes (app.scoring.hf_config.params_check): a 70B shape
typed as 0.5 B "fit on 1×RTX 4090 with 1.0 GB of weights". Every catalog model (the validation rows' models among them)
must pass the check unchanged; wrong units and a MoE's active count given as its total must not."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.config import PROJECT_ROOT
from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.hf_config.param_count import shape_param_count
from app.scoring.hf_config.params_check import PARAMS_FACTOR
from app.scoring.workload import InferenceWorkload, ModelArchitecture
from tests.scoring.test_hf_config import DEEPSEEK_V3

LLAMA_70B_SHAPE = {
    "layers": 80,
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_kv_heads": 8,
    "intermediate_size": 28672,
    "vocab_size": 128256,
}
MIXTRAL_SHAPE = {
    "layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_kv_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "num_experts": 8,
    "experts_per_token": 2,
}
# deepseek-ai/DeepSeek-V3 config.json as a custom_model: 3 dense layers then 58 MoE, MLA with a low-rank query
DEEPSEEK_V3_SHAPE = {
    "layers": 61,
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "num_kv_heads": 128,
    "head_dim": 192,
    "intermediate_size": 18432,
    "vocab_size": 129280,
    "num_experts": 256,
    "experts_per_token": 8,
    "moe_intermediate_size": 2048,
    "num_shared_experts": 1,
    "moe_layers": 58,
    "attention": "mla",
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
}


def catalog_rows() -> list[dict[str, str]]:
    with (PROJECT_ROOT / "seed_data" / "models.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def architecture_values(row: dict[str, str]) -> dict[str, Any]:
    """A catalog row as a custom_model would give it (max_context aside: the check does not read it)."""
    names = set(ModelArchitecture.model_fields) - {"max_context"}
    return {k: v for k, v in row.items() if k in names and v != ""} | {"name": row["name"][:80]}


def params_errors(values: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as caught:
        ModelArchitecture.model_validate(values)
    return [e for e in caught.value.errors() if e["loc"] == ("params_b",)]


@pytest.mark.parametrize("row", catalog_rows(), ids=lambda row: row["id"])
def test_every_catalog_model_passes_as_a_custom_model(row: dict[str, str]) -> None:
    ModelArchitecture.model_validate(architecture_values(row))


def test_the_catalog_spans_half_to_once_the_shape_count_well_inside_the_factor() -> None:
    """The tolerance's evidence (params_check's docstring): with its MoE layer count, Llama 4 Maverick holds its shape's
    count; typed without one (every layer MoE) 0.51× of it; MPT-125M (tied, 2-matrix MLP) 0.66×; nothing over 1.01×."""
    ratios = {}
    for row in catalog_rows():
        arch = ModelArchitecture.model_validate(architecture_values(row))
        ratios[row["id"]] = arch.params_b / (shape_param_count(arch) / 1e9)
    assert min(ratios, key=ratios.__getitem__) == "mpt-125m"
    assert ratios["llama-4-maverick"] == pytest.approx(1.0, abs=0.01)
    maverick = next(row for row in catalog_rows() if row["id"] == "llama-4-maverick")
    every_layer = ModelArchitecture.model_validate(architecture_values(maverick) | {"moe_layers": None})
    every_layer_ratio = every_layer.params_b / (shape_param_count(every_layer) / 1e9)
    assert 0.5 < every_layer_ratio < 0.52
    assert min(ratios.values()) > 0.65 and max(ratios.values()) < 1.02
    assert 0.8 * every_layer_ratio > 1 / PARAMS_FACTOR  # room below Maverick typed without its count


def test_the_validation_rows_models_are_all_catalog_models(shared_validation: Path) -> None:
    catalog = {row["id"] for row in catalog_rows()}
    for name in ("inference_cases.csv", "training_cases.csv"):
        with (shared_validation / name).open(encoding="utf-8") as f:
            models = {row["model"] for row in csv.DictReader(f)}
        assert models and models <= catalog, models - catalog


@pytest.mark.parametrize(
    ("shape", "params_b", "counted"),
    [
        (LLAMA_70B_SHAPE, 0.5, "70.6 billion"),  # the reviewer's case
        (LLAMA_70B_SHAPE, 706, "70.6 billion"),  # a digit too many: ten times the weights to place
        (MIXTRAL_SHAPE, 12.9, "46.7 billion"),  # the active count as the total: a quarter of the weights
    ],
)
def test_a_params_b_far_from_the_shape_is_refused_naming_params_b(shape: dict, params_b: float, counted: str) -> None:
    (error,) = params_errors({**shape, "params_b": params_b})
    assert f"hold about {counted} parameters" in error["msg"] and "within a factor of 3" in error["msg"]


@pytest.mark.parametrize(
    ("shape", "params_b"),
    [
        (LLAMA_70B_SHAPE, 70.6),
        (LLAMA_70B_SHAPE, 88.6),  # Llama 3.2 90B Vision: a vision tower beside the 70B text shape
        (MIXTRAL_SHAPE, 46.7),
    ],
)
def test_a_params_b_near_the_shape_is_taken(shape: dict, params_b: float) -> None:
    assert ModelArchitecture.model_validate({**shape, "params_b": params_b}).params_b == params_b


def test_the_workload_names_custom_model_params_b() -> None:
    with pytest.raises(ValidationError) as caught:
        InferenceWorkload.model_validate({"model": None, "custom_model": {**LLAMA_70B_SHAPE, "params_b": 0.5}})
    assert [e["loc"] for e in caught.value.errors()] == [("custom_model", "params_b")]


def test_an_hf_config_is_not_held_to_the_every_layer_count_it_was_counted_past() -> None:
    """A config.json counts its own parameters exactly: MoE in one layer of four holds far less than every layer's
    experts, and is no error; the spec carries the 8 MoE layers, so the shape count agrees with it."""
    config = {
        "model_type": "mixtral",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 32000,
        "num_local_experts": 64,
        "num_experts_per_tok": 2,
        "decoder_sparse_step": 4,
    }
    spec = model_spec_from_hf_config(config)
    assert spec.moe_layers == 8
    assert shape_param_count(spec) / 1e9 == pytest.approx(spec.params_b, rel=0.01)
    every_layer = replace(spec, moe_layers=32)
    assert spec.params_b < shape_param_count(every_layer) / 1e9 / PARAMS_FACTOR  # typed without the count: refused


def test_mla_low_rank_query_is_counted_as_its_two_projections_and_norm() -> None:
    """DeepSeek-V3's query is q_a_proj (7168 -> 1536), q_a_layernorm and q_b_proj (1536 -> 128 x 192): 48.8 M a layer,
    not one 7168 -> 128 x 192 q_proj's 176.2 M; the shape holds 671.0 B, as its config.json counts, not 678.8 B."""
    shape = ModelArchitecture.model_validate({**DEEPSEEK_V3_SHAPE, "params_b": 671})
    assert shape_param_count(shape) / 1e9 == pytest.approx(671.03, abs=0.01)
    pasted = model_spec_from_hf_config(DEEPSEEK_V3)
    assert pasted.params_b == pytest.approx(671.03, abs=0.01)
    assert shape_param_count(pasted) == pytest.approx(pasted.params_b * 1e9, rel=1e-6)
    one_q_proj = ModelArchitecture.model_validate({**DEEPSEEK_V3_SHAPE, "q_lora_rank": 0, "params_b": 671})
    per_layer = 7168 * 128 * 192 - (7168 * 1536 + 1536 + 1536 * 128 * 192)
    assert shape_param_count(one_q_proj) - shape_param_count(shape) == 61 * per_layer  # 7.77 B


def test_deepseek_v3_active_count_typed_as_total_is_refused_naming_its_671_b() -> None:
    (error,) = params_errors({**DEEPSEEK_V3_SHAPE, "params_b": 37})
    assert "hold about 671 billion parameters" in error["msg"]
