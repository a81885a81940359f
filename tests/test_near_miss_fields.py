"""A JSON body's unknown key names the field it nearly spells, at any depth, as a page's query does: the API said
only "Extra inputs are not permitted" for {"tpot": 40}."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

EXTRA = "Extra inputs are not permitted"


@pytest.mark.parametrize(
    ("path", "body", "field", "meant"),
    [
        ("/api/v1/rank/inference", {"model": "llama-3.1-8b", "tpot": 40}, "tpot", "tpot_ms"),
        (
            "/api/v1/plan/serving",
            {"workload": {"model": "llama-3.1-8b"}, "traffic": {"request_per_day": 5}},
            "traffic.request_per_day",
            "requests_per_day",
        ),
        (
            "/api/v1/mix",
            {"model": "llama-3.1-8b", "mix": [{"input_len": 10, "output_len": 5, "shr": 1}]},
            "mix.0.shr",
            "share",
        ),
        (
            "/api/v1/estimate/inference",
            {"model": "llama-3.1-8b", "gpu": "H100-SXM", "gpu_cnt": 2},
            "gpu_cnt",
            "gpu_count",
        ),
    ],
)
def test_an_unknown_key_names_the_field_it_nearly_spells(
    client: TestClient, path: str, body: dict[str, Any], field: str, meant: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422
    assert {"field": field, "message": f"{EXTRA} (did you mean {meant}?)"} in response.json()["detail"]


def test_a_key_near_no_field_gets_no_guess(client: TestClient) -> None:
    response = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-8b", "bogus": 1})
    assert response.json()["detail"] == [{"field": "bogus", "message": EXTRA}]


@pytest.mark.parametrize("sent_as", ["json", "data"])
def test_a_share_near_miss_names_the_field_it_nearly_spells(client: TestClient, sent_as: str) -> None:
    """POST /share reads its body through a dependency (JSON or the Save button's form), so it said only "Extra
    inputs are not permitted" for {"querry": ...}."""
    body = {"path": "/", "querry": "model=llama-3.1-8b"}
    response = client.post("/share", **{sent_as: body}, headers={"accept": "application/json"})  # type: ignore[arg-type]
    assert response.status_code == 422
    assert {"field": "querry", "message": f"{EXTRA} (did you mean query?)"} in response.json()["detail"]
