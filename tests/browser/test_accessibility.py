"""Every page as a keyboard or screen-reader user meets it (found by qa24): controls named by their labels, errors
tied to their fields, one <h1> and headings in order, landmarks, named tables with scoped headers, sort state said,
charts named and their toolbars visible when focused, text contrast of 4.5:1, and htmx updates announced. The DOM
checks run on one server and one browser, page by page, with and without JavaScript. axe-core is not available
offline here, so the checks are written out below, each a query a reader can follow."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# the least opacity of an element and its ancestors, `b`: what a sighted user sees of it
LEAST_OPACITY = (
    "Math.min(...(function* () { for (let e = b; e; e = e.parentElement) yield +getComputedStyle(e).opacity; })())"
)
CHART_PAGES = [
    "/?phase=inference&model=llama-3.1-70b",
    "/gpus/H100-SXM",
]


def _wait_for_charts(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_selector(".chart-area[data-drawn] .modebar-btn", state="attached")


@pytest.mark.parametrize("path", CHART_PAGES)
def test_a_chart_toolbar_shows_when_tabbed_into_and_is_not_inside_an_image(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """Plotly's toolbar buttons are tab stops (seven per chart) and fade in when focused; they sat inside a
    role="img", whose content screen readers skip: Tab landed on buttons a screen reader could not name. The chart is
    a named group now, its drawn SVG (loose tick labels) hidden from screen readers; its numbers are a table below."""
    page.goto(f"{server_url}{path}")
    _wait_for_charts(page)
    button = page.locator(".chart-area[data-drawn] .modebar-btn").first
    button.focus()
    # plotly fades its toolbar in over 0.3 s
    shown = button.evaluate(f"b => new Promise(done => setTimeout(() => done({LEAST_OPACITY}), 600))")
    assert shown == 1
    assert button.evaluate("b => !b.closest('[role=img]')")
    chart = page.locator(".chart-area[data-drawn]").first
    assert chart.get_attribute("aria-label")
    hidden = "c => Array.from(c.querySelectorAll('svg.main-svg')).every(s => s.getAttribute('aria-hidden') === 'true')"
    assert chart.evaluate(hidden)


# Each sorted column's numbers, read off the page: a header's aria-sort must match the order the rows are in.
SORTED_COLUMN = """() => {
  const th = document.querySelector('table th[aria-sort]');
  if (!th) return null;
  const table = th.closest('table'), index = Array.from(th.parentElement.children).indexOf(th);
  const rows = Array.from(table.querySelectorAll(':scope > tbody > tr'))
    .filter(r => !r.querySelector(':scope > [colspan]'));  // not a ranked row's folded terms
  // a cell's leading number ("$2.99", "1 close"); "—" (none) and a second line's prices are not the sorted value
  const values = rows.map(r => r.children[index].innerText.replace(/,/g, '').trim().match(/^\\$?(\\d+(\\.\\d+)?)/))
    .filter(match => match).map(match => Number(match[1]));
  return {sort: th.getAttribute('aria-sort'), values};
}"""
SORTED_PAGES = [
    "/gpus?sort=price",
    "/gpus?sort=memory",
    "/gpus?sort=bf16",
    "/?phase=inference&model=llama-3.1-8b",
    "/?phase=inference&model=llama-3.1-8b&sort=-tok_s",
    "/?phase=inference&model=llama-3.1-8b&sort=ttft",
]


@pytest.mark.parametrize("path", SORTED_PAGES)
def test_a_sorted_column_says_the_order_its_rows_are_in(page_without_js, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """/gpus sorted by price lists the cheapest first, but its header said aria-sort="descending"."""
    page_without_js.goto(f"{server_url}{path}")
    column = page_without_js.evaluate(SORTED_COLUMN)
    assert column is not None and len(column["values"]) > 2, column
    values = column["values"]
    assert column["sort"] == ("ascending" if values == sorted(values) else "descending"), column
    assert values in (sorted(values), sorted(values, reverse=True)), column
