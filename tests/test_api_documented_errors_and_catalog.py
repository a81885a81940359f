"""What a client generated from /openapi.json reads: every operation's real answers (the catalog, the feature APIs,
POST /share, the health checks) and its errors (404, 405, 415, 422) validate against the response /openapi.json
documents for their status, every object closed. tests/test_api_schemas.py checks the rank, estimate and plan
answers field by field; this covers every other operation, and fails when one is added without a case here."""

from __future__ import annotations

import copy
import re
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from tests.test_api_schemas import CASES as RANK_CASES
from tests.test_api_schemas import closed

DRAFT = "https://json-schema.org/draft/2020-12/schema"
WORKLOAD_70B = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 8000, "output_len": 500}
# (method, path, JSON body, expected status)
ANSWERS: list[tuple[str, str, dict[str, Any] | None, int]] = [
    ("GET", "/healthz", None, 200),
    ("GET", "/readyz", None, 200),
    ("GET", "/api/v1/gpus?vendor=nvidia&min_memory_gb=80", None, 200),
    ("GET", "/api/v1/gpus/H100-SXM", None, 200),
    ("GET", "/api/v1/offers?gpu=H100-SXM", None, 200),
    ("GET", "/api/v1/offers/1/history", None, 200),
    ("GET", "/api/v1/providers?sells=per_token_only&sort=offers", None, 200),
    ("GET", "/api/v1/providers/deepinfra", None, 200),
    ("GET", "/api/v1/models?kind=moe&sort=params", None, 200),
    ("GET", "/api/v1/gpus/H100-SXM?provider=lambda&sort=date", None, 200),
    ("GET", "/api/v1/models/deepseek-v3", None, 200),
    ("GET", "/api/v1/token-prices?model=llama-3.1-70b", None, 200),
    ("POST", "/api/v1/precision", {"model": "llama-3.1-8b"}, 200),
    ("POST", "/api/v1/own", {"gpu": "H100-SXM", "gpu_count": 8, "utilisation_pct": 60}, 200),
    ("POST", "/api/v1/disagg", {"workload": WORKLOAD_70B, "traffic": {"requests_per_day": 1e6}}, 200),
    ("POST", "/api/v1/mix", {"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.3"}, 200),
    ("POST", "/share", {"path": "/", "query": "model=llama-3.1-8b&input_len=2000"}, 201),
    # errors: each in the one documented shape
    ("GET", "/api/v1/gpus/H900", None, 404),
    ("GET", "/api/v1/offers/999999/history", None, 404),
    ("GET", "/api/v1/models/gpt-9", None, 404),
    ("GET", "/api/v1/providers/amazon", None, 404),
    ("GET", "/api/v1/models?sort=size", None, 422),
    ("GET", "/api/v1/gpus/H100-SXM?min_gpus=0", None, 422),
    ("GET", "/api/v1/offers?gpu=H100", None, 422),
    ("DELETE", "/api/v1/providers", None, 405),
    ("POST", "/api/v1/own", {"gpu": "H100-SXM", "gpu_cnt": 8}, 422),
    ("POST", "/share", {"path": "/nope", "query": "model=llama-3.1-8b"}, 422),
]


@pytest.fixture(scope="module")
def spec(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def documented_schema(spec: dict[str, Any], method: str, path: str, status: int) -> dict[str, Any]:
    """The JSON schema /openapi.json gives the answer of `method path` at `status` (its own, else its 4XX)."""
    bare = path.split("?")[0]
    for template, operations in spec["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), bare) and method.lower() in operations:
            responses = operations[method.lower()]["responses"]
            documented = responses.get(str(status)) or responses[f"{str(status)[0]}XX"]
            return documented["content"]["application/json"]["schema"]
    return spec["paths"][bare][next(iter(spec["paths"][bare]))]["responses"][f"{str(status)[0]}XX"]["content"][
        "application/json"
    ]["schema"]  # a method the path does not take: its 405 is documented on the path's other operation


@pytest.mark.parametrize(("method", "path", "body", "status"), ANSWERS, ids=[f"{m} {p} {s}" for m, p, _, s in ANSWERS])
def test_an_answer_matches_the_schema_documented_for_its_status(
    client: TestClient, spec: dict[str, Any], method: str, path: str, body: Any, status: int
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == status, response.text[:300]
    schema = {"$schema": DRAFT, **documented_schema(spec, method, path, status)}
    validator = jsonschema_rs.validator_for({**schema, "components": closed(copy.deepcopy(spec["components"]))})
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(response.json())]
    assert errors[:10] == []


def test_a_form_body_is_a_415_in_the_documented_error_shape(client: TestClient, spec: dict[str, Any]) -> None:
    response = client.post("/api/v1/mix", data={"model": "llama-3.1-8b"})
    assert response.status_code == 415
    schema = {"$schema": DRAFT, "$ref": "#/components/schemas/Error"}
    validator = jsonschema_rs.validator_for({**schema, "components": closed(copy.deepcopy(spec["components"]))})
    assert validator.is_valid(response.json())


def test_every_documented_operation_has_a_checked_answer(spec: dict[str, Any]) -> None:
    """A new endpoint gets a case here (or in tests/test_api_schemas.py) before a client meets its real answer."""
    checked = {(m, re.sub(r"\?.*", "", p)) for m, p, _, s in ANSWERS if s < 300}
    checked |= {(m, re.sub(r"\?.*", "", p)) for m, p, _, _ in RANK_CASES.values() if p.startswith("/api/")}
    missing = []
    for template, operations in spec["paths"].items():
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        for method in operations:
            if not any(m == method.upper() and re.fullmatch(pattern, p) for m, p in checked):
                missing.append(f"{method.upper()} {template}")
    assert missing == []
