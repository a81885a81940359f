"""One answer, one JSON shape: `gpumatch … --json` and the JSON API write every field of one question with the same
JSON type (a float field is 7.0 in both, never 7 in one), and that type is the one the response model declares."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.cli.main import main as cli
from app.scoring.explain import Term
from app.service.rank.plain import plain
from app.web.disagg.schemas import DisaggResponse
from app.web.mix.schemas import MixResponse
from app.web.own.schemas import OwnResponse
from app.web.plan.schemas import ServingResponse
from app.web.precision.schemas import PrecisionResponse
from app.web.rank.schemas import InferenceRankResponse, TrainingRankResponse

# (CLI arguments, API path, API body) asking one question each, and the API's response model
TWINS: dict[str, tuple[list[str], str, dict[str, Any], type[BaseModel]]] = {
    "own": (
        ["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--utilisation-pct", "60"],
        "/api/v1/own",
        {"gpu": "H100-SXM", "gpu_count": 8, "utilisation_pct": 60},
        OwnResponse,
    ),
    "mix": (
        ["mix", "--model", "llama-3.1-70b", "--mix", "chat:0.7,rag:0.3", "--requests-per-day", "200000"],
        "/api/v1/mix",
        {"model": "llama-3.1-70b", "mix": "chat:0.7,rag:0.3", "requests_per_day": 200000},
        MixResponse,
    ),
    "disagg": (
        ["disagg", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "32000", "--ttft-ms", "2000"],
        "/api/v1/disagg",
        {"workload": {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 32000, "ttft_ms": 2000}},
        DisaggResponse,
    ),
    "plan": (
        ["plan", "serving", "--model", "llama-3.1-70b", "--requests-per-day", "500000"],
        "/api/v1/plan/serving",
        {"workload": {"model": "llama-3.1-70b"}, "traffic": {"requests_per_day": 500000}},
        ServingResponse,
    ),
    "precision": (
        ["precision", "--model", "llama-3.1-70b", "--tpot-ms", "40"],
        "/api/v1/precision",
        {"model": "llama-3.1-70b", "tpot_ms": 40},
        PrecisionResponse,
    ),
    "inference": (
        ["rank", "inference", "--model", "llama-3.1-8b", "--scenario", "concurrency", "--concurrency", "8"],
        "/api/v1/rank/inference",
        {"model": "llama-3.1-8b", "scenario": "concurrency", "concurrency": 8},
        InferenceRankResponse,
    ),
    "training": (
        ["rank", "training", "--model", "llama-3.1-8b"],
        "/api/v1/rank/training",
        {"model": "llama-3.1-8b"},
        TrainingRankResponse,
    ),
    # The CLI answered under the ids as typed (model Llama-3.1-8B, gpus h100-sxm) and dropped --sort from share_url,
    # where the API answers under the catalog's ids and its link keeps the sort (found by qa41).
    "inference_other_spelling_sorted": (
        ["rank", "inference", "--model", "Llama-3.1-8B", "--gpus", "h100-sxm,B200", "--sort=ttft", "--limit", "3"],
        "/api/v1/rank/inference?sort=ttft&limit=3",
        {"model": "Llama-3.1-8B", "gpus": ["h100-sxm", "B200"]},
        InferenceRankResponse,
    ),
    "training_sorted": (
        ["rank", "training", "--model", "llama-3.1-8b", "--method", "lora", "--sort=-mfu", "--limit", "5"],
        "/api/v1/rank/training?sort=-mfu&limit=5",
        {"model": "llama-3.1-8b", "method": "lora"},
        TrainingRankResponse,
    ),
}


def _typed(value: Any) -> Any:
    """The JSON value with each number tagged by its JSON type, so 7 and 7.0 compare unequal."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("name", sorted(TWINS))
def test_the_cli_json_and_the_api_give_one_question_the_same_json(
    name: str, database: str, client: TestClient, capsys: Any
) -> None:
    argv, path, body, schema = TWINS[name]
    assert cli([*argv, "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_api = client.post(path, json=body).json()
    assert _typed(from_cli) == _typed(from_api)
    as_declared = json.loads(schema.model_validate(from_api).model_dump_json(exclude_unset=True))
    assert _typed(from_api) == _typed(as_declared)  # the type the response model documents (a float's 30.0)


def test_an_int_in_a_field_declared_float_is_written_as_a_float() -> None:
    assert plain(Term("batch", 7, "sequences")) == {"name": "batch", "value": 7.0, "unit": "sequences", "detail": ""}
    assert type(plain(Term("batch", 7, "sequences"))["value"]) is float


def _models() -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    for package in ("app.scoring", "app.web", "app.service.catalog", "app.service.charts"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            module = importlib.import_module(info.name)
            found += [
                member
                for member in vars(module).values()
                if isinstance(member, type) and issubclass(member, BaseModel) and member.__module__ == info.name
            ]
    return found


def test_no_float_field_of_a_question_has_an_int_default() -> None:
    """pydantic leaves a default unvalidated: `Field(30)` on a float field answers 30 where a given 30 answers 30.0."""
    wrong = [
        f"{model.__module__}.{model.__name__}.{name} = {field.default!r}"
        for model in _models()
        for name, field in model.model_fields.items()
        if field.annotation in (float, float | None) and type(field.default) is int
    ]
    assert wrong == []
