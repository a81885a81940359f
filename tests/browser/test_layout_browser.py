"""Every page fits a laptop screen (1280 px): no table wider than its column, no sideways scroll of the page,
even with a ranked row's terms opened. Wide tables used to hide a ranking's last columns (days, total $,
$ per token on the precision page) behind a scrollbar, and an opened row's terms stretched the whole table."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGES = [
    "/?phase=inference&model=deepseek-r1&weight_dtype=fp8&tpot_ms=50",
    "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&scenario=max_throughput&job_requests=200000"
    "&job_deadline_hours=4",
    "/?phase=training&model=llama-3.1-70b&method=full_ft&total_tokens=10000000000",
    "/precision?model=llama-3.1-70b",
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
    "/disagg?model=llama-3.1-70b",
    "/methodology",
]

OVERFLOWING = """() => Array.from(document.querySelectorAll('table'))
  .filter(t => t.offsetParent && t.scrollWidth > t.parentElement.clientWidth + 1)
  .map(t => `${t.className || 'table'}: ${t.scrollWidth} px in ${t.parentElement.clientWidth} px`)"""


@pytest.mark.parametrize("path", PAGES)
def test_page_fits_a_laptop_screen(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}{path}")
    opened = page.locator("tr.terms details")
    if opened.count():
        opened.first.locator("summary").click()
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate(
        "document.documentElement.clientWidth"
    )
