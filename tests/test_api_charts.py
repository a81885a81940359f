"""The charts' numbers in every JSON answer: POST /api/v1/mix, /own, /precision and /disagg (and their CLI's --json)
give the `charts` their pages' JSON twins give; the rank APIs only when asked (`?charts=true`, `--charts --json`),
since they add time to every rank call. Before, a client of the API read no chart's numbers but the plan's."""

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


RANK_QUESTIONS = {
    "inference": ({"model": "llama-3.1-70b"}, "/rank.json?phase=inference&model=llama-3.1-70b"),
    "training": ({"model": "llama-3.1-8b"}, "/rank.json?phase=training&model=llama-3.1-8b"),
}


@pytest.mark.parametrize("phase", sorted(RANK_QUESTIONS))
def test_the_rank_api_gives_charts_only_when_asked(phase: str, client: TestClient) -> None:
    body, twin = RANK_QUESTIONS[phase]
    plain = client.post(f"/api/v1/rank/{phase}", json=body)
    assert plain.status_code == 200 and "charts" not in plain.json()
    asked = client.post(f"/api/v1/rank/{phase}?charts=true", json=body).json()
    assert asked["charts"] and asked["charts"] == client.get(twin).json()["charts"]
    assert {k: v for k, v in asked.items() if k != "charts"} == plain.json()
    assert client.post(f"/api/v1/rank/{phase}?charts=false", json=body).content == plain.content


def test_the_rank_apis_charts_draw_the_leading_configurations_whatever_the_limit_or_sort(client: TestClient) -> None:
    body, twin = RANK_QUESTIONS["inference"]
    lean = client.post("/api/v1/rank/inference?charts=true&limit=1&sort=ttft&terms=false", json=body).json()
    assert len(lean["options"]) == 1
    assert lean["charts"] == client.get(twin).json()["charts"]


def test_a_bad_charts_value_is_a_422_naming_it(client: TestClient) -> None:
    response = client.post("/api/v1/rank/inference?charts=maybe", json={"model": "llama-3.1-8b"})
    assert response.status_code == 422
    assert [entry["field"] for entry in response.json()["detail"]] == ["charts"]


def test_the_rank_cli_gives_the_apis_charts_with_charts_and_json(
    client: TestClient, database: str, capsys: Any
) -> None:
    api = client.post("/api/v1/rank/training?charts=true&limit=3", json={"model": "llama-3.1-8b"}).json()
    assert cli(["rank", "training", "--model", "llama-3.1-8b", "--limit", "3", "--charts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == api
    assert cli(["rank", "training", "--model", "llama-3.1-8b", "--limit", "3", "--json"]) == 0
    assert "charts" not in json.loads(capsys.readouterr().out)


def test_the_rank_cli_refuses_charts_without_json(database: str, capsys: Any) -> None:
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--charts"]) == 2
    assert "--charts" in capsys.readouterr().err


def test_a_release_precision_rankings_curves_are_drawn_at_the_precision_ranked(client: TestClient) -> None:
    """gpt-oss-120b without a weight_dtype ranks its MXFP4 release (1×H200 leads): its curves, solved at BF16, which
    does not fit one H200, were missing from the page, its twin and so the API; solved as ranked, they are drawn."""
    twin = client.get("/rank.json?phase=inference&model=gpt-oss-120b").json()
    assert [chart["chart_id"] for chart in twin["charts"]] == ["cost-latency", "throughput-batch", "memory"]
    api = client.post("/api/v1/rank/inference?charts=true&limit=5", json={"model": "gpt-oss-120b"}).json()
    assert api["charts"] == twin["charts"]
