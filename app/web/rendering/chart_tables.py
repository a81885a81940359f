"""A chart's numbers as a small table, read from the figure's own JSON, so a reader without JavaScript (or a
screen reader) has every chart's data, not only what the results table happens to hold (batch sweeps, memory).
The same table, its numbers unformatted, is the JSON twin's `charts` entry (`charted`): the page's table and the
JSON read one object, built once per answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson
from markupsafe import Markup
from pydantic import BaseModel, Field

from app.scoring.explain import fixed, significant
from app.web.rendering.charts import Figure, to_json_block

MAX_POINTS_PER_SERIES = 12  # a 161-point cost curve as 12 evenly spaced points, its ends kept


Cell = str | int | float | None


class ChartTable(BaseModel):
    """One chart's numbers, as its page's no-JavaScript table shows them (there rounded for reading)."""

    chart_id: str = Field("", description="the chart's id on the page (the id of its drawing area)")
    label: str = Field("", description="what the chart draws, as its caption says")
    columns: list[str] = Field(
        description="the table's column headings: `Series` and the axes' titles, units in them ($ per month, "
        "requests per day), for curves and points; the category and one column per series for bars"
    )
    rows: list[list[Cell]] = Field(
        default_factory=list,
        description="a row per point (series name, x, y) or per category (its name, then each series' value; null "
        "where that series has no bar), the numbers unrounded",
    )
    note: str = Field("", description="what the rows leave out (a long curve's evenly spaced points) or their unit")


def charted(payload: dict[str, Any], chart_id: str, label: str, figure: Figure) -> Markup:
    """Add the figure's numbers to the payload's `charts` (the JSON twin's field, the page's table) and return the
    figure's JSON block for the page to draw."""
    block = to_json_block(figure)
    payload.setdefault("charts", []).append(table_of(chart_id, label, block))
    return block


def twin_payload(payload: dict[str, Any], draw: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    """A JSON twin's payload with its page's chart numbers: `draw` (the page's, which `charted` each figure) adds them
    to its `charts`; the block it returns for the page to draw is not needed here."""
    draw(payload)
    return payload


def table_of(chart_id: str, label: str, figure_json: str) -> dict[str, Any]:
    """A drawn figure's numbers as a `charts` entry."""
    return figure_table(figure_json).model_copy(update={"chart_id": chart_id, "label": label}).model_dump()


def figure_table(figure_json: str) -> ChartTable:
    """Bars (and markers) on a category axis: a row per category, a column per series. Curves and points: a row
    per point (series, x, y), a long curve thinned to MAX_POINTS_PER_SERIES."""
    figure = orjson.loads(str(figure_json))
    traces = [t for t in figure.get("data", []) if t.get("x") is not None and t.get("y") is not None]
    x_title, y_title = _axis_title(figure, "xaxis"), _axis_title(figure, "yaxis")
    if traces and all(isinstance(v, str) for t in traces for v in t["y"] if v is not None):
        return _by_category(traces, x_title)
    return _by_point(traces, x_title, y_title)


def _axis_title(figure: dict[str, Any], axis: str) -> str:
    title = figure.get("layout", {}).get(axis, {}).get("title")
    return str(title.get("text", "") if isinstance(title, dict) else title or "")


def _by_category(traces: list[dict[str, Any]], x_title: str) -> ChartTable:
    categories = list(dict.fromkeys(c for t in traces for c in t["y"]))
    cells: dict[str, list[Cell]] = {c: [None] * len(traces) for c in categories}
    for i, trace in enumerate(traces):
        for category, value in zip(trace["y"], trace["x"], strict=False):
            if value is not None:
                cells[category][i] = value
    names = [t.get("name") or x_title for t in traces]
    rows = [[_plain(c), *cells[c]] for c in categories]
    return ChartTable(columns=["", *map(_plain, names)], rows=rows, note=f"Values: {x_title}." if x_title else "")


def _by_point(traces: list[dict[str, Any]], x_title: str, y_title: str) -> ChartTable:
    rows: list[list[Cell]] = []
    thinned = []
    for trace in traces:
        points = [(x, y) for x, y in zip(trace["x"], trace["y"], strict=False) if x is not None and y is not None]
        kept = _evenly(points, MAX_POINTS_PER_SERIES)
        if len(kept) < len(points):
            thinned.append(f"{trace.get('name', '')}: {len(kept)} of {len(points)} points")
        rows += [[_plain(trace.get("name") or ""), x, y] for x, y in kept]
    note = "Evenly spaced points of the longer curves (" + "; ".join(thinned) + ")." if thinned else ""
    return ChartTable(columns=["Series", x_title or "x", y_title or "y"], rows=rows, note=note)


def _evenly(points: list[Any], most: int) -> list[Any]:
    if len(points) <= most:
        return points
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def _plain(label: Any) -> str:
    """A plotly label as text: its <br> a space, its other markup (<b>, <i>) dropped."""
    return re.sub(r"<[^>]*>", "", str(label).replace("<br>", " "))


def number_text(value: Any) -> str:
    """129745.3 → '129,745'; 12.34 → '12.3'; 0.01234 → '0.0123'; no value '—'; text as it is."""
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 100:
        return f"{fixed(value, 0)}"
    return f"{significant(value, 3)}"
