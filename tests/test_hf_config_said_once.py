"""An unreadable config.json is said once beside its field: the message read "could not read this config.json:
hf_config: 'num_hidden_layers' must be an integer" under field hf_config, the field's name twice (found by apipage)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

BAD = {"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": "x", "intermediate_size": 14336}
SAID = "could not read this config.json: 'num_hidden_layers' must be an integer, got 'x'"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/rank/inference", {"hf_config": BAD}, "hf_config"),
        ("/api/v1/plan/serving", {"workload": {"hf_config": BAD}}, "workload.hf_config"),
        ("/api/v1/mix", {"hf_config": BAD, "mix": "chat:1", "requests_per_day": 100}, "hf_config"),
    ],
)
def test_the_api_says_an_unreadable_config_once(client: TestClient, path: str, body: dict, field: str) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == 422
    assert {"field": field, "message": SAID} in answer.json()["detail"]


def test_a_page_twin_says_it_once_too(client: TestClient) -> None:
    answer = client.get("/rank.json?" + urlencode({"phase": "inference", "hf_config_json": json.dumps(BAD)}))
    assert answer.status_code == 422
    assert answer.json()["detail"] == [{"field": "hf_config_json", "message": SAID}]
