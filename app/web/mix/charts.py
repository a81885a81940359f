"""Plotly figure of the GPU mix: monthly cost stacked per offer, the mix beside each single-type fleet."""

from __future__ import annotations

from typing import Any

from app.web.charts import Figure, layout
from app.web.rank.charts import PALETTE

SINGLE_BARS = 4  # the mix and the cheapest few single-type fleets


def cost_by_offer(payload: dict[str, Any]) -> Figure:
    """One horizontal bar per fleet (the mix first), one coloured segment per offer with its replicas."""
    fleets = [f for f in [payload["mix"], *payload["singles"][:SINGLE_BARS]] if f]
    names = ["cheapest mix" if i == 0 and payload["mix"] else f["label"] for i, f in enumerate(fleets)]
    offers: list[str] = []
    for fleet in fleets:
        offers += [r["label"] for r in fleet["rows"] if r["label"] not in offers]
    traces = []
    for n, offer in enumerate(offers):
        rows = [next((r for r in f["rows"] if r["label"] == offer), None) for f in fleets]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": offer,
                "y": names,
                "x": [r["usd_per_month"] if r else 0 for r in rows],
                "customdata": [f"{r['replicas']} × {offer}: {', '.join(r['serves'])}" if r else "" for r in rows],
                "marker": {"color": PALETTE[n % len(PALETTE)]},
                "hovertemplate": "%{customdata}<br>$%{x:,.0f}/month<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            barmode="stack",
            height=max(240, 56 * len(fleets) + 120),
            xaxis={"title": {"text": "$ per month (always on, sized for the busiest hour)"}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
            legend={"orientation": "h", "y": -0.3},
            margin={"l": 10, "r": 20, "t": 10, "b": 60},
        ),
    }
