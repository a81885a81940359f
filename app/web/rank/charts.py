"""Plotly figures of a ranking: cost vs latency with the Pareto front, throughput vs batch, memory."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.inference.batching.curves import CurvePoint, TpotLine
from app.web.rendering.charts import LEGEND_BELOW, Figure, layout, log_axis

DASHES = ["solid", "dash", "dot", "dashdot"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "cross", "x", "star-triangle-up", "hexagon"]
# Twenty colours told apart side by side: the charts' series number at most a dozen or so (12 configurations of a
# cost chart, 11 GPUs of a batch job's), so no two series of one chart share a colour.
PALETTE = [
    "#0b5cad", "#d1495b", "#2e8540", "#edae49", "#6b4c9a", "#00798c", "#8c564b", "#e377c2", "#7f7f7f", "#17becf",
    "#f58231", "#911eb4", "#9a6324", "#469990", "#000075", "#bcbd22", "#f032e6", "#808000", "#4363d8", "#800000",
]  # fmt: skip


def _colour_for(keys: Sequence[str]) -> dict[str, str]:
    return {key: PALETTE[i % len(PALETTE)] for i, key in enumerate(dict.fromkeys(keys))}


def pareto_front(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points not beaten on both axes (lower x and lower y are better), sorted by x."""
    front: list[tuple[float, float]] = []
    for x, y in sorted(points):
        if not front or y < front[-1][1]:
            front.append((x, y))
    return front


def cost_scatter(
    options: Sequence[dict[str, Any]],
    x_key: str,
    y_key: str,
    x_title: str,
    y_title: str,
    band_of: str,
    configs: int = 12,
    x_from_zero: bool = True,
) -> Figure:
    """The best offer of each of the top configurations (colour by GPU), error bars from its band
    (the band is of `band_of`, scaled to `y_key`), and the Pareto front."""
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for option in options:
        key = (option["gpu_id"], option["gpu_count"])
        if option["feasible"] and option.get(x_key) and option.get(y_key) and key not in best:
            best[key] = option
        if len(best) >= configs:
            break
    chosen = list(best.values())
    traces: list[dict[str, Any]] = []
    for gpu_id, colour in _colour_for([o["gpu_id"] for o in chosen]).items():
        rows = [o for o in chosen if o["gpu_id"] == gpu_id]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": gpu_id,
                "x": [o[x_key] for o in rows],
                "y": [o[y_key] for o in rows],
                "marker": {"color": colour, "size": 10, "opacity": 0.9},
                "error_y": _band_errors(rows, y_key, band_of),
                "text": [f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} ({o['price_type']})" for o in rows],
                "hovertemplate": "%{text}<br>" + x_title + ": %{x:.3g}<br>" + y_title + ": %{y:.3g}<extra></extra>",
            }
        )
    front = pareto_front([(o[x_key], o[y_key]) for o in chosen])
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
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis={"title": {"text": x_title}, "rangemode": "tozero" if x_from_zero else "normal"},
            yaxis=log_axis(y_title),
            legend=LEGEND_BELOW,
        ),
    }


def _band_errors(rows: Sequence[dict[str, Any]], key: str, band_of: str) -> dict[str, Any]:
    """Asymmetric error bars: the band's ratios to its own metric, applied to the plotted one."""
    if not rows or not rows[0].get("band"):
        return {"visible": False}
    high = [o[key] * (o["band"]["high"] / o[band_of] - 1) for o in rows]
    low = [o[key] * (1 - o["band"]["low"] / o[band_of]) for o in rows]
    return {"type": "data", "symmetric": False, "thickness": 1, "width": 3, "array": high, "arrayminus": low}


def memory_bars(rows: Sequence[tuple[str, dict[str, float], float]], parts: Sequence[tuple[str, str]]) -> Figure:
    """Stacked memory per GPU (label, breakdown GB, capacity GB) with each card's capacity marked. Bars lie across:
    a configuration's name ("4×H100-SXM") then reads whole on a phone, where upright bars' labels were cut."""
    labels = [label for label, _, _ in rows]
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": title,
            "y": labels,
            "x": [round(b.get(key, 0.0), 2) for _, b, _ in rows],
            "marker": {"color": PALETTE[i]},
            "hovertemplate": title + ": %{x:.1f} GB<extra>%{y}</extra>",
        }
        for i, (key, title) in enumerate(parts)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "capacity",
            "y": labels,
            "x": [capacity for _, _, capacity in rows],
            "marker": {"symbol": "line-ns-open", "size": 24, "color": "#a3262a", "line": {"width": 3}},
            "hovertemplate": "capacity: %{x:.0f} GB<extra>%{y}</extra>",
        }
    )
    return {
        "data": traces,
        "layout": layout(
            height=max(300, 34 * len(labels) + 200),
            barmode="stack",
            xaxis={"title": {"text": "GB per GPU"}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed"},
            legend=LEGEND_BELOW,
        ),
    }


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
    mean TPOT meets it and dotted beyond."""
    traces: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []  # after the curves, so the legend lists the curves first
    limit = tpot.tpot_ms if tpot else math.inf
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        points = [(p.batch, p.output_tokens_per_s, p.tpot_ms) for p in curve.points]
        ok = [p for p in points if p[2] <= limit * (1 + 1e-9)]
        over = [p for p in points if p[2] > limit * (1 + 1e-9)]
        if ok and over:
            over = [ok[-1], *over]
        for subset, dash, name in ((ok, "solid", label), (over, "dot", f"{label} (over the TPOT target)")):
            if subset:
                traces.append(
                    {
                        "type": "scatter",
                        "mode": "lines+markers",
                        "name": name,
                        "legendgroup": curve.label,
                        "x": [p[0] for p in subset],
                        "y": [p[1] for p in subset],
                        "line": {"color": colour, "dash": dash},
                        "customdata": [p[2] for p in subset],
                        "hovertemplate": "batch %{x:.4~g}: %{y:.0f} tok/s, mean TPOT %{customdata:.1f} ms"
                        f"<extra>{label}</extra>",
                    }
                )
        stars.append(_star(curve, colour, curve.chosen.batch, curve.chosen.output_tokens_per_s, i == 0))
    return {
        "data": traces + stars,
        "layout": layout(
            height=380,
            xaxis=log_axis("concurrent sequences (batch)"),
            yaxis={"title": {"text": "output tokens/s per replica"}, "rangemode": "tozero", "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }


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
        "customdata": [[curve.chosen.batch, curve.chosen.tpot_ms, curve.usd_per_million_chosen]],
        "hovertemplate": "chosen: batch %{customdata[0]:.4~g}, mean TPOT %{customdata[1]:.1f} ms, "
        "$%{customdata[2]:.3f}/M<extra>" + curve.label + "</extra>",
    }


def cost_latency_curves(curves: Sequence[ConfigCurve], tpot: TpotLine | None) -> Figure:
    """$/M output tokens vs mean TPOT as the batch grows, per configuration at its answer's price, each with its
    chosen point starred on it, the Pareto front over every point, and the TPOT line the answer is held to (none
    where the scenario applies no limit)."""
    traces: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []
    every: list[tuple[float, float]] = []
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        xs = [p.tpot_ms for p in curve.points]
        ys = [curve.usd_per_million(p) for p in curve.points]
        every += list(zip(xs, ys, strict=True))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "legendgroup": curve.label,
                "x": xs,
                "y": ys,
                "line": {"color": colour},
                "customdata": [p.batch for p in curve.points],
                "hovertemplate": "batch %{customdata:.4~g}: mean TPOT %{x:.1f} ms, $%{y:.3f}/M"
                f"<extra>{label}</extra>",
            }
        )
        stars.append(_star(curve, colour, curve.chosen.tpot_ms, curve.usd_per_million_chosen, i == 0))
    traces += stars
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
            height=400,
            xaxis=log_axis("mean time per output token (ms)"),
            yaxis={**log_axis("$ / M output tokens"), "automargin": True},
            legend=LEGEND_BELOW,
        ),
    }


def limit_line(x: float, ys: Sequence[float], name: str) -> dict[str, Any]:
    """A vertical dashed line as a trace: shapes would need log10 coordinates on log axes."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": [x, x],
        "y": [min(ys) * 0.8, max(ys) * 1.25],
        "line": {"color": "#a3262a", "dash": "dash"},
        "hoverinfo": "name",
    }


def frontier_lines(points: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The frontier's points by machine, named. Points come machine by machine, GPU counts rising: a count that does
    not rise starts the next machine, which may be the same GPU from the same seller at another price (one line
    for both zig-zagged between them); such lines are told apart by their $/GPU-hour."""
    runs: list[list[dict[str, Any]]] = []
    for p in points:
        run = runs[-1] if runs else None
        if run and _offer_name(run[-1]) == _offer_name(p) and p["gpu_count"] > run[-1]["gpu_count"]:
            run.append(p)
        else:
            runs.append([p])
    names = [_offer_name(run[0]) for run in runs]
    lines: dict[str, list[dict[str, Any]]] = {}
    for name, run in zip(names, runs, strict=True):
        if names.count(name) > 1:
            first = run[0]
            price = first["total_usd"] / (first["days"] * 24 * first["gpu_count"])
            name = f"{name}, ${price:.2f}/GPU-h"
        lines.setdefault(name, []).extend(run)
    return lines


def _offer_name(p: dict[str, Any]) -> str:
    return f"{p['gpu_id']} · {p['provider_name']} ({p['price_type'].replace('_', ' ')})"


def frontier_chart(points: Sequence[dict[str, Any]], deadline_days: float) -> Figure:
    """What scaling out buys: total cost against days, one line per leading machine, each marker a GPU count;
    the deadline as a vertical line. Each line has its own colour; lines of one GPU also differ by dash and marker."""
    lines = frontier_lines(points)
    traces: list[dict[str, Any]] = []
    seen_per_gpu: dict[str, int] = {}
    for i, (name, rows) in enumerate(lines.items()):
        rows = sorted(rows, key=lambda p: p["gpu_count"])
        nth = seen_per_gpu[rows[0]["gpu_id"]] = seen_per_gpu.get(rows[0]["gpu_id"], -1) + 1  # same GPU, other offer
        colour = PALETTE[i % len(PALETTE)]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": [p["days"] for p in rows],
                "y": [p["total_usd"] for p in rows],
                "text": [f"{p['gpu_count']} GPU" + ("s" if p["gpu_count"] != 1 else "") for p in rows],
                "marker": {"color": colour, "size": 8, "symbol": SYMBOLS[nth % len(SYMBOLS)]},
                "line": {"color": colour, "dash": DASHES[nth % len(DASHES)]},
                "hovertemplate": "%{text}<br>%{x:.3g} days<br>$%{y:,.0f}<extra>" + name + "</extra>",
            }
        )
    totals = [p["total_usd"] for p in points]
    if totals:
        traces.append(limit_line(deadline_days, totals, f"deadline {deadline_days:g} days"))
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis=log_axis("days to finish"),
            yaxis=log_axis("total $", totals, prefix="$"),
            legend=LEGEND_BELOW,
        ),
    }
