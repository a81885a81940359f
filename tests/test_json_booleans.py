"""JSON's true and false are not numbers: a boolean in a numeric field is a 422 naming it, in every request."""

from __future__ import annotations

import pytest

from app.web.json_api.json_types import NOT_A_BOOLEAN

ARCH = {"layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/rank/inference", {"input_len": True}, "input_len"),
        ("/api/v1/rank/inference", {"ttft_ms": False}, "ttft_ms"),
        ("/api/v1/rank/training", {"total_tokens": True}, "total_tokens"),
        ("/api/v1/rank/inference", {"custom_model": {"params_b": True, **ARCH}}, "custom_model.params_b"),
        ("/api/v1/estimate/inference", {"gpu": "H100-SXM", "gpu_count": True}, "gpu_count"),
        ("/api/v1/plan/serving", {"workload": {}, "traffic": {"requests_per_day": True}}, "traffic.requests_per_day"),
        ("/api/v1/mix", {"mix": [{"input_len": True, "output_len": 10}]}, "mix.0.input_len"),
        ("/api/v1/own", {"gpu": "H100-SXM", "gpu_count": True}, "gpu_count"),
    ],
)
def test_a_boolean_where_a_number_belongs_is_a_field_error(client, path, body, field):
    response = client.post(path, json=body)
    assert response.status_code == 422
    assert {"field": field, "message": "must be a number, not true or false"} in response.json()["detail"]


def test_boolean_fields_and_query_string_numbers_still_parse(client):
    assert (
        client.post("/api/v1/rank/inference?limit=1", json={"include_stale": True, "input_len": 100}).status_code == 200
    )
    assert client.get("/rank.json?model=llama-3.1-8b&input_len=100").json()["workload"]["input_len"] == 100


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, "1", None])
@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/rank/inference", lambda v: {"include_stale": v}, "include_stale"),
        ("/api/v1/precision", lambda v: {"model": "llama-3.1-8b", "include_stale": v}, "include_stale"),
        (
            "/api/v1/plan/serving",
            lambda v: {"workload": {"include_stale": v}, "traffic": {"requests_per_day": 1000}},
            "workload.include_stale",
        ),
        ("/api/v1/disagg", lambda v: {"workload": {}, "traffic": {"spot_only": v}}, "traffic.spot_only"),
        (
            "/api/v1/rank/inference",
            lambda v: {"custom_model": {**ARCH, "experts_fused": v}},
            "custom_model.experts_fused",
        ),
    ],
)
def test_a_boolean_field_takes_only_json_true_or_false(client, path, body, field, value):
    """QA: `"include_stale": "yes"` and `1` were read as true (pydantic's lax mode): a JSON body's booleans are
    JSON's, as its numbers are (test_a_boolean_where_a_number_belongs_is_a_field_error)."""
    response = client.post(path, json=body(value))
    assert response.status_code == 422, response.text
    assert {"field": field, "message": NOT_A_BOOLEAN} in response.json()["detail"]


def test_json_booleans_and_the_pages_text_booleans_still_parse(client):
    assert client.post("/api/v1/rank/inference?limit=1", json={"include_stale": False}).status_code == 200
    plan = {"workload": {"include_stale": True}, "traffic": {"requests_per_day": 1000, "spot_only": False}}
    assert client.post("/api/v1/plan/serving?limit=1", json=plan).status_code == 200
    assert client.post("/api/v1/rank/inference?limit=1&terms=false", json={}).status_code == 200  # a query's text
    page = client.get("/rank.json?phase=inference&model=llama-3.1-8b&include_stale=true")
    assert page.status_code == 200 and page.json()["workload"]["include_stale"] is True
