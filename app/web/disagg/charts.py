"""Plotly figure of the disaggregation answer (app.service.charts.disagg_cost's numbers): monthly cost of aggregated
serving against each plan's pools."""

from __future__ import annotations

from app.service.charts.tables import BarChart
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, hbar_trace, stacked_hbars

COLOUR_OF = {"aggregated": PALETTE[0], "prefill pool": PALETTE[1], "decode pool": PALETTE[2]}


def cost_by_layout_figure(chart: BarChart) -> Figure:
    """Stacked horizontal bars: aggregated as one bar, each disaggregated plan as prefill + decode."""
    traces = [
        hbar_trace(
            one.name,
            list(one.y),
            list(one.x),
            COLOUR_OF[one.name],
            "%{y}: $%{x:,.0f} a month<extra>" + one.name + "</extra>",
        )
        for one in chart.series
    ]
    return stacked_hbars(
        traces,
        height=max(240, 44 * len(chart.categories) + 110),
        x_title=chart.value_title,
        legend_y=-0.25,
        bottom=80,
    )
