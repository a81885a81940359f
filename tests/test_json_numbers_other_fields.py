"""A JSON body with a quoted number names every other wrong field in the same answer (found by qa32): the training
rank API answered `{"budget_usd": "lots", "method": "pretrian", "max_day": 3, "model": "nope"}` with budget_usd
alone, and the method, the misspelt field and the unknown model only once that was fixed."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.web.json_api.json_types import NOT_A_NUMBER


def _fields(client: TestClient, path: str, body: dict) -> dict[str, str]:
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    return {e["field"]: e["message"] for e in response.json()["detail"]}


def test_a_quoted_number_does_not_hide_the_other_wrong_fields(client: TestClient) -> None:
    body = {"model": "nope", "budget_usd": "lots", "method": "pretrian", "max_day": 3, "gpus": "H100-SXM"}
    fields = _fields(client, "/api/v1/rank/training", body)
    assert fields["budget_usd"] == NOT_A_NUMBER
    assert set(fields) == {"budget_usd", "method", "max_day", "gpus", "model"}
    assert "did you mean max_days?" in fields["max_day"] and "unknown model 'nope'" in fields["model"]


def test_a_quoted_number_in_a_nested_body_keeps_its_siblings_errors(client: TestClient) -> None:
    body = {"workload": {"input_len": "8000", "tpot_ms": -1}, "traffic": {}}
    fields = _fields(client, "/api/v1/disagg", body)
    assert fields["workload.input_len"] == NOT_A_NUMBER and "workload.tpot_ms" in fields
    assert len(fields) == 2, "the refused value is named once, not again as missing or unparsed"


def test_a_required_quoted_number_is_named_once(client: TestClient) -> None:
    fields = _fields(client, "/api/v1/own", {"gpu": "H100-SXM", "gpu_count": "8", "utilisation_pct": 500})
    assert fields["gpu_count"] == NOT_A_NUMBER and "utilisation_pct" in fields and len(fields) == 2
