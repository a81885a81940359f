"""At 1366x768 (a common laptop screen) a results page shows its ranked table without scrolling: the form folds
under the question's one-line summary (the table's first row began at 1,210 px on the inference page, 1,248 px on
the training page; 599 and 643 px folded). Opening the summary shows the form, and submitting it answers the new
question, folded again under its own summary: with JavaScript (an htmx swap) and without."""

from __future__ import annotations

import re

import pytest

from tests.browser.flows import open_form

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
FIRST_ROW_TOP = "() => document.querySelector('table.ranked tbody tr.row').getBoundingClientRect().top"
# (results page, a field to change, its new value, the summary's words for it)
CASES = [
    ("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", "tpot_ms", "40", "TPOT ≤ 40 ms"),
    ("/?phase=training&model=llama-3.1-8b&method=lora", "max_days", "10", "≤ 10 days"),
]


@pytest.mark.parametrize(("path", "field", "value", "words"), CASES)
def test_the_ranked_table_is_above_the_fold_and_the_folded_form_still_submits(  # type: ignore[no-untyped-def]
    page, server_url: str, path: str, field: str, value: str, words: str
) -> None:
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    assert page.evaluate(FIRST_ROW_TOP) < LAPTOP["height"]
    assert not page.locator("form.workload").is_visible()
    assert words not in page.inner_text("details.form-fold > summary")
    open_form(page)
    assert page.locator(f"#f-{field}").is_visible()
    page.evaluate("window.stillHere = true")  # gone if the browser loads a whole page instead of swapping
    page.fill(f"#f-{field}", value)
    page.click("form.workload button[type=submit]")
    page.wait_for_url(re.compile(rf"[?&]{field}={value}(&|$)"))
    page.wait_for_function(
        f"() => document.querySelector('details.form-fold > summary').textContent.includes('{words}')"
    )
    assert page.evaluate("window.stillHere") is True
    assert page.locator("details.form-fold").get_attribute("open") is None  # folded again over the new answer
    assert page.evaluate(FIRST_ROW_TOP) < LAPTOP["height"]
    assert page.console.errors == []


def test_the_folded_form_opens_and_submits_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_js
    page.goto(f"{server_url}{CASES[0][0]}")
    assert not page.locator("#f-tpot_ms").is_visible()
    page.click("details.form-fold > summary")
    page.fill("#f-tpot_ms", "40")
    page.click("form.workload button[type=submit]")
    page.wait_for_url(re.compile(r"tpot_ms=40"))
    assert "TPOT ≤ 40 ms" in page.inner_text("details.form-fold > summary")
    assert page.locator("table.ranked tbody tr.row").count() > 0


def test_a_422_keeps_the_form_open_and_its_summary_links_land_on_the_fields(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{CASES[0][0]}")
    open_form(page)
    page.fill("#f-input_len", "-5")
    page.click("form.workload button[type=submit]")
    page.wait_for_selector("#err-input_len")
    assert page.locator("details.form-fold").count() == 0 and page.locator("#f-input_len").is_visible()
    page.click(".error-box a[href='#f-input_len']")
    assert page.evaluate("document.querySelector('#f-input_len').getBoundingClientRect().top") < LAPTOP["height"]
