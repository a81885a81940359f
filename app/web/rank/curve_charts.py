"""Plotly figures of each configuration's operating curve (app.service.charts.rank_curves' numbers): throughput vs
batch, and cost vs latency along the curve with the point the ranking chose starred and the TPOT limit drawn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.scoring.explain import batch_words
from app.service.charts.rank_curves import ConfigCurve, CurveChart, CurveSeries, curve_names
from app.web.rank.charts import PALETTE, limit_trace, pareto_trace
from app.web.rendering.charts import LEGEND_BELOW, Figure, layout, log_axis, scatter_trace

__all__ = ["ConfigCurve", "cost_latency_figure", "curve_names", "throughput_figure"]

PLOT_PX = 280  # the plot, its tick labels and its x-axis title
LEGEND_ENTRY_PX = 24  # one legend row below it, with the gap between legend groups


def height_for_legend(traces: Sequence[dict[str, Any]]) -> int:
    """A chart's height in px: its plot and one row per legend entry under it. At 380 px a fixed height left five
    configurations' thirteen entries to squeeze the plot to ~150 px on a laptop's third of the page: plotly cut the
    y-axis title and gave the legend its own scrollbar, hiding the last curves' names."""
    entries = sum(1 for t in traces if t.get("showlegend", True) and t.get("name"))
    return PLOT_PX + LEGEND_ENTRY_PX * entries


def _over_key(one: CurveSeries) -> dict[str, Any]:
    """A legend-only trace standing for every curve's dotted part."""
    return scatter_trace("lines", one.name, one.x, one.y, line={"color": "#57606a", "dash": "dot"}, hoverinfo="skip")


def _star(chart: CurveChart, one: CurveSeries, first: bool) -> dict[str, Any]:
    """The chosen point of one curve, in its curve's colour; one legend entry stands for every star."""
    curve = chart.curves[one.curve]
    return scatter_trace(
        "markers",
        one.name,
        one.x,
        one.y,
        legendgroup="chosen",
        showlegend=first,
        marker={
            "symbol": "star",
            "size": 15,
            "color": PALETTE[one.curve % len(PALETTE)],
            "line": {"color": "#1b1f24", "width": 1},
        },
        customdata=[[batch_words(curve.chosen.batch), curve.chosen.tpot_ms, curve.usd_per_million_chosen]],
        hovertemplate="chosen: %{customdata[0]}, mean TPOT %{customdata[1]:.1f} ms, "
        "$%{customdata[2]:.3f}/M<extra>" + curve.label + "</extra>",
    )


def _part(one: CurveSeries, customdata: list[Any], hovertemplate: str) -> dict[str, Any]:
    """A curve's part: solid within the latency limits, dotted over one."""
    return scatter_trace(
        "lines+markers",
        one.name,
        one.x,
        one.y,
        legendgroup=one.group,
        showlegend=one.kind == "within",
        line={"color": PALETTE[one.curve % len(PALETTE)], "dash": "solid" if one.kind == "within" else "dot"},
        customdata=customdata,
        hovertemplate=hovertemplate,
    )


def _traces(chart: CurveChart, part: Any) -> list[dict[str, Any]]:
    traces = []
    stars = 0
    for one in chart.series:
        if one.kind in ("within", "over"):
            traces.append(part(one))
        elif one.kind == "chosen":
            traces.append(_star(chart, one, stars == 0))
            stars += 1
        elif one.kind == "over_key":
            traces.append(_over_key(one))
        elif one.kind == "front":
            traces.append(pareto_trace(one))
        else:
            traces.append(limit_trace(one))
    return traces


def throughput_figure(chart: CurveChart) -> Figure:
    """Tokens/s vs batch per configuration, its chosen batch starred; where a TPOT line applies, solid while the
    mean TPOT meets it and the p99 TTFT its limit (CurvePoint.meets_ttft), dotted beyond."""

    names = curve_names(chart.curves)

    def part(one: CurveSeries) -> dict[str, Any]:
        hover = (
            "%{customdata[0]}: %{y:,.0f} tok/s, mean TPOT %{customdata[1]:.1f} ms"
            f"<extra>{names[one.curve]}</extra>"
        )
        return _part(one, [[batch_words(p.batch), p.tpot_ms] for p in one.points], hover)

    traces = _traces(chart, part)
    return {
        "data": traces,
        "layout": layout(
            height=height_for_legend(traces),
            xaxis=log_axis(chart.x_title),
            yaxis={"title": {"text": chart.y_title}, "rangemode": "tozero", "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }


def cost_latency_figure(chart: CurveChart) -> Figure:
    """$/M output tokens vs mean TPOT as the batch grows (solid within the latency limits, dotted over one, as
    throughput_figure), each curve's chosen point starred on it, the Pareto front over every point, and the TPOT line
    the answer is held to."""

    names = curve_names(chart.curves)

    def part(one: CurveSeries) -> dict[str, Any]:
        hover = f"%{{customdata}}: mean TPOT %{{x:.1f}} ms, $%{{y:.3f}}/M<extra>{names[one.curve]}</extra>"
        return _part(one, [batch_words(p.batch) for p in one.points], hover)

    traces = _traces(chart, part)
    return {
        "data": traces,
        "layout": layout(
            height=height_for_legend(traces),
            xaxis=log_axis(chart.x_title, chart.x_reach),
            yaxis={**log_axis(chart.y_title, chart.y_reach, prefix="$"), "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }
