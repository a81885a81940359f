"""A JSON body's numbers are JSON's: a string in a number field is a 422 naming the field, as a string in a boolean
field is (tests/test_json_booleans.py). Lax parsing read `"output_len": "1000"` as 1000 but refused `"1e3"`, and read
`"total_tokens": "2e9"`. Query strings, forms, flags and saved links carry text and still read it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.web.json_api.json_types import NOT_A_NUMBER

ARCH = {"layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/rank/inference", {"model": "llama-3.1-8b", "output_len": "1000"}, "output_len"),
        ("/api/v1/rank/inference", {"model": "llama-3.1-8b", "ttft_ms": "1e3"}, "ttft_ms"),
        ("/api/v1/rank/training", {"model": "llama-3.1-8b", "total_tokens": "2e9"}, "total_tokens"),
        ("/api/v1/rank/inference", {"custom_model": {**ARCH, "params_b": 8, "layers": "32"}}, "custom_model.layers"),
        ("/api/v1/estimate/inference", {"model": "llama-3.1-8b", "gpu": "H100-SXM", "gpu_count": "1"}, "gpu_count"),
        ("/api/v1/plan/serving", {"workload": {}, "traffic": {"requests_per_day": "1000"}}, "traffic.requests_per_day"),
        ("/api/v1/plan/lifecycle", {"training": {}, "inference": {}, "months": "12"}, "months"),
        ("/api/v1/precision", {"model": "llama-3.1-8b", "input_len": "2000"}, "input_len"),
        ("/api/v1/mix", {"model": "llama-3.1-8b", "mix": [{"input_len": "1000", "output_len": 10}]}, "mix.0.input_len"),
        ("/api/v1/own", {"gpu": "H100-SXM", "gpu_count": "8"}, "gpu_count"),
        ("/api/v1/disagg", {"workload": {"input_len": "8000"}, "traffic": {}}, "workload.input_len"),
    ],
)
def test_a_string_where_a_number_belongs_is_a_field_error(client: TestClient, path: str, body: dict, field: str):
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    assert {"field": field, "message": NOT_A_NUMBER} in response.json()["detail"]


def test_fields_that_take_text_still_take_it_and_numbers_still_parse(client: TestClient) -> None:
    mix = {"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.3", "requests_per_day": 200000}
    assert client.post("/api/v1/mix", json=mix).status_code == 200  # the mix as its text form
    training = {"model": "llama-3.1-8b", "total_tokens": 2e9}
    ranked = client.post("/api/v1/rank/training?limit=1&terms=false", json=training)
    assert ranked.status_code == 200 and ranked.json()["workload"]["total_tokens"] == 2e9
    whole = client.post("/api/v1/rank/inference?limit=1&terms=false", json={"model": "llama-3.1-8b", "output_len": 1e3})
    assert whole.status_code == 200 and whole.json()["workload"]["output_len"] == 1000  # a whole float is a number


def test_an_answers_workload_posts_back_as_the_same_question(client: TestClient) -> None:
    """What the API echoes is JSON numbers, so a client that posts an answer's workload back asks the same question."""
    for path, body in (
        ("/api/v1/rank/inference?limit=1&terms=false", {"model": "llama-3.1-70b", "weight_dtype": "fp8"}),
        ("/api/v1/rank/training?limit=1&terms=false", {"model": "llama-3.1-8b", "method": "lora"}),
    ):
        echoed = client.post(path, json=body).json()["workload"]
        again = client.post(path, json=echoed)
        assert again.status_code == 200, again.text
        assert again.json()["workload"] == echoed


def test_query_strings_and_saved_links_still_read_text_numbers(client: TestClient) -> None:
    query = "phase=inference&model=llama-3.1-8b&output_len=1e3&input_len=2,000"
    assert client.get(f"/rank.json?{query}").json()["workload"]["output_len"] == 1000
    saved = client.post("/share", json={"path": "/", "query": query}, headers={"accept": "application/json"})
    assert saved.status_code == 201, saved.text
    replayed = client.get(f"{saved.json()['url']}.json")
    assert replayed.status_code == 200 and replayed.json()["workload"]["output_len"] == 1000
