"""A chart's numbers as a small table: the page's no-JavaScript table (rounded there for reading) and the JSON's
`charts` entry (unrounded), one object for both."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

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


@dataclass(frozen=True, kw_only=True)
class Series:
    """One curve, set of points or set of bars: `x` and `y` in the units its chart's axis titles name (bars on a
    category axis: `y` the categories, `x` the values)."""

    name: str
    x: Sequence[Any]
    y: Sequence[Any]


def points_table(series: Sequence[Series], x_title: str, y_title: str) -> ChartTable:
    """A row per point (series, x, y), a long curve thinned to MAX_POINTS_PER_SERIES evenly spaced points."""
    rows: list[list[Cell]] = []
    thinned = []
    for one in series:
        points = [(x, y) for x, y in zip(one.x, one.y, strict=False) if x is not None and y is not None]
        kept = evenly(points, MAX_POINTS_PER_SERIES)
        if len(kept) < len(points):
            thinned.append(f"{one.name}: {len(kept)} of {len(points)} points")
        rows += [[plain(one.name), x, y] for x, y in kept]
    note = "Evenly spaced points of the longer curves (" + "; ".join(thinned) + ")." if thinned else ""
    return ChartTable(columns=["Series", x_title or "x", y_title or "y"], rows=rows, note=note)


def categories_table(series: Sequence[Series], value_title: str) -> ChartTable:
    """Bars (and markers) on a category axis: a row per category, a column per series (named, else by the value
    axis's title), null where a series has no bar."""
    categories = list(dict.fromkeys(c for one in series for c in one.y))
    cells: dict[str, list[Cell]] = {c: [None] * len(series) for c in categories}
    for i, one in enumerate(series):
        for category, value in zip(one.y, one.x, strict=False):
            if value is not None:
                cells[category][i] = value
    names = [one.name or value_title for one in series]
    rows = [[plain(c), *cells[c]] for c in categories]
    note = f"Values: {value_title}." if value_title else ""
    return ChartTable(columns=["", *map(plain, names)], rows=rows, note=note)


def evenly(points: list[Any], most: int) -> list[Any]:
    if len(points) <= most:
        return points
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def plain(label: Any) -> str:
    """A plotly label as text: its <br> a space, its other markup (<b>, <i>) dropped."""
    return re.sub(r"<[^>]*>", "", str(label).replace("<br>", " "))


@dataclass(frozen=True, kw_only=True)
class BarSeries(Series):
    """Bars (segments, where stacked) over a chart's categories: `y` the categories, `x` the values; `details` a
    sentence per bar for its hover ("" where none)."""

    details: Sequence[str] = ()


@dataclass(frozen=True, kw_only=True)
class BarChart:
    """Horizontal bars, a row per category (first on top), a series per colour, values in `value_title`'s unit."""

    chart_id: str
    label: str
    categories: list[str]
    series: list[BarSeries]
    value_title: str

    def table(self) -> ChartTable:
        table = categories_table(self.series, self.value_title)
        return table.model_copy(update={"chart_id": self.chart_id, "label": self.label})
