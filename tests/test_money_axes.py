"""Every axis that draws dollars reads as money: its tick labels carry "$" (tickprefix on a linear axis, "$" in each
explicit label on a log one). The bar charts (/precision's ranked cost, /mix's and /disagg's monthly cost, a GPU's
prices) and /own's spend showed bare "20k" beside an axis title in words; only the log axes said "$"."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.web.rendering.charts import log_axis, money_axis

PAGES = [
    "/?phase=inference&model=llama-3.1-70b",
    "/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=20000",
    "/?phase=training&model=llama-3.1-8b",
    "/compare?phase=inference&model=llama-3.1-70b&gpus=H100-SXM&gpus=H200&gpus=B200",
    "/plan?model=llama-3.1-70b&requests_per_day=864000&months=12",
    "/mix?model=llama-3.1-8b",
    "/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=60",
    "/precision?model=llama-3.1-70b",
    "/precision?model=llama-3.1-70b&peak_requests_per_s=5&rank_by=fleet",
    "/disagg?model=llama-3.1-70b",
    "/gpus/H100-SXM",
]
BLOCK = re.compile(r'<script type="application/json" data-chart="([^"]*)">(.*?)</script>', re.S)


def _money_axes(html: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(chart id, axis name, axis) of each axis whose title names dollars."""
    axes = []
    for chart_id, text in BLOCK.findall(html):
        for name, axis in json.loads(text)["layout"].items():
            title = axis.get("title", {}).get("text", "") if name.startswith(("xaxis", "yaxis")) else ""
            if "$" in title or "USD" in title:
                axes.append((chart_id, name, axis))
    return axes


def _reads_as_money(axis: dict[str, Any]) -> bool:
    labels = axis.get("ticktext")
    return bool(labels and all(label.startswith("$") for label in labels)) or axis.get("tickprefix") == "$"


@pytest.mark.parametrize("path", PAGES)
def test_every_money_axis_shows_dollars_on_its_ticks(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    axes = _money_axes(page.text)
    assert axes, "each of these pages draws a chart in dollars"
    assert [(chart, name) for chart, name, axis in axes if not _reads_as_money(axis)] == []


def test_the_bar_charts_money_axes_carry_the_prefix(client: TestClient) -> None:
    charts = {
        chart for path in PAGES[5:] for chart, _, axis in _money_axes(client.get(path).text) if "tickprefix" in axis
    }
    assert {"mix-cost", "own-rent", "cost-precision", "cost-disagg", "price-chart"} <= charts


def test_a_log_money_axis_without_explicit_ticks_keeps_its_prefix() -> None:
    assert log_axis("$ per step", None, prefix="$")["tickprefix"] == "$"
    assert "tickprefix" not in log_axis("requests per day", None)


def test_a_linear_money_axis_separates_thousands() -> None:
    """screens2 left "$1000" on linear money ticks where the page writes $1,000."""
    axis = money_axis("monthly cost (USD)")
    assert axis["tickprefix"] == "$" and axis["separatethousands"] is True
