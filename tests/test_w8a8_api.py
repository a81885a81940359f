"""weight_dtype int8_w8a8 (INT8 W8A8) through the faces: the rank API, the page, a saved link; refused with a 422 naming
weight_dtype on an engine without it. Plain int8 keeps its meaning (tests/golden: rank_inference_8b_int8)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import settings_for

W8A8 = {
    "model": "llama-3.1-8b",
    "weight_dtype": "int8_w8a8",
    "input_len": 8000,
    "output_len": 200,
    "ttft_ms": 5000,
    "gpus": ["A100-SXM-80GB"],
}


def test_w8a8_round_trips_through_the_rank_api_and_its_page(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/inference", json=W8A8).json()
    assert body["workload"]["weight_dtype"] == "int8_w8a8" and body["weights"]["weight_dtype"] == "int8_w8a8"
    assert "Weights INT8 W8A8, as asked" in body["weights"]["note"]
    assert "weight_dtype=int8_w8a8" in body["share_url"]
    best = next(o for o in body["options"] if o["feasible"])
    prefill = next(t for t in best["terms"] if t["name"] == "prefill compute time")
    assert "624 TOPS int8" in prefill["detail"] and "FP8's factor borrowed" in prefill["detail"]
    page = client.get(body["share_url"])
    assert page.status_code == 200 and '<option value="int8_w8a8" selected>' in page.text
    twin = client.get("/rank.json?" + body["share_url"].split("?", 1)[1]).json()
    assert twin["workload"]["weight_dtype"] == "int8_w8a8" and twin["options"][0]["terms"] == best["terms"]


def test_a_saved_w8a8_link_replays_it(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url)), follow_redirects=False) as client:
        query = client.post("/api/v1/rank/inference", json=W8A8).json()["share_url"].split("?", 1)[1]
        created = client.post("/share", data={"path": "/", "query": query})
        assert created.status_code == 303
        saved = client.get(created.headers["location"] + ".json").json()
        live = client.get("/rank.json?" + query).json()
    assert saved["workload"]["weight_dtype"] == "int8_w8a8" and saved["options"] == live["options"]


def test_w8a8_on_an_engine_without_it_is_a_422_naming_weight_dtype(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**W8A8, "engine": "llamacpp"})
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["field"] == "weight_dtype" and "GGUF Q8_0" in error["message"]
    page = client.get("/?phase=inference&model=llama-3.1-8b&weight_dtype=int8_w8a8&engine=hf")
    assert page.status_code == 422 and 'id="err-weight_dtype"' in page.text
    mix = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "weight_dtype": "int8_w8a8", "engine": "llamacpp"})
    assert mix.status_code == 422 and mix.json()["detail"][0]["field"] == "weight_dtype"


def test_a_kv_cache_of_int8_w8a8_is_a_422_naming_kv_dtype(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**W8A8, "kv_dtype": "int8_w8a8"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "kv_dtype"
