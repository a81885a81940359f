"""Plotly figure of the disaggregation answer: monthly cost of aggregated serving against each plan's pools."""

from __future__ import annotations

from typing import Any

from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, hbar_trace, stacked_hbars


def _layout(pool: dict[str, Any]) -> str:
    """'8×B200 TP8', '8×B200 TP4×PP2 DP-attn': the pool's instance and how the model is split over it."""
    pipeline = f"×PP{pool['pipeline_parallel']}" if pool["pipeline_parallel"] > 1 else ""
    attention = " DP-attn" if pool["attention_parallel"] == "dp" else ""
    return f"{pool['gpu_count']}×{pool['gpu_id']} TP{pool['tensor_parallel']}{pipeline}{attention}"


def _label(plan: dict[str, Any]) -> str:
    prefill, decode = plan["prefill"], plan["decode"]
    return f"{plan['ratio']} {_layout(prefill)} / {_layout(decode)} ({prefill['provider_name']})"


def _unique(labels: list[str]) -> list[str]:
    """Plotly stacks every bar that shares a category into one: a repeated label gets its plan's place
    ('… · plan 4', its row in the plans table), so two plans never draw as one bar of twice the cost."""
    seen: set[str] = set()
    unique = []
    for place, label in enumerate(labels, start=1):
        unique.append(label if label not in seen else f"{label} · plan {place}")
        seen.add(unique[-1])
    return unique


def cost_by_layout(payload: dict[str, Any]) -> Figure:
    """Stacked horizontal bars: aggregated as one bar, each disaggregated plan as prefill + decode."""
    agg, plans = payload["aggregated"], payload["disaggregated"]
    labels = [f"aggregated {agg['gpu_count']}×{agg['gpu_id']} ({agg['provider_name']})"] if agg else []
    labels += _unique([_label(p) for p in plans])
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
