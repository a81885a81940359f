"""Minimum replicas 0 is accepted and read as 1 (autoscaled keeps one replica warm): the answer says so, on the plan
and disagg APIs, their pages and the CLI, and the field's description says the same (never silently)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.scoring.serving.traffic.week import MIN_REPLICAS_ZERO_NOTE, Traffic

WORKLOAD = {"model": "llama-3.1-8b"}


def test_the_plan_api_notes_that_zero_minimum_replicas_reads_as_one(client: TestClient) -> None:
    for floor, noted in ((0, True), (1, False)):
        body = {"workload": WORKLOAD, "traffic": {"requests_per_day": 100000, "min_replicas": floor}}
        answer = client.post("/api/v1/plan/serving", json=body).json()
        assert (MIN_REPLICAS_ZERO_NOTE in answer["notes"]) is noted
        assert answer["assumptions"]["autoscaled_floor_replicas"] == 1


def test_the_disagg_api_and_the_pages_note_it_too(client: TestClient) -> None:
    body = {"workload": WORKLOAD, "traffic": {"min_replicas": 0}}
    assert MIN_REPLICAS_ZERO_NOTE in client.post("/api/v1/disagg", json=body).json()["notes"]
    for page in ("/plan", "/disagg"):
        assert "Minimum replicas 0 is read as 1" in client.get(f"{page}?model=llama-3.1-8b&min_replicas=0").text


def test_the_cli_notes_it(database: str, capsys: Any) -> None:
    assert cli(["plan", "serving", "--model", "llama-3.1-8b", "--min-replicas", "0", "--limit", "1"]) == 0
    assert f"note: {MIN_REPLICAS_ZERO_NOTE}" in capsys.readouterr().out


def test_the_field_description_says_what_zero_means() -> None:
    assert "0 is read as 1" in (Traffic.model_fields["min_replicas"].description or "")
