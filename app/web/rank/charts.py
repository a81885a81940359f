"""Plotly figures of a ranking's point and bar charts (app.service.charts.rank_points' numbers): cost vs latency with
the Pareto front, memory per configuration, and the training deadline frontier; plus the palette, marker styles and
limit line the other chart modules share. The per-configuration batch curves are in curve_charts.py."""

from __future__ import annotations

from typing import Any

from app.service.charts import rank_points
from app.service.charts.rank_points import CostScatter, FrontierChart, MemoryBars
from app.service.charts.tables import Series
from app.web.rendering.charts import LEGEND_BELOW, Figure, layout, log_axis

DASHES = ["solid", "dash", "dot", "dashdot"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "cross", "x", "star-triangle-up", "hexagon"]
# Twenty colours told apart side by side: the charts' series number at most a dozen or so (12 configurations of a
# cost chart, 11 GPUs of a batch job's), so no two series of one chart share a colour.
PALETTE = [
    "#0b5cad", "#d1495b", "#2e8540", "#edae49", "#6b4c9a", "#00798c", "#8c564b", "#e377c2", "#7f7f7f", "#17becf",
    "#f58231", "#911eb4", "#9a6324", "#469990", "#000075", "#bcbd22", "#f032e6", "#808000", "#4363d8", "#800000",
]  # fmt: skip


def pareto_trace(front: Series) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": front.name,
        "x": list(front.x),
        "y": list(front.y),
        "line": {"color": "#1b1f24", "dash": "dot", "shape": "hv"},
    }


def cost_scatter_figure(chart: CostScatter) -> Figure:
    """The best offer of each of the top configurations (colour by GPU), error bars from its band, the Pareto front."""
    traces: list[dict[str, Any]] = []
    for i, points in enumerate(chart.points):
        bars = {"type": "data", "symmetric": False, "thickness": 1, "width": 3, "array": points.above}
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": points.name,
                "x": list(points.x),
                "y": list(points.y),
                "marker": {"color": PALETTE[i % len(PALETTE)], "size": 10, "opacity": 0.9},
                "error_y": {**bars, "arrayminus": points.below} if points.above else {"visible": False},
                "text": points.text,
                "hovertemplate": "%{text}<br>"
                + chart.x_title
                + ": %{x:,.3~r}<br>"
                + chart.y_title
                + ": %{y:,.3~r}<extra></extra>",
            }
        )
    if chart.front:
        traces.append(pareto_trace(chart.front))
    y_prefix = "$" if "$" in chart.y_title else ""
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis={"title": {"text": chart.x_title}, "rangemode": "tozero" if chart.x_from_zero else "normal"},
            yaxis=log_axis(chart.y_title, chart.y_reach, prefix=y_prefix),
            legend=LEGEND_BELOW,
        ),
    }


def _capacity_marker(colour: str) -> dict[str, Any]:
    return {"symbol": "line-ns-open", "size": 24, "color": colour, "line": {"width": 3}}


def memory_figure(chart: MemoryBars) -> Figure:
    """Stacked memory per GPU with each card's capacity marked, and the fit check's limit where it allows less. Bars
    lie across: a configuration's name ("4×H100-SXM") then reads whole on a phone, where upright bars' labels were
    cut."""
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": part.name,
            "y": list(part.y),
            "x": list(part.x),
            "marker": {"color": PALETTE[i]},
            "hovertemplate": part.name + ": %{x:.1f} GB<extra>%{y}</extra>",
        }
        for i, part in enumerate(chart.parts)
    ]
    if chart.limit is not None:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": chart.limit.name,
                "y": list(chart.limit.y),
                "x": list(chart.limit.x),
                "marker": _capacity_marker("#6b4c00"),
                "hovertemplate": chart.limit.name + ": %{x:.1f} GB<extra>%{y}</extra>",
            }
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": chart.capacity.name,
            "y": list(chart.capacity.y),
            "x": list(chart.capacity.x),
            "marker": _capacity_marker("#a3262a"),
            "hovertemplate": "capacity: %{x:.0f} GB<extra>%{y}</extra>",
        }
    )
    return {
        "data": traces,
        "layout": layout(
            height=max(300, 34 * len(chart.capacity.y) + 200),
            barmode="stack",
            xaxis={"title": {"text": rank_points.MEMORY_TITLE}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed"},
            # the capacity ticks' 24 px markers overlapped the next legend rows; constant keeps each to its row
            # and plotly's reversed legend of stacked bars named the parts right to left: in trace order, as they stack
            legend={**LEGEND_BELOW, "itemsizing": "constant", "traceorder": "normal"},
        ),
    }


def limit_trace(line: Series) -> dict[str, Any]:
    """A vertical dashed line as a trace: shapes would need log10 coordinates on log axes."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": line.name,
        "x": list(line.x),
        "y": list(line.y),
        "line": {"color": "#a3262a", "dash": "dash"},
        "hoverinfo": "name",
    }


def frontier_figure(chart: FrontierChart) -> Figure:
    """Total cost against days, one line per leading machine, each marker a GPU count; the deadline as a vertical
    line. Each line has its own colour; lines of one GPU also differ by dash and marker."""
    traces: list[dict[str, Any]] = []
    cents = ",.2f" if chart.cents else ",.0f"
    for i, line in enumerate(chart.lines):
        colour, nth = PALETTE[i % len(PALETTE)], line.nth_of_gpu
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": line.name,
                "x": list(line.x),
                "y": list(line.y),
                "text": line.text,
                "marker": {"color": colour, "size": 8, "symbol": SYMBOLS[nth % len(SYMBOLS)]},
                "line": {"color": colour, "dash": DASHES[nth % len(DASHES)]},
                "hovertemplate": "%{text}<br>$%{y:" + cents + "}<extra>" + line.name + "</extra>",
            }
        )
    if chart.deadline:
        traces.append(limit_trace(chart.deadline))
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis=log_axis("days to finish", chart.days_reach),
            yaxis=log_axis("total $", chart.totals_usd, prefix="$"),
            legend=LEGEND_BELOW,
        ),
    }
