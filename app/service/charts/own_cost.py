"""Owning against renting in numbers: cash spent over the months each way, and the break-even; read from
POST /api/v1/own's body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from app.scoring.explain import significant
from app.service.charts.tables import ChartTable, Series, points_table

CHART_ID = "own-rent"
CHART_LABEL = (
    "Spent over the months (cash; with a cost of capital, each amount carried forward at it): owning (purchase, "
    "then energy and colocation) against renting at your utilisation; the diamond marks the break-even, the dotted "
    "line the end of depreciation"
)
X_TITLE = "months"
Y_TITLE = "$ spent so far"


@dataclass(frozen=True, kw_only=True)
class SpendSeries(Series):
    """`x` months, `y` $ spent so far."""

    kind: Literal["own", "rent", "break_even"]


@dataclass(frozen=True, kw_only=True)
class OwnRentChart:
    series: list[SpendSeries]
    depreciation_months: float

    def table(self) -> ChartTable:
        table = points_table(self.series, X_TITLE, Y_TITLE)
        return table.model_copy(update={"chart_id": CHART_ID, "label": CHART_LABEL})


def cumulative_cost(payload: dict[str, Any]) -> OwnRentChart:
    points = payload["cumulative"]
    months = [p["month"] for p in points]
    renting = f"rent on demand at {significant(payload['question']['utilisation_pct'])}% utilisation"
    series = [
        SpendSeries(
            name="own (purchase, then energy and colocation)",
            kind="own",
            x=months,
            y=[p["owning_usd"] for p in points],
        ),
        SpendSeries(name=renting, kind="rent", x=months, y=[p["renting_usd"] for p in points]),
    ]
    if payload["break_even_months"] is not None:
        even = SpendSeries(
            name="break-even", kind="break_even", x=[payload["break_even_months"]], y=[payload["break_even_usd"]]
        )
        series.append(even)
    return OwnRentChart(series=series, depreciation_months=payload["depreciation_months"])


def chart_tables(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """POST /api/v1/own's `charts`: the /own page's chart in numbers, as /own.json gives them."""
    return [cumulative_cost(payload).table().model_dump()]
