"""Oversized or degenerate inputs are 422s naming the field, never 500s."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

DEEP = {"a": {"b": {"c": {"d": {"e": 1}}}}}


@pytest.mark.parametrize(
    "config, message",
    [
        (DEEP, "nested deeper"),
        ({f"k{i}": i for i in range(201)}, "more than 200 keys"),
        ({f"k{i}": "x" * 4000 for i in range(20)}, "KB"),
    ],
)
def test_hf_config_is_bounded(client: TestClient, config: dict, message: str) -> None:
    response = client.post("/api/v1/rank/inference", json={"hf_config": config})
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["field"] == "hf_config" and message in error["message"]


def test_pasted_config_is_bounded(client: TestClient) -> None:
    for text in ("[" * 10_000 + "]" * 10_000, '{"a": {"b": {"c": {"d": {"e": 1}}}}}'):
        response = client.get("/", params={"hf_config_json": text})
        assert response.status_code == 422 and "config.json" in response.text


def test_pasted_config_size_is_checked_before_parsing() -> None:
    from app.service.workload_query import _arch_from_config

    errors: dict[str, str] = {}
    assert _arch_from_config("{" + '"a": 1,' * 20_000 + '"b": 2}', errors) is None
    assert "KB" in errors["hf_config_json"]


@pytest.mark.parametrize(
    "path",
    [
        "/?input_len=1e400",
        "/?ttft_ms=nan",
        "/gpus?min_memory_gb=inf",
        "/plan?months=99999999999999999999",
        "/?phase=training&steps=inf",
        "/api/v1/offers?max_usd_per_gpu_hour=nan",
    ],
)
def test_non_finite_and_huge_numbers_are_422(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 422


def test_mla_without_latent_rank_is_422(client: TestClient) -> None:
    arch = {
        "params_b": 1,
        "layers": 1,
        "hidden_size": 64,
        "num_attention_heads": 1,
        "intermediate_size": 1,
        "attention": "mla",
    }
    response = client.post("/api/v1/rank/inference", json={"custom_model": arch})
    assert response.status_code == 422 and "kv_lora_rank" in response.text
