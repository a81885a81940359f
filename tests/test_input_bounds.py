"""Oversized or degenerate inputs are 422s naming the field, never 500s."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

JSON = {"content-type": "application/json"}
DEEP = {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}  # 7 levels: compressed-tensors configs need 6


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
    for text in ("[" * 10_000 + "]" * 10_000, json.dumps(DEEP)):
        response = client.get("/", params={"hf_config_json": text})
        assert response.status_code == 422 and "config.json" in response.text


def test_pasted_config_size_is_checked_before_parsing() -> None:
    from app.service.query.custom_model import _arch_from_config

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


# JSON text of each value: "Infinity" and 30-digit integers must reach the parser as written.
LLAMA = {
    "model_type": '"llama"',
    "hidden_size": "4096",
    "intermediate_size": "14336",
    "num_hidden_layers": "32",
    "num_attention_heads": "32",
    "num_key_value_heads": "8",
    "vocab_size": "128256",
}


def llama_config_with(key: str, value: str) -> str:
    """The config's text with `key` set to `value` once (a repeated key is an error of its own)."""
    return "{" + ", ".join(f'"{k}": {v}' for k, v in {**LLAMA, key: value}.items()) + "}"


@pytest.mark.parametrize(
    "key, value",
    [
        ("num_hidden_layers", "30000000"),
        ("num_hidden_layers", "100000000"),
        ("hidden_size", "1e20"),
        ("hidden_size", "1e300"),
        ("hidden_size", "Infinity"),
        ("vocab_size", "NaN"),
        ("intermediate_size", "100000000000000000000000000000"),
    ],
)
def test_hf_config_overflow_is_422_naming_the_field_everywhere(client: TestClient, key: str, value: str) -> None:
    """Issue 11: 1e8 layers took 15 s and 944 MB; 1e20 / 1e300 / Infinity were 500s."""
    text = llama_config_with(key, value)
    api = client.post("/api/v1/rank/inference", content=f'{{"hf_config": {text}}}'.encode(), headers=JSON)
    assert api.status_code == 422
    [error] = api.json()["detail"]  # NaN and Infinity are refused by the body's parser, at their path
    assert error["field"] in ("hf_config", f"hf_config.{key}") and key in f"{error['field']}: {error['message']}"
    twin = client.get("/rank.json", params={"hf_config_json": text})
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "hf_config_json"
    page = client.get("/", params={"hf_config_json": text})
    assert page.status_code == 422 and key in page.text


@pytest.mark.parametrize("path", ["/api/v1/rank/inference", "/api/v1/precision", "/api/v1/rank/training"])
def test_heads_that_do_not_divide_the_hidden_size_are_422(client: TestClient, path: str) -> None:
    """65 heads of a 64-wide model made a zero head_dim, zero KV per token and a ZeroDivisionError (500) in the
    batch that fits; found by a longer schemathesis run than CI's."""
    arch = {"params_b": 0.004, "layers": 1, "hidden_size": 64, "num_attention_heads": 65, "intermediate_size": 1}
    response = client.post(path, json={"custom_model": arch})
    assert response.status_code == 422 and "give head_dim" in response.text
    assert client.post(path, json={"custom_model": {**arch, "head_dim": 8}}).status_code == 200


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/v1/mix", {"requests_per_day": 5e-324, "tpot_ms": 1.0}),
        ("/api/v1/disagg", {"traffic": {"peak_requests_per_s": 5e-324, "profile": "flat"}, "workload": {}}),
        ("/api/v1/disagg", {"traffic": {"requests_per_day": 1e-300}, "workload": {}}),
        ("/api/v1/rank/inference", {"peak_requests_per_s": 5e-324}),
    ],
)
def test_vanishing_traffic_is_422_not_infinite_costs(client: TestClient, path: str, body: dict) -> None:
    """A denormal rate made the mix solver's objective empty (a 500) and the disaggregation's $ per token
    infinite (null where the schema promises a number); found by a longer schemathesis run than CI's."""
    response = client.post(path, json=body)
    assert response.status_code == 422 and "must be at least" in response.text


def test_the_least_traffic_accepted_prices_finitely(client: TestClient) -> None:
    mix = client.post("/api/v1/mix", json={"requests_per_day": 0.1, "tpot_ms": 1.0})
    disagg = client.post("/api/v1/disagg", json={"traffic": {"peak_requests_per_s": 1e-6}, "workload": {}})
    assert mix.status_code == 200 and disagg.status_code == 200
    for plan in disagg.json()["disaggregated"]:
        assert plan["usd_per_million_output_tokens"] is not None and plan["monthly_usd"] > 0


@pytest.mark.parametrize("field", ["ttft_ms", "tpot_ms"])
@pytest.mark.parametrize(
    "path, wrap",
    [
        ("/api/v1/rank/inference", lambda body: body),
        ("/api/v1/mix", lambda body: body),
        ("/api/v1/plan/serving", lambda body: {"workload": body, "traffic": {"requests_per_day": 1000}}),
        ("/api/v1/precision", lambda body: {"model": "llama-3.1-8b", **body}),
    ],
)
def test_a_vanishing_latency_limit_is_422_naming_the_field(client: TestClient, path: str, wrap, field: str) -> None:
    """QA: tpot_ms=1e-300 was taken and its refusal printed the target as ~300 zeros: a latency limit is at least
    a microsecond (workload.MIN_LATENCY_LIMIT_MS), in every request that takes one."""
    response = client.post(path, json=wrap({field: 1e-300}))
    assert response.status_code == 422, response.text
    errors = {e["field"].rsplit(".", 1)[-1]: e["message"] for e in response.json()["detail"]}
    assert errors[field] == "must be at least 0.001 ms" and "0.0000000" not in response.text


@pytest.mark.parametrize("page", ["/", "/precision", "/mix", "/plan"])
def test_a_vanishing_latency_limit_is_refused_on_the_pages_naming_the_field(client: TestClient, page: str) -> None:
    response = client.get(f"{page}?model=llama-3.1-8b&tpot_ms=1e-300")
    assert response.status_code == 422 and "must be at least 0.001 ms" in response.text
    assert 'id="f-tpot_ms"' in response.text and "0.0000000" not in response.text
    least = client.post("/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b", "tpot_ms": 0.001})
    assert least.status_code == 200  # the least limit taken still ranks (every offer over it, said so)
