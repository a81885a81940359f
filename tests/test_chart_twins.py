"""Every number a chart's no-JavaScript table shows is in the page's JSON twin (`charts`), from the one table both read:
a buyer found the plan's cost-vs-traffic curve on /plan but nowhere in /plan.json, the rank page's curves nowhere in
/rank.json."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.web.rendering.chart_tables import number_text

PAGES = [
    "/?phase=inference&model=llama-3.1-70b",
    "/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=20000&sort=ttft",
    "/?phase=training&model=llama-3.1-8b",
    "/compare?phase=inference&model=llama-3.1-70b&gpus=H100-SXM&gpus=H200&gpus=B200",
    "/plan?model=llama-3.1-70b&requests_per_day=864000&months=12",
    "/mix?model=llama-3.1-8b",
    "/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=60",
    "/precision?model=llama-3.1-70b",
    "/disagg?model=llama-3.1-70b",
    "/gpus/H100-SXM",
    "/gpus/H100-SXM?price_type=on_demand&min_gpus=8",
]
FIGURE = re.compile(r'<figure class="chart">\s*<div id="([^"]*)".*?<details class="chart-data">(.*?)</details>', re.S)
LABEL = re.compile(r'aria-label="Numbers of the chart: ([^"]*)"')
ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
CELL = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>", re.S)


def _page_tables(html: str) -> list[dict]:
    """Each chart's id, caption and its table's cells as the page shows them."""
    tables = []
    for chart_id, details in FIGURE.findall(html):
        label = LABEL.search(details)
        assert label is not None
        rows = [[unescape(c) for c in CELL.findall(row)] for row in ROW.findall(details)]
        tables.append({"chart_id": chart_id, "label": unescape(label.group(1)), "columns": rows[0], "rows": rows[1:]})
    return tables


def _as_shown(chart: dict) -> dict:
    """The twin's entry as the page's table words it: its numbers rounded by the one formatter the page uses."""
    rows = [[row[0], *map(number_text, row[1:])] for row in chart["rows"]]
    return {"chart_id": chart["chart_id"], "label": chart["label"], "columns": chart["columns"], "rows": rows}


def _page_and_twin(client: TestClient, path: str) -> tuple[str, dict]:
    page = client.get(path)
    assert page.status_code == 200
    twin = re.search(r"<([^>]*)>", page.headers["Link"])
    assert twin is not None and ".json" in twin.group(1)
    return page.text, client.get(twin.group(1)).json()


@pytest.mark.parametrize("path", PAGES)
def test_each_charts_table_is_the_json_twins_charts_entry(client: TestClient, path: str) -> None:
    html, body = _page_and_twin(client, path)
    shown = _page_tables(html)
    assert shown and len(shown) == html.count('<figure class="chart">')
    assert shown == [_as_shown(chart) for chart in body["charts"]]


def test_the_plans_cost_curve_is_in_plan_json_in_numbers(client: TestClient) -> None:
    _, body = _page_and_twin(client, PAGES[4])
    (curve,) = body["charts"]
    assert curve["chart_id"] == "cost-traffic"
    assert curve["columns"] == ["Series", "requests per day (mean over the week)", "$ per month"]
    series = {row[0] for row in curve["rows"]}
    assert any(name.startswith("dedicated ") for name in series) and any("serverless" in name for name in series)
    assert all(isinstance(x, float | int) and isinstance(y, float | int) for _, x, y in curve["rows"])
    assert ("break-even" in series) == bool(body["break_even"]["requests_per_day"])
    assert "12 of 161 points" in curve["note"]  # the page's evenly spaced points, the JSON's too


def test_a_table_and_twin_that_disagree_fail_the_comparison() -> None:
    """The comparison above reads the cells, not only their count: one rounded cell off is a difference."""
    chart = {"chart_id": "c", "label": "l", "columns": ["Series", "x", "y"], "rows": [["a", 1000.4, 2.5]]}
    html = (
        '<figure class="chart">\n  <div id="c"></div><details class="chart-data"><table class="data" '
        'aria-label="Numbers of the chart: l"><thead><tr><th scope="col">Series</th><th scope="col">x</th>'
        '<th scope="col">y</th></tr></thead><tbody><tr><th scope="row">a</th><td class="n">1,000</td>'
        '<td class="n">2.6</td></tr></tbody></table></details>'
    )
    assert _page_tables(html) != [_as_shown(chart)]
    assert _page_tables(html.replace("2.6", "2.5")) == [_as_shown(chart)]


def test_the_plan_api_and_the_cli_give_the_pages_chart_numbers(client: TestClient, database: str, capsys: Any) -> None:
    """One computation (app.service.charts.plan_cost) for the page's table, /plan.json, the API and the CLI's --json."""
    question = {"workload": {"model": "llama-3.1-70b"}, "traffic": {"requests_per_day": 864000}}
    api = client.post("/api/v1/plan/serving", json=question).json()
    html, twin = _page_and_twin(client, "/plan?model=llama-3.1-70b&requests_per_day=864000")
    assert api["charts"] and api["charts"] == twin["charts"]
    assert _page_tables(html) == [_as_shown(chart) for chart in api["charts"]]
    assert cli(["plan", "serving", "--model", "llama-3.1-70b", "--requests-per-day", "864000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["charts"] == api["charts"]


def test_a_gpus_price_chart_is_in_its_api_and_cli_as_filtered(client: TestClient, database: str, capsys: Any) -> None:
    """GET /api/v1/gpus/{id} and `gpumatch catalog offers --json` give the chart of the offers the filters keep, as
    the page draws it (app.service.charts.gpu_prices)."""
    html, twin = _page_and_twin(client, "/gpus/H100-SXM?price_type=on_demand")
    api = client.get("/api/v1/gpus/H100-SXM?price_type=on_demand").json()
    (chart,) = api["charts"]
    assert chart == twin["charts"][0] and chart["columns"] == ["", "$ per GPU-hour"]
    assert "of the offers the filters keep (on demand)" in chart["label"]
    sellers = [row[0].rsplit(" (on demand", 1)[0] for row in chart["rows"]]  # one bar per seller, its cheapest
    assert sorted(sellers) == sorted({o["provider_name"] for o in api["offers"]})
    every = client.get("/api/v1/gpus/H100-SXM").json()["charts"][0]["rows"]
    assert len(every) > len(chart["rows"]) and any("(spot" in row[0] for row in every)
    assert cli(["catalog", "offers", "H100-SXM", "--price-type", "on_demand", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["charts"] == api["charts"]
