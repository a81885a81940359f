"""Plotly figure of the GPU mix: monthly cost stacked per offer, the mix beside each single-type fleet."""

from __future__ import annotations

from typing import Any

from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, hbar_trace, stacked_hbars

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
            hbar_trace(
                offer,
                names,
                [r["usd_per_month"] if r else 0 for r in rows],
                PALETTE[n % len(PALETTE)],
                "%{customdata}<br>$%{x:,.0f}/month<extra></extra>",
                customdata=[f"{r['replicas']} × {offer}: {', '.join(r['serves'])}" if r else "" for r in rows],
            )
        )
    return stacked_hbars(
        traces,
        height=max(240, 56 * len(fleets) + 120),
        x_title="$ per month (always on, sized for the busiest hour)",
        legend_y=-0.3,
        bottom=60,
    )
