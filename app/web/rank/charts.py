"""Plotly figures of a ranking: cost vs latency with the Pareto front, throughput vs batch, memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.web.charts import Figure, layout, log_axis

# Offers of the same GPU share its colour and differ by line dash and marker symbol.
DASHES = ["solid", "dash", "dot", "dashdot"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up"]
PALETTE = ["#0b5cad", "#d1495b", "#2e8540", "#edae49", "#6b4c9a", "#00798c", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"]


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
            legend={"orientation": "v", "x": 1.02, "y": 1},
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
    """Stacked memory per GPU (label, breakdown GB, capacity GB) with each card's capacity marked."""
    labels = [label for label, _, _ in rows]
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "name": title,
            "x": labels,
            "y": [round(b.get(key, 0.0), 2) for _, b, _ in rows],
            "marker": {"color": PALETTE[i]},
            "hovertemplate": title + ": %{y:.1f} GB<extra></extra>",
        }
        for i, (key, title) in enumerate(parts)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "capacity",
            "x": labels,
            "y": [capacity for _, _, capacity in rows],
            "marker": {"symbol": "line-ew-open", "size": 30, "color": "#a3262a", "line": {"width": 3}},
            "hovertemplate": "capacity: %{y:.0f} GB<extra></extra>",
        }
    )
    return {
        "data": traces,
        "layout": layout(
            height=340, barmode="stack", yaxis={"title": {"text": "GB per GPU"}}, legend={"orientation": "h", "y": -0.3}
        ),
    }


def throughput_curves(curves: Sequence[tuple[str, list[tuple[int, float, float]]]], tpot_limit_ms: float) -> Figure:
    """Tokens/s vs batch per configuration: solid while TPOT meets the limit, dotted beyond it."""
    traces: list[dict[str, Any]] = []
    for i, (label, points) in enumerate(curves):
        colour = PALETTE[i % len(PALETTE)]
        ok = [p for p in points if p[2] <= tpot_limit_ms]
        over = [p for p in points if p[2] > tpot_limit_ms]
        if ok and over:
            over = [ok[-1], *over]
        for subset, dash, name in ((ok, "solid", label), (over, "dot", f"{label} (over TPOT limit)")):
            if subset:
                traces.append(
                    {
                        "type": "scatter",
                        "mode": "lines+markers",
                        "name": name,
                        "x": [p[0] for p in subset],
                        "y": [p[1] for p in subset],
                        "line": {"color": colour, "dash": dash},
                        "customdata": [p[2] for p in subset],
                        "hovertemplate": "batch %{x}: %{y:.0f} tok/s, TPOT %{customdata:.1f} ms<extra></extra>",
                    }
                )
    return {
        "data": traces,
        "layout": layout(
            height=360,
            xaxis=log_axis("concurrent sequences (batch)"),
            yaxis={"title": {"text": "output tokens/s per replica"}, "rangemode": "tozero"},
            legend={"orientation": "h", "y": -0.3},
        ),
    }


def batch_sweep(max_batch: int) -> list[int]:
    """1, 2, 4, … up to the memory limit (and the limit itself)."""
    sweep, b = [], 1
    while b < max_batch:
        sweep.append(b)
        b *= 2
    return [*sweep, max(1, max_batch)]


def curve_points(estimate_at: Callable[[int], Any], max_batch: int) -> list[tuple[int, float, float]]:
    points = []
    for batch in batch_sweep(max_batch):
        est = estimate_at(batch)
        if est.feasible and est.output_tokens_per_s:
            points.append((batch, est.output_tokens_per_s, est.tpot_ms))
    return points


def cost_latency_curves(
    curves: Sequence[tuple[str, float, list[tuple[int, float, float]]]],
    operating: Sequence[tuple[str, float, float]],
    tpot_limit_ms: float,
) -> Figure:
    """$/M output tokens vs TPOT as the batch grows, per configuration (label, $/hour, points), with each
    configuration's operating point, the Pareto front over every point, and the TPOT limit."""
    traces: list[dict[str, Any]] = []
    every: list[tuple[float, float]] = []
    for i, (label, usd_per_hour, points) in enumerate(curves):
        xs = [p[2] for p in points]
        ys = [usd_per_hour / (3600 * p[1]) * 1e6 for p in points]
        every += list(zip(xs, ys, strict=True))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "x": xs,
                "y": ys,
                "line": {"color": PALETTE[i % len(PALETTE)]},
                "customdata": [p[0] for p in points],
                "hovertemplate": "batch %{customdata}: TPOT %{x:.1f} ms, $%{y:.3f}/M<extra></extra>",
            }
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "operating point",
            "x": [o[1] for o in operating],
            "y": [o[2] for o in operating],
            "text": [o[0] for o in operating],
            "marker": {"symbol": "star", "size": 13, "color": "#1b1f24"},
            "hovertemplate": "%{text}: TPOT %{x:.1f} ms, $%{y:.3f}/M<extra></extra>",
        }
    )
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
    if every:
        traces.append(limit_line(tpot_limit_ms, [y for _, y in every], "TPOT limit"))
    return {
        "data": traces,
        "layout": layout(
            height=380,
            xaxis=log_axis("time per output token (ms, mean at that batch)"),
            yaxis=log_axis("$ / M output tokens"),
            legend={"orientation": "h", "y": -0.3},
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


def frontier_chart(points: Sequence[dict[str, Any]], deadline_days: float) -> Figure:
    """What scaling out buys: total cost against days, one line per leading machine, each marker a GPU count;
    the deadline as a vertical line."""
    lines: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        lines.setdefault(f"{p['gpu_id']} · {p['provider_name']} ({p['price_type'].replace('_', ' ')})", []).append(p)
    traces: list[dict[str, Any]] = []
    colours = _colour_for([p["gpu_id"] for p in points])
    seen_per_gpu: dict[str, int] = {}
    for name, rows in lines.items():
        rows = sorted(rows, key=lambda p: p["gpu_count"])
        nth = seen_per_gpu[rows[0]["gpu_id"]] = seen_per_gpu.get(rows[0]["gpu_id"], -1) + 1  # same GPU, other offer
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": [p["days"] for p in rows],
                "y": [p["total_usd"] for p in rows],
                "text": [f"{p['gpu_count']} GPUs" for p in rows],
                "marker": {"color": colours[rows[0]["gpu_id"]], "size": 8, "symbol": SYMBOLS[nth % len(SYMBOLS)]},
                "line": {"color": colours[rows[0]["gpu_id"]], "dash": DASHES[nth % len(DASHES)]},
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
            yaxis=log_axis("total $", large=True),
            legend={"orientation": "v", "x": 1.02, "y": 1},
        ),
    }
