"""A JSON body is read strictly: a key given twice, at any depth, or a NaN / Infinity / 1e400 number is a 422 naming
its path (json.loads would keep the last value, or a non-finite float), in every route that takes a JSON body.
Bodies that cannot be read (too deep, a 5000-digit number, not UTF-8) are 422s at `body`, and a JSON body sent
without a JSON Content-Type, or compressed, is a 415 naming the header. Valid bodies answer as before (tests/golden
pins those answers)."""

from __future__ import annotations

import gzip
import json

import pytest
from fastapi import params
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.main import create_app
from app.scoring.input_checks.messages import NOT_FINITE
from app.scoring.input_checks.strict_json import REPEATED_KEY
from app.web.errors.handlers import NOT_DECODED, NOT_SENT_AS_JSON
from app.web.json_api.json_body import StrictJsonRoute
from tests.conftest import settings_for

JSON = {"content-type": "application/json"}
RANK = "/api/v1/rank/inference?limit=1&terms=false"
TRAIN = "/api/v1/rank/training?limit=1&terms=false"


def post(client: TestClient, path: str, text: str, headers: dict[str, str] = JSON):  # type: ignore[no-untyped-def]
    return client.post(path, content=text.encode(), headers=headers)


def detail(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text[:300]
    return {e["field"]: e["message"] for e in response.json()["detail"]}


@pytest.mark.parametrize(
    ("path", "text", "field"),
    [
        (RANK, '{"model": "llama-3.1-8b", "model": "llama-3.1-70b"}', "model"),
        (TRAIN, '{"model": "llama-3.1-8b", "total_tokens": 1e9, "total_tokens": 2e9}', "total_tokens"),
        (TRAIN, '{"custom_model": {"params_b": 8, "layers": 32, "layers": 40}}', "custom_model.layers"),
        (RANK, '{"hf_config": {"hidden_size": 4096, "hidden_size": 8192}}', "hf_config.hidden_size"),
        ("/api/v1/estimate/inference", '{"gpu": "H100-SXM", "gpu": "H200"}', "gpu"),
        ("/api/v1/estimate/training", '{"gpu": "H100-SXM", "gpu_count": 8, "gpu_count": 16}', "gpu_count"),
        ("/api/v1/plan/serving", '{"workload": {"model": "llama-3.1-8b", "model": "llama-3.1-70b"}}', "workload.model"),
        ("/api/v1/plan/lifecycle", '{"training": {}, "inference": {}, "months": 1, "months": 24}', "months"),
        ("/api/v1/precision", '{"model": "llama-3.1-8b", "input_len": 100, "input_len": 9000}', "input_len"),
        ("/api/v1/own", '{"gpu": "H100-SXM", "gpu_count": 8, "gpu_count": 64}', "gpu_count"),
        (
            "/api/v1/disagg",
            '{"workload": {}, "traffic": {"requests_per_day": 1, "requests_per_day": 2}}',
            "traffic.requests_per_day",
        ),
        ("/api/v1/mix", '{"mix": [{"input_len": 100, "output_len": 10, "input_len": 200}]}', "mix.0.input_len"),
    ],
)
def test_a_repeated_key_is_a_422_naming_its_path(client: TestClient, path: str, text: str, field: str) -> None:
    assert detail(post(client, path, text)) == {field: REPEATED_KEY}


def test_a_repeated_key_in_an_admin_batch_names_the_offer(seeded_url: str) -> None:
    token = "a" * 32
    with TestClient(create_app(settings_for(seeded_url, admin_token=token))) as admin:
        headers = {**JSON, "authorization": f"Bearer {token}"}
        response = post(admin, "/api/v1/admin/offers", '[{"region": "us"}, {"region": "us", "region": "eu"}]', headers)
    assert detail(response) == {"1.region": REPEATED_KEY}


def test_every_repeated_key_is_named_and_the_valid_rest_is_not(client: TestClient) -> None:
    text = '{"model": "llama-3.1-8b", "input_len": 1, "input_len": 2, "gpus": ["H100-SXM"], "tpot_ms": 5, "tpot_ms": 9}'
    assert detail(post(client, RANK, text)) == {"input_len": REPEATED_KEY, "tpot_ms": REPEATED_KEY}


@pytest.mark.parametrize(
    ("path", "text", "field"),
    [
        (RANK, '{"tpot_ms": NaN}', "tpot_ms"),
        (RANK, '{"ttft_ms": -Infinity}', "ttft_ms"),
        (RANK, '{"ttft_ms": 1e400}', "ttft_ms"),
        (RANK, '{"model": NaN}', "model"),  # a string field: pydantic alone would say "valid string", not why
        (TRAIN, '{"total_tokens": Infinity}', "total_tokens"),
        (RANK, '{"hf_config": {"hidden_size": 4096, "rope_theta": NaN}}', "hf_config.rope_theta"),
        ("/api/v1/plan/serving", '{"workload": {}, "traffic": {"peak_factor": NaN}}', "traffic.peak_factor"),
    ],
)
def test_a_non_finite_number_is_a_422_at_its_path(client: TestClient, path: str, text: str, field: str) -> None:
    assert detail(post(client, path, text)) == {field: NOT_FINITE}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"gpus": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"input_len": ' + "1" * 5000 + "}", "a number longer than 4300 digits"),
    ],
)
def test_a_body_json_loads_cannot_read_is_a_422_not_a_400(client: TestClient, text: str, reason: str) -> None:
    assert detail(post(client, RANK, text)) == {"body": f"not valid JSON: {reason}"}


def test_a_body_that_is_not_utf8_is_a_422(client: TestClient) -> None:
    response = client.post(RANK, content=b'{"model": "llama\xff"}', headers=JSON)
    assert detail(response) == {"body": "not valid JSON: byte 16 is not utf-8 text"}


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_json_sent_under_another_content_type_is_a_415_saying_to_send_it_as_json(
    client: TestClient, content_type: str
) -> None:
    """A 422 said the body was bad where its Content-Type was: a 415 names the header, as the admin CSV upload's
    does for a JSON body."""
    response = post(client, RANK, '{"model": "llama-3.1-8b"}', {"content-type": content_type})
    assert response.status_code == 415
    message = f"expects application/json, not {content_type}: {NOT_SENT_AS_JSON}"
    assert response.json() == {"detail": [{"field": "content-type", "message": message}]}


def test_a_compressed_body_is_a_415_naming_its_encoding(client: TestClient) -> None:
    """gzip'd JSON was read as text: a 422 'byte 1 is not utf-8 text' about a body the client never wrote."""
    headers = {**JSON, "content-encoding": "gzip"}
    response = client.post(RANK, content=gzip.compress(b'{"model": "llama-3.1-8b"}'), headers=headers)
    assert response.status_code == 415
    assert response.json()["detail"] == [{"field": "content-encoding", "message": f"gzip is {NOT_DECODED}"}]


@pytest.mark.parametrize(
    ("text", "field"), [("", "body"), ("[1, 2]", "body"), ('"llama"', "body"), ('{"model": "x",', "body")]
)
def test_other_body_shapes_keep_their_422(client: TestClient, text: str, field: str) -> None:
    assert list(detail(post(client, RANK, text))) == [field]


def test_a_valid_body_answers_as_the_same_body_without_repeats(client: TestClient) -> None:
    body = {"model": "llama-3.1-8b", "input_len": 1000, "output_len": 300, "ttft_ms": 500.5, "tpot_ms": 30}
    written = client.post(RANK, json=body)
    spaced = post(client, RANK, json.dumps(body, indent=2) + "\n")
    assert written.status_code == spaced.status_code == 200
    assert written.json() == spaced.json() and written.json()["workload"]["ttft_ms"] == 500.5


def test_every_route_with_a_json_body_reads_it_strictly(app) -> None:  # type: ignore[no-untyped-def]
    def routes(items):  # type: ignore[no-untyped-def]
        for item in items:
            yield from routes(item.original_router.routes) if hasattr(item, "original_router") else (item,)

    bodies = [r for r in routes(app.routes) if isinstance(r, APIRoute) and r.body_field is not None]
    json_bodies = [r for r in bodies if not isinstance(r.body_field.field_info, params.Form)]
    assert len(json_bodies) >= 11
    assert [r.path for r in json_bodies if not isinstance(r, StrictJsonRoute)] == []


def test_a_pasted_config_with_a_repeated_key_is_refused_on_the_page_and_its_twin(client: TestClient) -> None:
    pasted = '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "hidden_size": 8192}'
    twin = client.get("/rank.json", params={"hf_config_json": pasted})
    message = f"could not read this config.json: hidden_size: {REPEATED_KEY}"
    assert detail(twin) == {"hf_config_json": message}
    page = client.get("/", params={"hf_config_json": pasted})
    assert page.status_code == 422 and "hidden_size: given more than once" in page.text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"path": "/", "query": "model=llama-3.1-8b"', "Expecting ',' delimiter at character 43"),
        ("", "Expecting value at character 0"),
        ('{"path": "/", "query": ', "Expecting value at character 23"),
    ],
)
def test_a_share_body_that_is_not_json_is_a_422_at_body_not_a_500(client: TestClient, text: str, reason: str) -> None:
    """POST /share reads its JSON body itself (it takes a form too): truncated or empty JSON escaped as a 500
    (found by qa20)."""
    assert detail(post(client, "/share", text)) == {"body": f"not valid JSON: {reason}"}


@pytest.mark.parametrize(
    ("path", "body", "field", "message"),
    [
        (
            RANK,
            {"model": "llama-3.1-8b", "gpus": "H100-SXM"},
            "gpus",
            'must be a JSON list, one value too: ["H100-SXM"]',
        ),
        ("/api/v1/mix", {"model": "llama-3.1-8b", "mix": {"shape": "chat"}}, "mix", "must be a JSON list"),
        (RANK, {"model": 123}, "model", "must be text, in quotes"),
        (RANK, {"model": ""}, "model", "must not be empty"),
        (RANK, {"model": "llama-3.1-8b", "gpus": [""]}, "gpus.0", "must not be empty"),
        ("/api/v1/plan/serving", {"workload": "llama-3.1-8b"}, "workload", "must be a JSON object of fields"),
        (RANK, [{"model": "llama-3.1-8b"}], "body", "must be a JSON object of fields"),
        ("/api/v1/rank/inference?terms=maybe", {"model": "llama-3.1-8b"}, "terms", "must be true or false"),
    ],
)
def test_a_value_of_the_wrong_json_shape_is_said_in_words(
    client: TestClient, path: str, body: object, field: str, message: str
) -> None:
    """pydantic's "Input should be a valid list", "valid string", "valid dictionary or object to extract fields from"
    and "String should have at least 1 character" reached script writers as written (found by qa41)."""
    answer = client.post(path, json=body)
    assert answer.status_code == 422
    said = {e["field"]: e["message"] for e in answer.json()["detail"]}
    assert message in said[field] and "Input should" not in said[field]
