"""Plotly figure of the disaggregation answer: monthly cost of aggregated serving against each plan's pools."""

from __future__ import annotations

from typing import Any

from app.web.charts import Figure, hbar_trace, stacked_hbars
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
            hbar_trace(
                "aggregated",
                labels,
                [agg["monthly_usd"]] + [None] * len(plans),
                PALETTE[0],
                "%{y}: $%{x:,.0f} a month<extra>aggregated</extra>",
            )
        )
    for i, role in enumerate(("prefill", "decode"), start=1):
        traces.append(
            hbar_trace(
                f"{role} pool",
                labels,
                pad + [p[role]["monthly_usd"] for p in plans],
                PALETTE[i % len(PALETTE)],
                "%{y}: $%{x:,.0f} a month<extra>" + role + " pool</extra>",
            )
        )
    return stacked_hbars(
        traces,
        height=max(240, 44 * len(labels) + 110),
        x_title="$ per month (autoscaled)",
        legend_y=-0.25,
        bottom=80,
    )
