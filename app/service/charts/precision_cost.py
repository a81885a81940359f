"""The precision comparison's chart in numbers: the ranked cost of each precision's best option (a bar per precision
with a feasible one); read from POST /api/v1/precision's body."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import fixed
from app.service.charts.tables import BarChart, BarSeries

CHART_ID = "cost-precision"


def _latency_words(best: dict[str, Any]) -> str:
    """The means and, as the ranking's rows give them, the p99s the limits are checked against."""
    ttft = f"TTFT {fixed(best['ttft_mean_ms'], 0)} ms (p99 {fixed(best['ttft_p99_ms'], 0)})"
    return f"mean {ttft} · TPOT {fixed(best['tpot_mean_ms'], 1)} ms (p99 {fixed(best['tpot_p99_ms'], 1)})"


def cost_by_precision(payload: dict[str, Any]) -> BarChart:
    """A bar per precision, its best option's ranked cost; its details the option, its latency and weights."""
    rows = [r for r in payload["rows"] if r["best"]]
    labels = [r["label"] for r in rows]
    details = [
        f"{r['best']['gpu_count']}×{r['best']['gpu_id']} · {r['best']['provider_name']}<br>"
        f"{_latency_words(r['best'])}<br>weights {fixed(r['weights_gb'], 1)} GB"
        for r in rows
    ]
    series = BarSeries(name="", y=labels, x=[r["best"]["ranked_cost"] for r in rows], details=details)
    unit = payload["ranked_unit"]
    label = f"Cheapest {unit} at each precision (bars); hover for the option and its latency"
    return BarChart(chart_id=CHART_ID, label=label, categories=labels, series=[series], value_title=unit)


def chart_tables(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """POST /api/v1/precision's `charts`: the /precision page's chart in numbers, as /precision.json gives them."""
    return [cost_by_precision(payload).table().model_dump()]
