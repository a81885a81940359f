"""At 1366x768 (a common laptop screen) /plan, /disagg, /mix and /own show their answer without scrolling: the
verdict above the folded form and the first row of the page's main table. Their notes, why and chart came first,
and the row began at 1,334 px (/plan's dedicated GPUs), 1,272 (/disagg's aggregated serving), 1,449 (/mix's cheapest
mix) and 1,088 (/own's monthly costs)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
ANSWERS = [
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
    "/disagg?model=llama-3.1-70b",
    "/mix?model=llama-3.1-8b",
    "/own?gpu=H100-SXM&gpu_count=16&utilisation_pct=60",
]
# the first row of the results' first table (dedicated GPUs, aggregated serving, the cheapest mix, the monthly costs);
# not a chart's folded numbers, which sit inside its figure
FIRST_ROW = "section.results > .table-wrap > table > tbody > tr"
BOTTOM = "(sel) => document.querySelector(sel).getBoundingClientRect().bottom"


@pytest.mark.parametrize("path", ANSWERS)
def test_the_verdict_and_the_main_tables_first_row_are_on_the_first_screen(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    assert page.evaluate(BOTTOM, "p.answer-strip") < LAPTOP["height"]
    assert page.evaluate(BOTTOM, FIRST_ROW) <= LAPTOP["height"]  # the whole row, not its top
    assert page.evaluate("window.scrollY") == 0 and page.console.errors == []
