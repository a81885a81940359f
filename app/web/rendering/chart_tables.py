"""A chart's numbers as a small table under it, so a reader without JavaScript (or a screen reader) has every chart's
data, not only what the results table happens to hold (batch sweeps, memory). The table is built with the chart's
numbers in app.service.charts; its cells unformatted are the JSON twin's `charts` entry (`drawn`), rounded here for
reading (`number_text`): the page's table and the JSON read one object, built once per answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from app.scoring.explain import fixed, significant
from app.service.charts.tables import Cell, ChartTable
from app.web.rendering.charts import Figure, to_json_block

__all__ = ["Cell", "ChartTable", "drawn", "number_text", "twin_payload"]


def drawn(payload: dict[str, Any], numbers: ChartTable, figure: Figure) -> Markup:
    """Add a chart's numbers (built in app.service.charts, the figure drawn from the same object) to the payload's
    `charts` and return the figure's JSON block for the page to draw."""
    payload.setdefault("charts", []).append(numbers.model_dump())
    return to_json_block(figure)


def twin_payload(payload: dict[str, Any], draw: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    """A JSON twin's payload with its page's chart numbers: `draw` (the page's) adds them to its `charts` (`drawn`);
    the block it returns for the page to draw is not needed here."""
    draw(payload)
    return payload


def number_text(value: Any) -> str:
    """129745.3 → '129,745'; 12.34 → '12.3'; 0.01234 → '0.0123'; no value '—'; text as it is."""
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 100:
        return f"{fixed(value, 0)}"
    return f"{significant(value, 3)}"
