"""Plotly figures of a ranking: cost vs latency with the Pareto front, memory per configuration, and the
training deadline frontier; plus the palette, marker styles and limit line the other chart modules share.
The per-configuration batch curves are in curve_charts.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.scoring.explain import fixed, significant
from app.scoring.training.run.limit_words import days_text
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
                "hovertemplate": "%{text}<br>" + x_title + ": %{x:,.3~r}<br>" + y_title + ": %{y:,.3~r}<extra></extra>",
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
            yaxis=log_axis(y_title, _with_band_ends(chosen, y_key, band_of), prefix="$" if "$" in y_title else ""),
            legend=LEGEND_BELOW,
        ),
    }


def _with_band_ends(rows: Sequence[dict[str, Any]], key: str, band_of: str) -> list[float]:
    """The plotted values and their error bars' ends: the axis's ticks span what is drawn (1-2-5 ticks where the bars
    reach a decade; on the points alone, every digit's label piled up on a ~150 px axis)."""
    values = [o[key] for o in rows]
    for o in rows:
        if o.get("band") and o.get(band_of):
            values += [o[key] * o["band"]["low"] / o[band_of], o[key] * o["band"]["high"] / o[band_of]]
    return values


def _band_errors(rows: Sequence[dict[str, Any]], key: str, band_of: str) -> dict[str, Any]:
    """Asymmetric error bars: the band's ratios to its own metric, applied to the plotted one."""
    if not rows or not rows[0].get("band"):
        return {"visible": False}
    high = [o[key] * (o["band"]["high"] / o[band_of] - 1) for o in rows]
    low = [o[key] * (1 - o["band"]["low"] / o[band_of]) for o in rows]
    return {"type": "data", "symmetric": False, "thickness": 1, "width": 3, "array": high, "arrayminus": low}


def memory_bars(
    rows: Sequence[tuple[str, dict[str, float], float]],
    parts: Sequence[tuple[str, str]],
    limit: tuple[str, Sequence[float]] | None = None,
) -> Figure:
    """Stacked memory per GPU (label, breakdown GB, capacity GB) with each card's capacity marked, and where the fit
    check allows less than the card (`limit`: its name and GB per row), that limit too. Bars lie across: a
    configuration's name ("4×H100-SXM") then reads whole on a phone, where upright bars' labels were cut."""
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
    if limit is not None:
        name, limits = limit
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": name,
                "y": labels,
                "x": [round(limit, 2) for limit in limits],
                "marker": {
                    "symbol": "line-ns-open",
                    "size": 24,
                    "color": "#6b4c00",
                    "line": {"width": 3},
                },
                "hovertemplate": name + ": %{x:.1f} GB<extra>%{y}</extra>",
            }
        )
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
            name = f"{name}, ${fixed(price, 2)}/GPU-h"
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
    cents = ",.2f" if min((p["total_usd"] for p in points), default=10) < 10 else ",.0f"  # a $1.36 run read "$1"
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
                # the run's length as its row says it: a 15T-token run hovered "2,446 days", a 20-min one "0.0139 days"
                "text": [
                    f"{p['gpu_count']} GPU" + ("s" if p["gpu_count"] != 1 else "") + f"<br>{days_text(p['days'])}"
                    for p in rows
                ],
                "marker": {"color": colour, "size": 8, "symbol": SYMBOLS[nth % len(SYMBOLS)]},
                "line": {"color": colour, "dash": DASHES[nth % len(DASHES)]},
                "hovertemplate": "%{text}<br>$%{y:" + cents + "}<extra>" + name + "</extra>",
            }
        )
    totals = [p["total_usd"] for p in points]
    if totals:
        traces.append(limit_line(deadline_days, totals, f"deadline {significant(deadline_days)} days"))
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis=log_axis("days to finish", [*(p["days"] for p in points), deadline_days]),
            yaxis=log_axis("total $", totals, prefix="$"),
            legend=LEGEND_BELOW,
        ),
    }
