"""Plotly figure of owning vs renting: cash spent over the months, with the break-even marked."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import significant
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout


def cumulative_cost(payload: dict[str, Any]) -> Figure:
    points = payload["cumulative"]
    months = [p["month"] for p in points]
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "own (purchase, then energy and colocation)",
            "x": months,
            "y": [p["owning_usd"] for p in points],
            "line": {"color": PALETTE[0]},
            "hovertemplate": "month %{x}: $%{y:,.0f}<extra>own</extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"rent on demand at {significant(payload['question']['utilisation_pct'])}% utilisation",
            "x": months,
            "y": [p["renting_usd"] for p in points],
            "line": {"color": PALETTE[1], "dash": "dash"},
            "hovertemplate": "month %{x}: $%{y:,.0f}<extra>rent</extra>",
        },
    ]
    even = payload["break_even_months"]
    if even is not None:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "break-even",
                "x": [even],
                "y": [payload["break_even_usd"]],
                "marker": {"symbol": "diamond", "size": 13, "color": "#1b1f24"},
                "hovertemplate": "break-even after %{x:.1f} months<extra></extra>",
            }
        )
    life = payload["depreciation_months"]
    shapes = [{"type": "line", "x0": life, "x1": life, "yref": "paper", "y0": 0, "y1": 1, "line": {"dash": "dot"}}]
    notes = [
        {"x": life, "yref": "paper", "y": 1, "text": "end of depreciation", "showarrow": False, "xanchor": "right"}
    ]
    return {
        "data": traces,
        "layout": layout(
            height=400,
            xaxis={"title": {"text": "months"}, "rangemode": "tozero"},
            yaxis={"title": {"text": "$ spent so far"}, "rangemode": "tozero"},
            shapes=shapes,
            annotations=notes,
            legend={"orientation": "h", "y": -0.25},
        ),
    }
