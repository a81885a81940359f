"""A choice typed near one of the field's is answered with the one it likely means: method=full "…; did you mean
full_ft?", price_types=on-demand, engine=vLLM, on the pages' twins, the JSON API and the catalog lists; a value near
none keeps pydantic's list of the choices alone (qa38)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def _said(answer: object, field: str) -> str:
    return {e["field"]: e["message"] for e in answer.json()["detail"]}[field]  # type: ignore[attr-defined]


def test_a_near_choice_is_named(client: TestClient) -> None:
    asked = {
        "/rank.json?phase=training&model=llama-3.1-8b&method=full": ("method", "full_ft"),
        "/rank.json?phase=inference&model=llama-3.1-8b&price_types=on-demand": ("price_types", "on_demand"),
        "/rank.json?phase=inference&model=llama-3.1-8b&engine=vLLM": ("engine", "vllm"),
        "/models.json?kind=MoE": ("kind", "moe"),
    }
    for url, (field, meant) in asked.items():
        message = _said(client.get(url), field)
        assert message.startswith("Input should be ") and message.endswith(f"; did you mean {meant}?"), (url, message)
    body = client.post("/api/v1/rank/training", json={"model": "llama-3.1-8b", "method": "qlora "})
    assert _said(body, "method").endswith("; did you mean qlora?")


def test_a_choice_near_none_keeps_the_list_alone(client: TestClient) -> None:
    message = _said(client.get("/rank.json?phase=training&model=llama-3.1-8b&method=nope"), "method")
    assert message == "Input should be 'pretrain', 'full_ft', 'lora' or 'qlora'"
