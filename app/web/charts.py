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


def layout(**overrides: Any) -> dict[str, Any]:
    return {**BASE_LAYOUT, **overrides}


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


def offer_price_bars(offers: list[Any]) -> Figure:
    """Cheapest $/GPU-hour per provider and price type, cheapest first."""
    cheapest: dict[tuple[str, str], float] = {}
    for offer in offers:
        key = (offer.provider_name, offer.price_type)
        cheapest[key] = min(cheapest.get(key, offer.usd_per_gpu_hour), offer.usd_per_gpu_hour)
    ordered = sorted(cheapest.items(), key=lambda item: item[1])
    labels = [f"{provider} ({price_type.replace('_', ' ')})" for (provider, price_type), _ in ordered]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [round(price, 3) for _, price in ordered],
        "marker": {"color": "#0b5cad"},
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
