"""The GPU mix's chart in numbers: the monthly cost of the cheapest mix and of the cheapest single-type fleets, a
segment per offer (with its replicas and the buckets it serves); read from POST /api/v1/mix's body."""

from __future__ import annotations

from typing import Any

from app.service.charts.tables import BarChart, BarSeries

SINGLE_BARS = 4  # the mix and the cheapest few single-type fleets
CHART_ID = "mix-cost"
CHART_LABEL = (
    "Monthly cost of the cheapest mix and of the cheapest single-type fleets, stacked per offer; hover for "
    "replicas and the buckets each serves"
)
VALUE_TITLE = "$ per month (always on, sized for the busiest hour)"


def cost_by_offer(payload: dict[str, Any]) -> BarChart:
    """A bar per fleet (the mix first), a segment per offer (0 where a fleet has none of it)."""
    fleets = [f for f in [payload["mix"], *payload["singles"][:SINGLE_BARS]] if f]
    names = ["cheapest mix" if i == 0 and payload["mix"] else f["label"] for i, f in enumerate(fleets)]
    offers: list[str] = []
    for fleet in fleets:
        offers += [r["label"] for r in fleet["rows"] if r["label"] not in offers]
    series = []
    for offer in offers:
        rows = [next((r for r in f["rows"] if r["label"] == offer), None) for f in fleets]
        series.append(
            BarSeries(
                name=offer,
                y=names,
                x=[r["usd_per_month"] if r else 0 for r in rows],
                details=[f"{r['replicas']} × {offer}: {', '.join(r['serves'])}" if r else "" for r in rows],
            )
        )
    return BarChart(chart_id=CHART_ID, label=CHART_LABEL, categories=names, series=series, value_title=VALUE_TITLE)


def chart_tables(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """POST /api/v1/mix's `charts`: the /mix page's chart in numbers, as /mix.json gives them."""
    return [cost_by_offer(payload).table().model_dump()]
