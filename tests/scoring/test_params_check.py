"""custom_model.params_b is held to the architecture it describes (app.scoring.params_check): a 70B shape typed as
0.5 B "fit on 1×RTX 4090 with 1.0 GB of weights". Every catalog model (the validation rows' models among them)
must pass the check unchanged; wrong units and a MoE's active count given as its total must not."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.config import PROJECT_ROOT
from app.scoring.hf_config import model_spec_from_hf_config, shape_param_count
from app.scoring.params_check import PARAMS_FACTOR
from app.scoring.workload import InferenceWorkload, ModelArchitecture

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
        (LLAMA_70B_SHAPE, 0.5, "70.6 B"),  # the reviewer's case
        (LLAMA_70B_SHAPE, 706, "70.6 B"),  # a digit too many: ten times the weights to place
        (MIXTRAL_SHAPE, 12.9, "46.7 B"),  # the active parameters as the total: memory for a quarter of the weights
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
