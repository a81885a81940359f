"""The priced model that stands in for one no provider lists: same dense/MoE kind, near in active and total
parameters, within the stated tolerances, or none."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from app.catalog.spec_files import load_model_specs
from app.scoring.serving.serverless.quotes import serverless_quotes
from app.scoring.serving.serverless.stand_in import comparable_priced_model
from app.scoring.specs import TokenPrice

MODELS = load_model_specs()
SEED_PRICED = {r["model_id"] for r in csv.DictReader((Path("seed_data") / "token_prices.csv").open())}


@pytest.mark.parametrize(
    ("asked", "stand_in"),
    [
        ("mpt-30b", "qwen2.5-32b"),  # dense 30B: a dense ~32B, not Qwen3-30B-A3B (3.3B active)
        ("llama-4-scout", "qwen3-235b-a22b"),  # 17B active of 109B: not gpt-oss-120b (5.1B active)
        ("glm-4.5", "qwen3-coder-480b-a35b"),  # 32B active MoE: not the dense Llama 3.1 405B
        ("kimi-k2", "deepseek-v3"),  # DeepSeek-V3's architecture: the base release, not the reasoning-tuned R1
        ("megatron-gpt-530b", "llama-3.1-405b"),
    ],
)
def test_stand_in_is_of_the_same_kind_and_nearest_in_active_and_total_parameters(asked, stand_in):
    found = comparable_priced_model(MODELS[asked], SEED_PRICED, MODELS)
    assert found is not None and found.model.id == stand_in
    assert found.model.is_moe == MODELS[asked].is_moe
    kind = "MoE" if found.model.is_moe else "dense"
    assert f"{found.model.name} ({kind}" in found.reason and "within 1.5×" in found.reason


@pytest.mark.parametrize("asked", ["gpt-3-175b", "opt-175b", "bloom-176b", "falcon-180b", "mpt-125m", "minimax-m2"])
def test_no_stand_in_outside_the_tolerance(asked):
    assert comparable_priced_model(MODELS[asked], SEED_PRICED, MODELS) is None  # was Mixtral 8x22B for the 175Bs


def test_quotes_carry_the_stand_ins_reason_and_none_without_a_comparable_model():
    price = TokenPrice(
        provider_id="p", provider_name="P", model_id="qwen3-30b-a3b", input_usd_per_mtok=0.1, output_usd_per_mtok=0.3
    )
    assert serverless_quotes(MODELS["mpt-30b"], (price,), MODELS, 1000, 100, 100) == []
    moe = serverless_quotes(
        MODELS["qwen3-30b-a3b"].__class__(**{**_fields(MODELS["qwen3-30b-a3b"]), "id": "x"}),
        (price,),
        MODELS,
        1000,
        100,
        100,
    )
    assert moe and moe[0].substitute and "stands in for" in moe[0].substitute_reason


def _fields(model):  # type: ignore[no-untyped-def]
    return {name: getattr(model, name) for name in model.__dataclass_fields__}


def test_plan_says_which_model_stood_in_and_why(client):
    body = {"workload": {"model": "mpt-30b", "weight_dtype": "fp8"}, "traffic": {"requests_per_day": 100000}}
    plan = client.post("/api/v1/plan/serving?limit=1&terms=false", json=body).json()
    assert plan["substitute_model"] and "Qwen3-30B-A3B" not in plan["substitute_model"]
    assert "dense" in plan["substitute_reason"] and all(not q["model_id"].endswith("a3b") for q in plan["serverless"])
    page = client.get("/plan?model=mpt-30b&weight_dtype=fp8&requests_per_day=100000").text
    assert "stands in for MPT 30B" in page


def test_plan_without_a_comparable_model_says_so(client):
    body = {
        "workload": {"model": "gpt-3-175b", "weight_dtype": "fp8", "input_len": 1000, "output_len": 200},
        "traffic": {"requests_per_day": 100000},
    }
    plan = client.post("/api/v1/plan/serving?limit=1&terms=false", json=body).json()
    assert plan["serverless"] == [] and plan["substitute_model"] is None
    assert any("No per-token price for GPT-3 175B or a comparable model" in n for n in plan["notes"])
