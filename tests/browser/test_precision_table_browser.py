"""/precision's table gives its best option room: at 1,366 and 1,280 px its "Best option" column was squeezed to
159-179 px beside the published quality, four lines for "GMI Cloud (on demand, $4.00/GPU-h)" and an option's name
free to break at its hyphen. It keeps a readable width (the `wide` cells' 16rem), the name stays whole, and the table
still fits its box (a classic scrollbar's 1,265 px too); on a phone its rows are cards, with no sideways scroll."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PATH = "/precision?model=llama-3.1-70b"
# Llama 3.1 8B's quality rows name "MMLU/GSM8K/HellaSwag/Winogrande": unbroken, it pushed the table 30 px past 1,280
PATHS = [PATH, "/precision?model=llama-3.1-8b&scenario=concurrency&concurrency=16"]
BEST_OPTION_MIN_PX = 240  # 16rem at the site's 15 px
COLUMN_WIDTH = """() => Array.from(document.querySelectorAll('table.ranked thead th'))
  .find(h => h.textContent.trim() === 'Best option').getBoundingClientRect().width"""
# a name over two lines has fragments a line apart (its text and its link are fragments of one line otherwise)
BROKEN_NAMES = """() => Array.from(document.querySelectorAll('table.ranked .option-name')).filter(n => {
  const tops = Array.from(n.getClientRects()).map(r => r.top); return Math.max(...tops) - Math.min(...tops) > 8;
}).map(n => n.textContent)"""
TABLE_OVERFLOW = """() => { const t = document.querySelector('table.ranked');
  return t.scrollWidth - t.parentElement.clientWidth; }"""


@pytest.mark.parametrize("width", [1366, 1280, 1265])
@pytest.mark.parametrize("path", PATHS)
def test_the_best_option_column_is_readable_on_a_laptop(page, server_url: str, path: str, width: int) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server_url}{path}")
    assert page.locator("table.ranked .option-name").count() >= 5
    assert page.evaluate(COLUMN_WIDTH) >= BEST_OPTION_MIN_PX
    assert page.evaluate(BROKEN_NAMES) == []
    assert page.evaluate(TABLE_OVERFLOW) <= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_precision_table_never_scrolls_sideways_on_a_phone(phone_page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    phone_page.goto(f"{server_url}{PATH}")
    assert phone_page.locator("table.ranked .option-name").count() >= 5
    assert phone_page.evaluate(BROKEN_NAMES) == []
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
