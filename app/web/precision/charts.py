"""Plotly figure of the precision comparison (app.service.charts.precision_cost's numbers): the ranked cost of each
precision's best option."""

from __future__ import annotations

from app.service.charts.tables import BarChart
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout, money_axis


def cost_by_precision_figure(chart: BarChart) -> Figure:
    """Horizontal bars, one per precision with a feasible option; hover gives the option and its latency."""
    (bars,) = chart.series
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": list(bars.y),
        "x": list(bars.x),
        "customdata": list(bars.details),
        "marker": {"color": [PALETTE[i % len(PALETTE)] for i in range(len(bars.y))]},
        "hovertemplate": "%{y}: $%{x:.3f}<br>%{customdata}<extra></extra>",
    }
    return {
        "data": [trace],
        "layout": layout(
            height=max(240, 48 * len(bars.y) + 90),
            xaxis=money_axis(chart.value_title),
            yaxis={"autorange": "reversed", "automargin": True},
            margin={"l": 10, "r": 20, "t": 10, "b": 50},
        ),
    }
