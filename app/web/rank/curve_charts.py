"""Plotly figures of each configuration's operating curve: throughput vs batch, and cost vs latency along
the curve with the point the ranking chose starred and the TPOT limit drawn."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.explain import batch_words
from app.scoring.inference.batching.curves import CurvePoint, TpotLine
from app.web.rank.charts import PALETTE, limit_line, pareto_front
from app.web.rendering.charts import LEGEND_BELOW, Figure, layout, log_axis


@dataclass(frozen=True, slots=True)
class ConfigCurve:
    """One configuration's operating curve (curves.operating_curve) and its answer: the point chosen, priced."""

    label: str  # "2×B200"
    points: list[CurvePoint]
    chosen: CurvePoint
    usd_per_million_chosen: float  # the answer's $ per million output tokens, at its cheapest offer

    def usd_per_million(self, point: CurvePoint) -> float:
        """$/M at another batch at the same hourly price: cost scales as 1 / tokens per second."""
        return self.usd_per_million_chosen * self.chosen.output_tokens_per_s / point.output_tokens_per_s

    def shape(self) -> tuple[tuple[float, float, float], ...]:
        return tuple((p.batch, float(f"{p.output_tokens_per_s:.4g}"), float(f"{p.tpot_ms:.4g}")) for p in self.points)


PLOT_PX = 280  # the plot, its tick labels and its x-axis title
LEGEND_ENTRY_PX = 24  # one legend row below it, with the gap between legend groups


def height_for_legend(traces: Sequence[dict[str, Any]]) -> int:
    """A chart's height in px: its plot and one row per legend entry under it. At 380 px a fixed height left five
    configurations' thirteen entries to squeeze the plot to ~150 px on a laptop's third of the page: plotly cut the
    y-axis title and gave the legend its own scrollbar, hiding the last curves' names."""
    entries = sum(1 for t in traces if t.get("showlegend", True) and t.get("name"))
    return PLOT_PX + LEGEND_ENTRY_PX * entries


def over_limit_key(traces: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One legend entry for every curve's dotted part, where there is one (each curve's own was a second entry per
    curve, "… (over a latency limit)"); a legend-only trace: no points, so the chart's numbers skip it."""
    if not any(t.get("line", {}).get("dash") == "dot" and t.get("legendgroup") for t in traces):
        return []
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "dotted: over a latency limit",
            "x": [None],
            "y": [None],
            "line": {"color": "#57606a", "dash": "dot"},
            "hoverinfo": "skip",
        }
    ]


def curve_names(curves: Sequence[ConfigCurve]) -> list[str]:
    """Each curve's legend name; one that coincides with an earlier one says so, since it is drawn hidden under it."""
    names: list[str] = []
    seen: dict[tuple[tuple[float, float, float], ...], str] = {}
    for curve in curves:
        same = seen.setdefault(curve.shape(), curve.label)
        names.append(curve.label if same == curve.label else f"{curve.label} (same curve as {same})")
    return names


def throughput_curves(curves: Sequence[ConfigCurve], tpot: TpotLine | None) -> Figure:
    """Tokens/s vs batch per configuration, its chosen batch starred; where a TPOT line applies, solid while the
    mean TPOT meets it and the p99 TTFT its limit (CurvePoint.meets_ttft), dotted beyond."""
    traces: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []  # after the curves, so the legend lists the curves first
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        for subset, dash, name in _within_and_over(curve.points, tpot, label):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": name,
                    "legendgroup": curve.label,
                    "showlegend": dash == "solid",
                    "x": [p.batch for p in subset],
                    "y": [p.output_tokens_per_s for p in subset],
                    "line": {"color": colour, "dash": dash},
                    "customdata": [[batch_words(p.batch), p.tpot_ms] for p in subset],
                    "hovertemplate": "%{customdata[0]}: %{y:,.0f} tok/s, mean TPOT %{customdata[1]:.1f} ms"
                    f"<extra>{label}</extra>",
                }
            )
        stars.append(_star(curve, colour, curve.chosen.batch, curve.chosen.output_tokens_per_s, i == 0))
    return {
        "data": traces + stars + over_limit_key(traces),
        "layout": layout(
            height=height_for_legend(traces + stars + over_limit_key(traces)),
            xaxis=log_axis("concurrent sequences (batch)"),
            yaxis={"title": {"text": "output tokens/s per replica"}, "rangemode": "tozero", "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }


def _within_and_over(
    points: Sequence[CurvePoint], tpot: TpotLine | None, label: str
) -> list[tuple[list[CurvePoint], str, str]]:
    """A curve's points within the latency limits (solid) and over one (dotted, joined to the last within): the mean
    TPOT over its line, or the p99 TTFT over its limit (CurvePoint.meets_ttft) where a TPOT line applies."""
    limit = tpot.tpot_ms if tpot else math.inf
    within = [p.tpot_ms <= limit * (1 + 1e-9) and (tpot is None or p.meets_ttft) for p in points]
    ok = [p for p, fine in zip(points, within, strict=True) if fine]
    over = [p for p, fine in zip(points, within, strict=True) if not fine]
    if ok and over:
        over = [ok[-1], *over]
    parts = ((ok, "solid", label), (over, "dot", f"{label} (over a latency limit)"))
    return [part for part in parts if part[0]]


def _star(curve: ConfigCurve, colour: str, x: float, y: float, first: bool) -> dict[str, Any]:
    """The chosen point of one curve, in its curve's colour; one legend entry stands for every star."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "★ chosen batch (in its curve's colour)",
        "legendgroup": "chosen",
        "showlegend": first,
        "x": [x],
        "y": [y],
        "marker": {"symbol": "star", "size": 15, "color": colour, "line": {"color": "#1b1f24", "width": 1}},
        "customdata": [[batch_words(curve.chosen.batch), curve.chosen.tpot_ms, curve.usd_per_million_chosen]],
        "hovertemplate": "chosen: %{customdata[0]}, mean TPOT %{customdata[1]:.1f} ms, "
        "$%{customdata[2]:.3f}/M<extra>" + curve.label + "</extra>",
    }


def cost_latency_curves(curves: Sequence[ConfigCurve], tpot: TpotLine | None) -> Figure:
    """$/M output tokens vs mean TPOT as the batch grows, per configuration at its answer's price (solid within the
    latency limits, dotted over one, as throughput_curves), each with its chosen point starred on it, the Pareto
    front over every point, and the TPOT line the answer is held to (none where the scenario applies no limit)."""
    traces: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []
    every: list[tuple[float, float]] = []
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        every += [(p.tpot_ms, curve.usd_per_million(p)) for p in curve.points]
        for subset, dash, name in _within_and_over(curve.points, tpot, label):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": name,
                    "legendgroup": curve.label,
                    "showlegend": dash == "solid",
                    "x": [p.tpot_ms for p in subset],
                    "y": [curve.usd_per_million(p) for p in subset],
                    "line": {"color": colour, "dash": dash},
                    "customdata": [batch_words(p.batch) for p in subset],
                    "hovertemplate": f"%{{customdata}}: mean TPOT %{{x:.1f}} ms, $%{{y:.3f}}/M<extra>{label}</extra>",
                }
            )
        stars.append(_star(curve, colour, curve.chosen.tpot_ms, curve.usd_per_million_chosen, i == 0))
    traces += stars + over_limit_key(traces)
    front = pareto_front(every)
    if front:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "Pareto front",
                "x": [p[0] for p in front],
                "y": [p[1] for p in front],
                "line": {"color": "#1b1f24", "dash": "dot", "shape": "hv"},
            }
        )
    if every and tpot:
        traces.append(limit_line(tpot.tpot_ms, [y for _, y in every], tpot.name))
    return {
        "data": traces,
        "layout": layout(
            height=height_for_legend(traces),
            xaxis=log_axis("mean time per output token (ms)", [tpot for tpot, _ in every]),
            yaxis={**log_axis("$ / M output tokens", [usd for _, usd in every], prefix="$"), "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }
