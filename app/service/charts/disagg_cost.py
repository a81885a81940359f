"""The disaggregation answer's chart in numbers: the monthly cost of aggregated serving against each disaggregated
plan's prefill and decode pools; read from POST /api/v1/disagg's body."""

from __future__ import annotations

from typing import Any

from app.service.charts.tables import BarChart, BarSeries

CHART_ID = "cost-disagg"
CHART_LABEL = "Monthly cost: aggregated against each disaggregated plan's prefill and decode pools (stacked)"
VALUE_TITLE = "$ per month (autoscaled)"
ROLES = ("prefill", "decode")


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


def has_chart(payload: dict[str, Any]) -> bool:
    """A chart only where there is a layout to draw."""
    return bool(payload["aggregated"] or payload["disaggregated"])


def cost_by_layout(payload: dict[str, Any]) -> BarChart:
    """Aggregated as one bar, each disaggregated plan as its prefill and decode pools (null where a bar has none)."""
    agg, plans = payload["aggregated"], payload["disaggregated"]
    labels = [f"aggregated {agg['gpu_count']}×{agg['gpu_id']} ({agg['provider_name']})"] if agg else []
    labels += _unique([_label(p) for p in plans])
    pad = [None] if agg else []
    series = []
    if agg:
        series.append(BarSeries(name="aggregated", y=labels, x=[agg["monthly_usd"]] + [None] * len(plans)))
    for role in ROLES:
        series.append(BarSeries(name=f"{role} pool", y=labels, x=pad + [p[role]["monthly_usd"] for p in plans]))
    return BarChart(chart_id=CHART_ID, label=CHART_LABEL, categories=labels, series=series, value_title=VALUE_TITLE)


def chart_tables(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """POST /api/v1/disagg's `charts`: the /disagg page's chart in numbers, as /disagg.json gives them (none where
    no layout serves)."""
    return [cost_by_layout(payload).table().model_dump()] if has_chart(payload) else []
