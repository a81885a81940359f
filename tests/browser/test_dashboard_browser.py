"""The dashboard in a real Chromium: form → results → URL → reload → charts → share → compare."""

from __future__ import annotations

import re

import pytest

from tests.browser.flows import open_form

pytestmark = pytest.mark.browser


def ranked_rows(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator("table.ranked tbody tr.row").all_inner_texts()


def test_form_to_results_updates_url_and_survives_reload(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/")
    page.select_option("#f-model", "llama-3.1-70b")
    page.select_option("#f-weight_dtype", "fp8")
    page.fill("#f-tpot_ms", "40")
    page.click("button[type=submit]")
    page.wait_for_selector("table.ranked tbody tr.row")
    assert re.search(r"phase=inference&model=llama-3\.1-70b&weight_dtype=fp8&tpot_ms=40$", page.url)
    first = ranked_rows(page)
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    page.reload()
    page.wait_for_selector("table.ranked tbody tr.row")
    assert ranked_rows(page) == first
    assert page.locator("#cost-latency svg.main-svg").count() >= 1
    assert page.console.errors == []


def test_charts_draw_for_training_without_console_errors(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")
    for chart in ("cost-step", "frontier", "memory"):
        page.wait_for_selector(f"#{chart}[data-drawn=true] svg", state="attached")
    assert page.console.errors == []


def test_field_error_appears_beside_the_field_and_keeps_input(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=inference")
    page.fill("#f-input_len", "-5")
    page.click("button[type=submit]")
    page.wait_for_selector("#err-input_len")
    assert page.input_value("#f-input_len") == "-5"
    assert page.get_attribute("#f-input_len", "aria-invalid") == "true"


def test_row_expands_to_its_terms(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-8b")
    details = page.locator("tr.terms details").first
    details.locator("summary").click()
    assert details.locator("table.terms-table tr").count() >= 3


def test_works_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_js
    page.goto(f"{server_url}/?phase=training")
    page.select_option("#f-method", "full_ft")
    page.click("button[type=submit]")
    page.wait_for_selector("table.ranked tbody tr.row")
    assert "phase=training" in page.url and "method=full_ft" in page.url


def test_share_link_round_trip(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")
    first = ranked_rows(page)
    page.click("text=Save with today's prices")
    page.wait_for_url(re.compile(r"/s/[0-9a-f]{12}$"))
    assert "Saved comparison" in page.inner_text(".saved-note")
    assert ranked_rows(page) == first


def test_compare_view_side_by_side(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/compare?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM,H200,B200")
    assert page.locator("article.card").count() == 3
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    assert page.console.errors == []


def test_compare_form_submits_in_place(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """htmx swaps /compare's answer in (it once got a 500: compare.html had no block of its own to render)."""
    page.goto(f"{server_url}/compare?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM,H200,B200")
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    page.evaluate("window.stillHere = true")  # gone if the browser loads a whole page instead of swapping
    open_form(page)
    page.fill("#f-tpot_ms", "40")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/compare\?.*tpot_ms=40"))
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    assert page.evaluate("window.stillHere") is True
    assert page.locator("article.card").count() == 3
    assert page.console.errors == []


def test_catalog_page_chart_and_sort(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/gpus/H100-SXM")
    page.wait_for_selector("#price-chart[data-drawn=true] svg", state="attached")
    page.goto(f"{server_url}/gpus")
    page.select_option("select[name=sort]", "memory")
    page.wait_for_url(re.compile(r"sort=memory"))
    first = page.locator("#gpu-table tbody tr").first.inner_text()
    assert "288" in first or "279" in first
    assert page.console.errors == []


def test_api_docs_render_from_vendored_swagger_ui(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/docs")
    page.click("details#try > summary")  # folded above the static reference
    page.wait_for_selector("#swagger-ui .opblock")
    text = page.inner_text("#swagger-ui").replace("\u200b", "")  # Swagger breaks long paths with zero-width spaces
    assert "/api/v1/rank/inference" in text and "/api/v1/plan/serving" in text
    assert page.console.errors == []


def test_api_reference_reads_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Swagger UI alone showed one paragraph without JavaScript; the server-rendered reference shows every route."""
    page_without_js.goto(f"{server_url}/docs")
    page_without_js.click("nav.api-contents a[href='#post-api-v1-rank-inference']")
    article = page_without_js.locator("#post-api-v1-rank-inference")
    assert article.is_visible() and article.locator("pre.example").first.is_visible()
    assert "cheapest per million output tokens first" in article.inner_text()
    assert '"tpot_ms": 50' in article.locator("pre.example").first.inner_text()


def _ttfts(page) -> list[float]:  # type: ignore[no-untyped-def]
    return [
        float(t.split()[0].replace(",", ""))  # "223 (446)": the mean, then the p99
        for t in page.locator('table.ranked tbody td[data-label="TTFT ms mean (p99)"]').all_inner_texts()
    ]


def test_results_table_sorts_by_a_column_in_place_and_keeps_terms_rows(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-8b")
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    page.click("table.ranked th >> text=TTFT")
    page.wait_for_url(re.compile(r"model=llama-3\.1-8b&sort=ttft$"))  # htmx pushed the canonical URL
    page.wait_for_selector('table.ranked th[aria-sort="ascending"] >> text=TTFT')
    values = _ttfts(page)
    assert len(values) > 1 and values == sorted(values)
    first = page.locator("table.ranked tbody tr.row").first
    assert page.locator(f"#{first.get_attribute('data-detail')}").count() == 1
    page.click("table.ranked th >> text=TTFT")  # the active column reverses
    page.wait_for_url(re.compile(r"sort=-ttft$"))
    page.wait_for_selector('table.ranked th[aria-sort="descending"] >> text=TTFT')
    highest = _ttfts(page)
    assert highest == sorted(highest, reverse=True) and highest[0] >= values[-1]  # the whole ranking, reversed
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")  # charts redrawn after the swap
    assert page.console.errors == []


def test_sorting_works_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_js
    page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")
    page.click("table.ranked th >> text=Total")
    page.wait_for_url(re.compile(r"sort=total$"))
    cells = page.locator('td[data-label^="Total $"]').all_inner_texts()  # "$85\n(68–128)": the total over its band
    totals = [float(t.split()[0].strip("$").replace(",", "")) for t in cells]
    assert len(totals) == 25 and totals == sorted(totals)


def test_pager_turns_pages_in_place_and_back_without_console_errors(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")
    page.wait_for_selector("table.ranked tbody tr.row")
    first = ranked_rows(page)
    page.click("nav.pager >> text=Next ›")
    page.wait_for_selector('tr.row[data-detail="terms-26"]')
    assert page.url.endswith("/?phase=training&model=llama-3.1-8b&page=2")  # htmx pushed the canonical URL
    assert "Showing 26–50 of" in page.locator("table.ranked caption").inner_text()
    page.wait_for_selector("#cost-step[data-drawn=true] svg", state="attached")  # charts redrawn after the swap
    page.go_back()
    page.wait_for_selector('tr.row[data-detail="terms-1"]')
    assert ranked_rows(page) == first
    assert page.console.errors == []


def test_pager_works_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_js
    page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")
    page.click("nav.pager >> text=Show all")
    page.wait_for_selector("table.ranked tbody tr.row")
    assert page.url.endswith("&show=all")
    assert "Next" not in page.locator("nav.pager").inner_text()
    assert page.locator("table.ranked tbody tr.row").count() > 25
