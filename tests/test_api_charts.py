"""The charts' numbers in every JSON answer: POST /api/v1/mix, /own, /precision and /disagg (and their CLI's --json)
give the `charts` their pages' JSON twins give. Before, a client of the API read no chart's numbers but the plan's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli

# (API path, body, the page's JSON twin asking the same question, the CLI's arguments)
REPORTS: dict[str, tuple[str, dict[str, Any], str, list[str]]] = {
    "mix": (
        "/api/v1/mix",
        {"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.3"},
        "/mix.json?model=llama-3.1-8b&mix=chat:0.7,rag:0.3",
        ["mix", "--model", "llama-3.1-8b", "--mix", "chat:0.7,rag:0.3"],
    ),
    "own": (
        "/api/v1/own",
        {"gpu": "H100-SXM", "gpu_count": 8, "utilisation_pct": 60},
        "/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=60",
        ["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--utilisation-pct", "60"],
    ),
    "precision": (
        "/api/v1/precision",
        {"model": "llama-3.1-70b", "tpot_ms": 40},
        "/precision.json?model=llama-3.1-70b&tpot_ms=40",
        ["precision", "--model", "llama-3.1-70b", "--tpot-ms", "40"],
    ),
    "disagg": (
        "/api/v1/disagg",
        {"workload": {"model": "llama-3.1-70b"}},
        "/disagg.json?model=llama-3.1-70b",
        ["disagg", "--model", "llama-3.1-70b"],
    ),
}
CHART_IDS = {"mix": "mix-cost", "own": "own-rent", "precision": "cost-precision", "disagg": "cost-disagg"}


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_each_report_api_and_its_cli_json_give_the_twins_charts(
    name: str, client: TestClient, database: str, capsys: Any
) -> None:
    path, body, twin, argv = REPORTS[name]
    api = client.post(path, json=body)
    assert api.status_code == 200
    charts = api.json()["charts"]
    assert [chart["chart_id"] for chart in charts] == [CHART_IDS[name]] and charts[0]["rows"]
    assert charts == client.get(twin).json()["charts"]
    assert cli([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["charts"] == charts


def test_the_report_cli_text_form_builds_no_charts(database: str, capsys: Any) -> None:
    assert cli(["own", "--gpu", "H100-SXM", "--gpu-count", "8"]) == 0
    assert "charts" not in capsys.readouterr().out

