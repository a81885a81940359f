"""At 1366x768 (a common laptop screen) /plan, /disagg, /mix and /own show their answer without scrolling: the
verdict above the folded form and the first row of the page's main table. Their notes, why and chart came first,
and the row began at 1,334 px (/plan's dedicated GPUs), 1,272 (/disagg's aggregated serving), 1,449 (/mix's cheapest
mix) and 1,088 (/own's monthly costs). After an htmx submit, focus lands on the new answer's heading, or on the error
summary where the answer is a 422; a page load moves no focus."""

from __future__ import annotations

import re

import pytest

from tests.browser.flows import open_form

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
ANSWERS = [
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
    "/disagg?model=llama-3.1-70b",
    "/mix?model=llama-3.1-8b",
    "/own?gpu=H100-SXM&gpu_count=16&utilisation_pct=60",
]
# the first row of the results' first table (dedicated GPUs, the layouts' comparison, the cheapest mix, the monthly
# costs); not a chart's folded numbers, which sit inside its figure
FIRST_ROW = "section.results > .table-wrap > table > tbody > tr"
BOTTOM = "(sel) => document.querySelector(sel).getBoundingClientRect().bottom"
FOCUSED = "() => document.activeElement && document.activeElement.id"


def test_disagg_shows_both_layouts_rows_on_the_first_screen(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """/disagg's comparison, one row per layout, ends on a laptop's first screen; the first disaggregated plan's row
    had begun at 895 px, under the aggregated table and its terms."""
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}/disagg?model=llama-3.1-70b")
    for layout in ("aggregated", "disaggregated"):
        row = f'section.results table.layouts tr[data-layout="{layout}"]'
        assert page.locator(row).count() == 1 and page.locator(f"{row} td").count() == 6  # a row with its figures
        assert page.evaluate(BOTTOM, row) < LAPTOP["height"], layout
    assert page.evaluate("window.scrollY") == 0 and page.console.errors == []


@pytest.mark.parametrize("path", ANSWERS)
def test_the_verdict_and_the_main_tables_first_row_are_on_the_first_screen(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    assert page.evaluate(BOTTOM, "p.answer-strip") < LAPTOP["height"]
    assert page.evaluate(BOTTOM, FIRST_ROW) <= LAPTOP["height"]  # the whole row, not its top
    assert page.evaluate("window.scrollY") == 0 and page.console.errors == []


def _submit(page, field: str, value: str) -> None:  # type: ignore[no-untyped-def]
    open_form(page)
    page.evaluate("window.stillHere = true")  # gone if the browser loads a whole page instead of swapping
    page.fill(f"#f-{field}", value)
    page.press(f"#f-{field}", "Enter")  # a keyboard user submits from the field


@pytest.mark.parametrize(
    ("path", "heading"),
    [("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", "results-title"), ("/own?gpu=H100-SXM", "own-title")],
)
def test_an_htmx_submit_moves_focus_to_the_results_heading(page, server_url: str, path: str, heading: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    assert page.evaluate("document.activeElement === document.body")  # a page load leaves focus alone
    field = "tpot_ms" if path.startswith("/?") else "utilisation_pct"
    _submit(page, field, "40")
    page.wait_for_url(re.compile(rf"[?&]{field}=40(&|$)"))
    page.wait_for_function(f"() => document.activeElement && document.activeElement.id === '{heading}'")
    assert page.evaluate("window.stillHere") is True
    assert page.evaluate(BOTTOM, f"#{heading}") <= LAPTOP["height"]  # on screen, where the user is taken
    assert page.console.errors == []


def test_an_htmx_submit_with_a_bad_value_focuses_the_error_summary(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8")
    _submit(page, "input_len", "-5")
    page.wait_for_selector("#err-input_len")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'error-summary'")
    assert page.evaluate("window.stillHere") is True
    assert page.locator("#error-summary a[href='#f-input_len']").count() == 1  # its link lands on the field


def test_a_sort_link_keeps_focus_off_the_heading(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Only a submit moves focus: a column's sort link swaps the ranking in place and is no question asked."""
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8")
    page.evaluate("window.stillHere = true")
    page.locator("table.ranked th[data-sortable] a").last.click()
    page.wait_for_url(re.compile(r"[?&]sort="))
    page.wait_for_timeout(300)  # past htmx's settle (20 ms), when a submit's focus would have moved
    assert page.evaluate("window.stillHere") is True
    assert page.evaluate(FOCUSED) != "results-title"


FOCUSED_TEXT = "() => document.activeElement.closest('th, nav') && document.activeElement.textContent.trim()"


def test_a_sort_or_pager_link_keeps_keyboard_focus_in_the_new_ranking(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """The swap took the pressed link away: focus fell to <body> and the next Tab went to the infeasible options
    below the table, past every ranked row. Focus now stays on the same control in the swapped-in ranking."""
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-70b")
    headers = "table.ranked th[data-sortable] a"
    label = page.locator(headers).nth(4).inner_text().strip()
    page.locator(headers).nth(4).focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"[?&]sort="))
    page.wait_for_function(f"() => document.activeElement.matches('{headers}')")
    assert page.evaluate(FOCUSED_TEXT) == label
    page.keyboard.press("Tab")  # on to the next column, not past the table
    assert page.evaluate(FOCUSED_TEXT) == page.locator(headers).nth(5).inner_text().strip()

    page.locator("nav.pager a[rel=next]").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"[?&]page=2"))
    page.wait_for_function("() => document.activeElement.matches('nav.pager a')")
    assert page.evaluate(FOCUSED_TEXT) == "‹ Previous"
