"""Plotly figure of owning vs renting (app.service.charts.own_cost's numbers): cash spent over the months, with the
break-even marked."""

from __future__ import annotations

from typing import Any

from app.service.charts.own_cost import X_TITLE, Y_TITLE, OwnRentChart, SpendSeries
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout, money_axis, scatter_trace


def _trace(one: SpendSeries) -> dict[str, Any]:
    if one.kind == "break_even":
        return scatter_trace(
            "markers",
            one.name,
            one.x,
            one.y,
            marker={"symbol": "diamond", "size": 13, "color": "#1b1f24"},
            hovertemplate="break-even after %{x:.1f} months<extra></extra>",
        )
    line = {"color": PALETTE[0]} if one.kind == "own" else {"color": PALETTE[1], "dash": "dash"}
    return scatter_trace(
        "lines",
        one.name,
        one.x,
        one.y,
        line=line,
        hovertemplate="month %{x}: $%{y:,.0f}<extra>" + one.kind + "</extra>",
    )


def cumulative_cost_figure(chart: OwnRentChart) -> Figure:
    life = chart.depreciation_months
    shapes = [{"type": "line", "x0": life, "x1": life, "yref": "paper", "y0": 0, "y1": 1, "line": {"dash": "dot"}}]
    # above the plot (its top margin): inside it, the rent line's end ran through the words at the right edge
    note = {"x": life, "yref": "paper", "y": 1, "yanchor": "bottom", "showarrow": False, "xanchor": "right"}
    notes = [{**note, "text": "end of depreciation"}]
    return {
        "data": [_trace(one) for one in chart.series],
        "layout": layout(
            height=400,
            xaxis={"title": {"text": X_TITLE}, "rangemode": "tozero"},
            yaxis=money_axis(Y_TITLE),
            shapes=shapes,
            annotations=notes,
            legend={"orientation": "h", "y": -0.25},
        ),
    }
