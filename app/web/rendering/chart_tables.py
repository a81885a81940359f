"""A chart's numbers as a small table, read from the figure's own JSON, so a reader without JavaScript (or a
screen reader) has every chart's data, not only what the results table happens to hold (batch sweeps, memory).
The same table, its numbers unformatted, is the JSON twin's `charts` entry (`charted`): the page's table and the
JSON read one object, built once per answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from markupsafe import Markup

from app.scoring.explain import fixed, significant
from app.service.charts.tables import Cell, ChartTable, Series, categories_table, points_table
from app.web.rendering.charts import Figure, to_json_block

__all__ = ["Cell", "ChartTable", "charted", "drawn", "figure_table", "number_text", "table_of", "twin_payload"]


def charted(payload: dict[str, Any], chart_id: str, label: str, figure: Figure) -> Markup:
    """Add the figure's numbers to the payload's `charts` (the JSON twin's field, the page's table) and return the
    figure's JSON block for the page to draw."""
    block = to_json_block(figure)
    payload.setdefault("charts", []).append(table_of(chart_id, label, block))
    return block


def drawn(payload: dict[str, Any], numbers: ChartTable, figure: Figure) -> Markup:
    """Add a chart's numbers (built in app.service.charts, the figure drawn from the same object) to the payload's
    `charts` and return the figure's JSON block for the page to draw."""
    payload.setdefault("charts", []).append(numbers.model_dump())
    return to_json_block(figure)


def twin_payload(payload: dict[str, Any], draw: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    """A JSON twin's payload with its page's chart numbers: `draw` (the page's, which `charted` each figure) adds them
    to its `charts`; the block it returns for the page to draw is not needed here."""
    draw(payload)
    return payload


def table_of(chart_id: str, label: str, figure_json: str) -> dict[str, Any]:
    """A drawn figure's numbers as a `charts` entry."""
    return figure_table(figure_json).model_copy(update={"chart_id": chart_id, "label": label}).model_dump()


def figure_table(figure_json: str) -> ChartTable:
    """A drawn figure's numbers (for a chart whose numbers app.service.charts does not build yet): bars on a category
    axis as a row per category, curves and points as a row per point (app.service.charts.tables)."""
    figure = orjson.loads(str(figure_json))
    traces = [t for t in figure.get("data", []) if t.get("x") is not None and t.get("y") is not None]
    series = [Series(name=t.get("name") or "", x=t["x"], y=t["y"]) for t in traces]
    x_title, y_title = _axis_title(figure, "xaxis"), _axis_title(figure, "yaxis")
    if traces and all(isinstance(v, str) for t in traces for v in t["y"] if v is not None):
        return categories_table(series, x_title)
    return points_table(series, x_title, y_title)


def _axis_title(figure: dict[str, Any], axis: str) -> str:
    title = figure.get("layout", {}).get(axis, {}).get("title")
    return str(title.get("text", "") if isinstance(title, dict) else title or "")


def number_text(value: Any) -> str:
    """129745.3 → '129,745'; 12.34 → '12.3'; 0.01234 → '0.0123'; no value '—'; text as it is."""
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 100:
        return f"{fixed(value, 0)}"
    return f"{significant(value, 3)}"
