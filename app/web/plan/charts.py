"""Plotly figure of the plan: monthly cost vs requests/day, dedicated steps against serverless lines; the numbers are
app.service.charts.plan_cost's, drawn here."""

from __future__ import annotations

import math
from typing import Any

from app.service.charts.plan_cost import DEDICATED_LINES, X_TITLE, Y_TITLE, CostSeries, CostTrafficChart
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout, log_axis, scatter_trace

USER_TRAFFIC_COLOUR = "#a3262a"


def cost_vs_traffic_figure(chart: CostTrafficChart) -> Figure:
    """Log-log: autoscaled dedicated cost as step lines, serverless prices as dashed straight lines, the user's
    traffic as a dotted vertical line and the break-even as a marker."""
    traces = _traces(chart.series)
    user_rpd = chart.user_requests_per_day
    shapes = [
        {
            "type": "line",
            "x0": user_rpd,
            "x1": user_rpd,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": USER_TRAFFIC_COLOUR, "dash": "dot"},
        }
    ]
    notes = [
        {
            "x": math.log10(user_rpd),  # plotly places annotations on a log axis by the exponent
            "yref": "paper",
            "y": 1,
            "yanchor": "bottom",  # above the plot, where no curve runs through it
            "text": "your traffic",
            "showarrow": False,
            "xanchor": "left",
            "font": {"color": USER_TRAFFIC_COLOUR},
        }
    ]
    return {
        "data": traces,
        "layout": layout(
            height=420,
            xaxis=log_axis(X_TITLE, [*chart.requests_per_day_grid, user_rpd]),
            yaxis=log_axis(Y_TITLE, [y for one in chart.series for y in one.y], prefix="$"),
            shapes=shapes,
            annotations=notes,
            legend={"orientation": "h", "y": -0.25},
        ),
    }


def _traces(series: list[CostSeries]) -> list[dict[str, Any]]:
    dedicated = serverless = 0
    traces = []
    for one in series:
        if one.kind == "dedicated":
            traces.append(_line(one, {"color": PALETTE[dedicated], "shape": "hv"}))
            dedicated += 1
        elif one.kind == "scaled_to_zero":
            traces.append(_line(one, {"color": PALETTE[0], "dash": "dashdot"}))
        elif one.kind == "serverless":
            traces.append(_line(one, {"color": PALETTE[DEDICATED_LINES + serverless], "dash": "dash"}))
            serverless += 1
        else:
            traces.append(_marker(one, "diamond" if one.kind == "break_even" else "diamond-open"))
    return traces


def _line(one: CostSeries, line: dict[str, Any]) -> dict[str, Any]:
    hover = "%{x:,.0f} req/day: $%{y:,.0f}/month<extra>" + one.label + "</extra>"
    return scatter_trace("lines", one.name, one.x, one.y, line=line, hovertemplate=hover)


def _marker(one: CostSeries, symbol: str) -> dict[str, Any]:
    return scatter_trace(
        "markers",
        one.name,
        one.x,
        one.y,
        marker={"symbol": symbol, "size": 13, "color": "#1b1f24"},
        hovertemplate=one.name + ": %{x:,.0f} req/day, $%{y:,.0f}/month<extra></extra>",
    )
