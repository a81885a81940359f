"""Plotly figure of the disaggregation answer: monthly cost of aggregated serving against each plan's pools."""

from __future__ import annotations

from typing import Any

from app.web.charts import Figure, layout
from app.web.rank.charts import PALETTE


def _label(plan: dict[str, Any]) -> str:
    p, d = plan["prefill"], plan["decode"]
    return f"{plan['ratio']} {p['gpu_count']}×{p['gpu_id']} / {d['gpu_count']}×{d['gpu_id']} ({p['provider_name']})"


def cost_by_layout(payload: dict[str, Any]) -> Figure:
    """Stacked horizontal bars: aggregated as one bar, each disaggregated plan as prefill + decode."""
    agg, plans = payload["aggregated"], payload["disaggregated"]
    labels = [f"aggregated {agg['gpu_count']}×{agg['gpu_id']} ({agg['provider_name']})"] if agg else []
    labels += [_label(p) for p in plans]
    pad = [None] if agg else []
    traces = []
    if agg:
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": "aggregated",
                "y": labels,
                "x": [agg["monthly_usd"]] + [None] * len(plans),
                "marker": {"color": PALETTE[0]},
                "hovertemplate": "%{y}: $%{x:,.0f} a month<extra>aggregated</extra>",
            }
        )
    for i, role in enumerate(("prefill", "decode"), start=1):
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": f"{role} pool",
                "y": labels,
                "x": pad + [p[role]["monthly_usd"] for p in plans],
                "marker": {"color": PALETTE[i % len(PALETTE)]},
                "hovertemplate": "%{y}: $%{x:,.0f} a month<extra>" + role + " pool</extra>",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            barmode="stack",
            height=max(240, 44 * len(labels) + 110),
            xaxis={"title": {"text": "$ per month (autoscaled)"}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
            legend={"orientation": "h", "y": -0.25},
            margin={"l": 10, "r": 20, "t": 10, "b": 80},
        ),
    }
