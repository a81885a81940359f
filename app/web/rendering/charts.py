"""Plotly figures as plain dicts (data + layout), serialised into JSON blocks that charts.js draws.

Building dicts rather than plotly.graph_objects keeps page renders fast (no validation pass).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import orjson
from markupsafe import Markup

from app.scoring.explain import significant
from app.service.charts.gpu_prices import VALUE_TITLE, PriceBar

Figure = dict[str, Any]

BASE_LAYOUT: dict[str, Any] = {
    "margin": {"l": 60, "r": 20, "t": 30, "b": 60},
    "font": {"family": "system-ui, sans-serif", "size": 12},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
    "hovermode": "closest",
}


# A legend below the plot, left-aligned, under the x-axis title at any width (charts.js keeps it there on a phone).
LEGEND_BELOW: dict[str, Any] = {
    "orientation": "h",
    "x": 0,
    "xanchor": "left",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
}


def layout(**overrides: Any) -> dict[str, Any]:
    """BASE_LAYOUT with `overrides`; every axis makes room for its tick labels and title (automargin), so a narrow
    chart grows its margins rather than clipping them."""
    merged = {**BASE_LAYOUT, **overrides}
    for key, axis in merged.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            merged[key] = {"automargin": True, **axis}
    return merged


def money_axis(title: str, **extra: Any) -> dict[str, Any]:
    """A linear axis of dollars from zero: its ticks read "$20k", not a bare "20k", and "$1,000", not "$1000"
    (plotly writes 1,000-9,999 without a separator unless told; the site's one rule for money axes; log_axis's
    prefix="$" does the same on a log axis)."""
    return {"title": {"text": title}, "rangemode": "tozero", "tickprefix": "$", "separatethousands": True, **extra}


def log_axis(title: str, values: Iterable[float | None] | None = None, *, prefix: str = "") -> dict[str, Any]:
    """A log axis whose every label is a whole number: plotly's default labels the ticks between powers of ten
    by their leading digit alone ("2", "5"), which reads as 2 where it means 20 or 0.2. With the axis's `values`
    (money, counts: thousands and up, or under 1): explicit ticks labelled "$20k", "1M", "$0.01", since plotly's
    SI suffixes write $0.01 as "10m" (read as ten million) and a billion as "1G"."""
    axis: dict[str, Any] = {"title": {"text": title}, "type": "log"}
    ticks = log_ticks(values) if values is not None else []
    if not ticks:
        return {**axis, "tickformat": "~g", **({"tickprefix": prefix} if prefix else {})}
    return {**axis, "tickmode": "array", "tickvals": ticks, "ticktext": [short_number(t, prefix) for t in ticks]}


def log_ticks(values: Iterable[float | None]) -> list[float]:
    """Tick values over the positive `values` and a decade either side (plotly pads its range and shows only
    the ticks inside it): powers of ten where the data spans four decades or more, 1-2-5 where it spans one or
    more, 1-2-3-5 from half a decade (every digit there piled "70 80 90 100" on a laptop's third-of-a-page chart),
    every digit under that, so a narrow range still gets several labels."""
    positive = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not positive:
        return []
    low, high = math.floor(math.log10(min(positive))) - 1, math.ceil(math.log10(max(positive))) + 1
    span = math.log10(max(positive) / min(positive))
    digits = (1,) if span >= 4 else (1, 2, 5) if span >= 1 else (1, 2, 3, 5) if span >= 0.5 else tuple(range(1, 10))
    return [d * 10.0**e if e >= 0 else d / 10.0**-e for e in range(low, high + 1) for d in digits]


def short_number(value: float, prefix: str = "") -> str:
    """20000 → '20k', 2.5e6 → '2.5M', 1e9 → '1B', 0.01 → '0.01', after `prefix` ('$'): the suffixes money and
    counts are written with (SI's m, G and µ are not)."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{prefix}{significant(value / size, 3)}{suffix}"
    if value >= 1:
        return f"{prefix}{significant(value, 3)}"
    return prefix + f"{value:.12f}".rstrip("0").rstrip(".")


def to_json_block(figure: Figure) -> Markup:
    """JSON safe inside <script type="application/json">: <, > and & are escaped as JSON unicode
    escapes (so no `</script>` break-out), and the result is marked safe so Jinja leaves it alone."""
    text = orjson.dumps(figure, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def scatter_trace(mode: str, name: str, x: Iterable[Any], y: Iterable[Any], **style: Any) -> dict[str, Any]:
    """One scatter trace ("lines", "markers" or "lines+markers") of a named series; `style` (line, marker, legend,
    customdata, hover) goes in after its points."""
    return {"type": "scatter", "mode": mode, "name": name, "x": list(x), "y": list(y), **style}


def hbar_trace(name: str, y: list[str], x: list[Any], color: str, hovertemplate: str, **extra: Any) -> dict[str, Any]:
    """One horizontal bar trace; `extra` (e.g. customdata) goes in after x."""
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": y,
        "x": x,
        **extra,
        "marker": {"color": color},
        "hovertemplate": hovertemplate,
    }


def stacked_hbars(traces: list[dict[str, Any]], *, height: int, x_title: str, legend_y: float, bottom: int) -> Figure:
    """Stacked horizontal bars of dollars, first bar on top, legend below, x from zero. The legend reads in the
    segments' order, left to right (plotly reverses a stacked chart's legend, for upright bars)."""
    return {
        "data": traces,
        "layout": layout(
            barmode="stack",
            height=height,
            xaxis=money_axis(x_title),
            yaxis={"autorange": "reversed", "automargin": True},
            legend={"orientation": "h", "y": legend_y, "traceorder": "normal"},
            margin={"l": 10, "r": 20, "t": 10, "b": bottom},
        ),
    }


STALE_COLOUR = "#a9b1ba"  # stale prices: listed, not ranked by default


def offer_price_bars(bars: list[PriceBar]) -> Figure:
    """A GPU's cheapest $/GPU-hour per provider and price type (app.service.charts.gpu_prices), cheapest on top; a
    bar only a stale price supports is grey."""
    labels = [bar.label for bar in bars]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [bar.usd_per_gpu_hour for bar in bars],
        "marker": {"color": [STALE_COLOUR if bar.stale else "#0b5cad" for bar in bars]},
        "hovertemplate": "%{y}: $%{x:.2f}/GPU-h<extra></extra>",
    }
    height = max(260, 26 * len(labels) + 90)
    return {
        "data": [trace],
        "layout": layout(
            height=height,
            xaxis=money_axis(VALUE_TITLE),
            yaxis={"autorange": "reversed", "automargin": True},
            margin={"l": 10, "r": 20, "t": 10, "b": 50},
        ),
    }
