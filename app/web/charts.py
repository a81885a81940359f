"""Plotly figures as plain dicts (data + layout), serialised into JSON blocks that charts.js draws.

Building dicts rather than plotly.graph_objects keeps page renders fast (no validation pass).
"""

from __future__ import annotations

from typing import Any

import orjson
from markupsafe import Markup

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


def log_axis(title: str, *, large: bool = False) -> dict[str, Any]:
    """A log axis whose every label is a whole number: plotly's default labels the ticks between powers of ten
    by their leading digit alone ("2", "5"), which reads as 2 where it means 20 or 0.2. `large` (values in the
    thousands and up): SI suffixes ("20k", "1M") instead of long digits. Tick placement stays plotly's (fixing
    it at 1-2-5 leaves a range under a decade with one label)."""
    return {"title": {"text": title}, "type": "log", "tickformat": "~s" if large else "~g"}


def to_json_block(figure: Figure) -> Markup:
    """JSON safe inside <script type="application/json">: <, > and & are escaped as JSON unicode
    escapes (so no `</script>` break-out), and the result is marked safe so Jinja leaves it alone."""
    text = orjson.dumps(figure, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


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
    """Stacked horizontal bars, first bar on top, legend below, x from zero."""
    return {
        "data": traces,
        "layout": layout(
            barmode="stack",
            height=height,
            xaxis={"title": {"text": x_title}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
            legend={"orientation": "h", "y": legend_y},
            margin={"l": 10, "r": 20, "t": 10, "b": bottom},
        ),
    }


STALE_COLOUR = "#a9b1ba"  # stale prices: listed, not ranked by default


def offer_price_bars(offers: list[Any]) -> Figure:
    """Cheapest $/GPU-hour per provider and price type, cheapest first. A fresh price is preferred to a stale
    one of the same provider and type; a bar that only a stale price supports is grey and says so, as the
    offers table and the rankings do (stale prices stay out of default rankings)."""
    cheapest: dict[tuple[str, str], Any] = {}
    for offer in offers:
        key = (offer.provider_name, offer.price_type)
        held = cheapest.get(key)
        if held is None or (offer.stale, offer.usd_per_gpu_hour) < (held.stale, held.usd_per_gpu_hour):
            cheapest[key] = offer
    ordered = sorted(cheapest.values(), key=lambda offer: offer.usd_per_gpu_hour)
    labels = [f"{o.provider_name} ({o.price_type.replace('_', ' ')}{', stale' if o.stale else ''})" for o in ordered]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [round(o.usd_per_gpu_hour, 3) for o in ordered],
        "marker": {"color": [STALE_COLOUR if o.stale else "#0b5cad" for o in ordered]},
        "hovertemplate": "%{y}: $%{x:.2f}/GPU-h<extra></extra>",
    }
    height = max(260, 26 * len(labels) + 90)
    return {
        "data": [trace],
        "layout": layout(
            height=height,
            xaxis={"title": {"text": "$ per GPU-hour"}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
            margin={"l": 10, "r": 20, "t": 10, "b": 50},
        ),
    }
