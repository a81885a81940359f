"""Plotly figure of the GPU mix (app.service.charts.mix_cost's numbers): monthly cost stacked per offer, the mix beside
each single-type fleet."""

from __future__ import annotations

from app.service.charts.tables import BarChart
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, hbar_trace, stacked_hbars


def cost_by_offer_figure(chart: BarChart) -> Figure:
    """One horizontal bar per fleet (the mix first), one coloured segment per offer with its replicas."""
    traces = [
        hbar_trace(
            one.name,
            list(one.y),
            list(one.x),
            PALETTE[n % len(PALETTE)],
            "%{customdata}<br>$%{x:,.0f}/month<extra></extra>",
            customdata=list(one.details),
        )
        for n, one in enumerate(chart.series)
    ]
    return stacked_hbars(
        traces,
        height=max(240, 56 * len(chart.categories) + 120),
        x_title=chart.value_title,
        legend_y=-0.3,
        bottom=60,
    )
