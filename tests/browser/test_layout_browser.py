"""Every page fits a laptop screen (1280 px): no table wider than its column, no sideways scroll of the page,
even with a ranked row's terms opened. Wide tables used to hide a ranking's last columns (days, total $,
$ per token on the precision page) behind a scrollbar, and an opened row's terms stretched the whole table.
Headless Chromium hides scrollbars, so each page is checked again 15 px narrower: a 1280 px window with a
classic scrollbar (Chrome on Windows and Linux), where a peak's ranking still scrolled sideways."""

from __future__ import annotations

import re

import pytest

from tests.browser.flows import open_form

pytestmark = pytest.mark.browser

# a filter set opens its box of checkboxes (every seller, vendor, GPU with an offer); /plan has two, the run's too
FILTERED = [
    "/plan?model=llama-3.1-70b&providers=lambda,runpod&months=12&train_providers=runpod&train_gpus=H100-SXM",
    "/disagg?model=llama-3.1-70b&vendors=NVIDIA",
    "/mix?model=llama-3.1-8b&gpus=H100-SXM,B200",
    "/precision?model=llama-3.1-70b&providers=lambda",
]
PAGES = [
    "/?phase=inference&model=deepseek-r1&weight_dtype=fp8&tpot_ms=50",
    "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&scenario=max_throughput&job_requests=200000"
    "&job_deadline_hours=4",
    "/?phase=training&model=llama-3.1-70b&method=full_ft&total_tokens=10000000000",
    "/precision?model=llama-3.1-70b",
    # GMI Cloud's rows carry two price caveats (capacity not guaranteed, its own article) in the terms cell
    "/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,H200,B200",
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
    # GMI Cloud's disputed price says both figures under its model name
    "/plan?model=deepseek-v3&requests_per_day=100000&input_len=200&output_len=1000",
    "/models/deepseek-r1",
    "/disagg?model=llama-3.1-70b",
    "/methodology",
    # a peak adds the replicas column and $/M under the monthly figure; deepseek-r1's is the widest ranking
    "/?phase=inference&model=llama-3.1-70b&peak_requests_per_s=5",
    # a request rate spread over each rented instance's copies: the longest instance note (spread_load.py)
    "/?phase=inference&model=llama-3.1-8b&scenario=request_rate&requests_per_s=20",
    "/?phase=inference&model=deepseek-r1&weight_dtype=fp8&peak_requests_per_s=5",
    # a peak on /plan: 2-copies-per-instance notes and GMI Cloud's caveat in an 11-column fleet table
    "/plan?model=llama-3.1-70b&peak_requests_per_s=5",
    # a set engine setting opens the serving box; a peak rate shows the daily count it came to beside it
    "/plan?model=deepseek-r1&weight_dtype=fp8&engine=sglang&peak_requests_per_s=2&max_num_seqs=256",
    "/disagg?model=llama-3.1-70b&peak_requests_per_s=2&prefix_cache_hit=0.3",
    "/precision?model=llama-3.1-8b&scenario=concurrency&concurrency=16",
    "/mix?model=llama-3.1-8b",
    # no dedicated option: the grouped reasons, each a long sentence, in their own table
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=100000&input_len=128000&output_len=1",
    # released in MXFP4: its own row, with the reference and upcast badges
    "/precision?model=gpt-oss-120b",
    # found by qa22: a GPU's cheaper terms (spot, reserved, marketplace, each dated) were one unbroken line, 1,683 px
    "/gpus",
    # the catalog lists' filter forms and sortable headers; a per-token provider's prices in its row and page
    "/models?kind=moe&sort=params",
    "/providers",
    "/providers/deepinfra",
    "/providers/lambda",
    "/gpus/H100-SXM?price_type=on_demand&sort=date",
    *FILTERED,
]
SCROLLBAR_PX = 15  # a classic (non-overlay) scrollbar in Chrome on Windows and Linux

OVERFLOWING = """() => Array.from(document.querySelectorAll('table'))
  .filter(t => t.offsetParent && t.scrollWidth > t.parentElement.clientWidth + 1)
  .map(t => `${t.className || 'table'}: ${t.scrollWidth} px in ${t.parentElement.clientWidth} px`)"""
# a cell whose text is wider than the cell spills over its neighbour: /mix's offer (its date over the replicas)
SPILLING = """() => Array.from(document.querySelectorAll('table td, table th'))
  .filter(c => c.offsetParent && c.clientWidth && c.scrollWidth > c.clientWidth + 1)
  .map(c => `${c.dataset.label || c.tagName}: ${c.scrollWidth} px in ${c.clientWidth} px`)"""


@pytest.mark.parametrize("path", PAGES)
def test_page_fits_a_laptop_screen(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}{path}")
    opened = page.locator("tr.terms details")
    if opened.count():
        opened.first.locator("summary").click()
    for width in (1280, 1280 - SCROLLBAR_PX):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate(OVERFLOWING) == [], width
        assert page.evaluate(SPILLING) == [], width
        assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate(
            "document.documentElement.clientWidth"
        )


# Between the phone cards (720 px) and 1,280 px: a small laptop at 1,024 px, and 1,200 px, where methodology's
# training constants (two columns from 901 px) outgrew their half of the page on one long dotted source name.
@pytest.mark.parametrize("width", [1024, 1200])
@pytest.mark.parametrize(
    "path", ["/methodology", "/gpus", "/models/deepseek-r1", "/?phase=inference&model=llama-3.1-70b"]
)
def test_page_fits_a_small_laptop_screen(page, server_url: str, path: str, width: int) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server_url}{path}")  # a wide table may scroll in its own box here; the page itself never does
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate(
        "document.documentElement.clientWidth"
    )


# an inline date split over two lines has two client rects
WRAPPED_DATES = """() => Array.from(document.querySelectorAll('.as-of'))
  .filter(d => d.offsetParent && d.getClientRects().length > 1).map(d => d.textContent.trim().slice(0, 12))"""


@pytest.mark.parametrize("width", [1366, 1024])
def test_a_per_token_date_stays_on_one_line(page, server_url: str, width: int) -> None:  # type: ignore[no-untyped-def]
    """/models/deepseek-r1's per-token prices read "≤2026-" over "12-01" at 1,366 px (found by screens)."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server_url}/models/deepseek-r1")
    assert page.locator(".as-of").count() >= 5
    assert page.evaluate(WRAPPED_DATES) == []


# a cell or example whose text runs past its own box (a fixed-layout table keeps its width and lets text spill)
SPILLING = """() => Array.from(document.querySelectorAll('.api-ref td, .api-ref th, .api-ref pre'))
  .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName}: ${e.textContent.trim().slice(0, 40)}: ${e.scrollWidth} px in ${e.clientWidth} px`)"""


# The API reference: long field names, types, patterns and curl bodies wrap; checked with every field list opened
@pytest.mark.parametrize("width", [1366, 1280, 1280 - SCROLLBAR_PX, 1024])
def test_api_reference_fits_with_every_field_list_open(page, server_url: str, width: int) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server_url}/docs")
    page.evaluate("document.querySelectorAll('.api-ref details').forEach(d => { d.open = true; })")
    assert page.locator(".api-ref details.nested table.fields").first.is_visible()
    assert page.evaluate(OVERFLOWING) == [], width
    assert page.evaluate(SPILLING) == [], width
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate(
        "document.documentElement.clientWidth"
    )


PHONE_PAGES = [
    "/?phase=inference&model=deepseek-r1&weight_dtype=fp8&tpot_ms=50",
    "/?phase=training&model=llama-3.1-70b&method=full_ft&total_tokens=10000000000",
    "/precision?model=llama-3.1-70b",
    # GMI Cloud's rows carry two price caveats (capacity not guaranteed, its own article) in the terms cell
    "/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,H200,B200",
    "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
    "/mix?model=llama-3.1-8b",
    "/disagg?model=llama-3.1-70b",
    # a request rate spread over each rented instance's copies: the longest instance note (spread_load.py)
    "/?phase=inference&model=llama-3.1-8b&scenario=request_rate&requests_per_s=20",
    "/own?gpu=H100-SXM",
    "/gpus/H100-SXM",
    "/methodology",
    "/gpus",
    "/models",
    *FILTERED,
]

STACKED = """() => Array.from(document.querySelectorAll('table.stack')).filter(t => t.offsetParent).map(t => {
  const row = t.tBodies[0].rows[0];
  const cells = Array.from(row.children).filter(c => c.dataset.label);
  const right = Math.max(...cells.map(c => c.getBoundingClientRect().right));
  return {display: getComputedStyle(row).display, labelled: cells.length,
          label: getComputedStyle(cells[0], '::before').content, right: right};
})"""


@pytest.mark.parametrize("path", PHONE_PAGES)
def test_ranked_rows_are_cards_on_a_phone(phone_page, path: str, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Below 720 px a ranked table's rows are cards of labelled cells: every cell, the price included, is on
    screen without a sideways scroll (the tables used to be 600-3,000 px wide, the price off screen), and the page
    itself never scrolls sideways (methodology's constants did)."""
    phone_page.goto(f"{server_url}{path}")
    opened = phone_page.locator("tr.terms details")
    if opened.count():
        opened.first.locator("summary").click()
    tables = phone_page.evaluate(STACKED)
    assert tables, "no stacked table on the page"
    width = phone_page.evaluate("document.documentElement.clientWidth")
    for table in tables:
        assert table["display"] == "grid" and table["labelled"] >= 3
        assert table["label"] not in ("none", "normal", "")  # the data-label is shown above its value
        assert table["right"] <= width
    overflowing = phone_page.evaluate(
        OVERFLOWING.replace(
            "document.querySelectorAll('table')", "document.querySelectorAll('table.stack, table.stack table')"
        )
    )
    assert overflowing == []
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width
    # the cards are still a table to a screen reader: rows, cells and every column's header
    tree = phone_page.locator("table.stack").first.aria_snapshot()
    headers = phone_page.locator("table.stack").first.locator("thead th").count()
    assert tree.count("- columnheader") == headers and "- cell" in tree


# a model's release-precision source (a long URL in parentheses) and its per-token price table (provider model ids);
# MI350X's notes end in a long URL
CATALOG_PAGES = [
    "/models/deepseek-r1", "/models/glm-4.5", "/models/kimi-k2", "/models/qwen3-8b", "/models/mixtral-8x7b",
    "/gpus/MI350X",
]  # fmt: skip


@pytest.mark.parametrize("path", CATALOG_PAGES)
def test_a_catalog_page_never_scrolls_sideways_on_a_phone(phone_page, path: str, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """/models/deepseek-r1 was 575 px wide at 390 px (glm-4.5 622, kimi-k2 655), /gpus/MI350X 416: a source URL did
    not wrap and the per-token price table pushed the page wider than the screen."""
    phone_page.goto(f"{server_url}{path}")
    width = phone_page.evaluate("document.documentElement.clientWidth")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width


ROLES = """() => Array.from(document.querySelectorAll('table.stack, table.stack table')).map(t => ({
  table: t.getAttribute('role'),
  rows: Array.from(t.querySelectorAll(':scope > thead > tr, :scope > tbody > tr')).map(r => r.getAttribute('role')),
  headers: Array.from(t.querySelectorAll(':scope > thead > tr > th')).map(h => h.getAttribute('role')),
  cells: Array.from(t.querySelectorAll(':scope > tbody > tr > td')).map(c => c.getAttribute('role')),
}))"""


def test_stacked_tables_carry_explicit_table_roles_after_a_swap_too(phone_page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Browsers that drop a table's semantics once its rows are grids still get rows, cells and column headers
    from explicit roles, on a page load and on the results an htmx swap brings (the pager's next page)."""
    phone_page.goto(f"{server_url}/?phase=training&model=llama-3.1-8b")

    def check() -> None:
        tables = phone_page.evaluate(ROLES)
        assert tables
        for t in tables:
            assert t["table"] == "table" and set(t["rows"]) == {"row"} and set(t["cells"]) == {"cell"}
            assert set(t["headers"]) <= {"columnheader"}

    check()
    phone_page.click("nav.pager >> text=Next ›")
    phone_page.wait_for_selector('tr.row[data-detail="terms-26"]')
    check()


LAPTOP = {"width": 1366, "height": 768}  # the commonest laptop screen
SMALL_LAPTOP = {"width": 1280, "height": 720}
TABLE_TOP = "() => document.querySelector('table.ranked').getBoundingClientRect().top + window.scrollY"


def test_engine_internals_fold_away_on_the_rank_form(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """The ranked table started ~1,300 px down under ~30 open fields; engine internals, beams and serving
    techniques fold into a box (as on /plan and /disagg) that a set value or an error opens."""
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8")
    open_form(page)  # the results page folds the whole form under its summary (test_fold_browser.py)
    box = page.locator("form.workload details.serving-box")
    assert box.count() == 1 and box.get_attribute("open") is None
    assert page.locator("#f-max_num_seqs:visible, #f-spec_acceptance:visible, #f-beam_width:visible").count() == 0
    assert page.locator("#f-input_len").is_visible()
    folded_top = page.evaluate(TABLE_TOP)
    page.goto(f"{server_url}/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&beam_width=2")
    open_form(page)
    assert box.get_attribute("open") is not None and page.locator("#f-beam_width").is_visible()
    assert folded_top < page.evaluate(TABLE_TOP) - 150  # the box holds 8 fields' height


RESULTS = [
    "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8",
    "/?phase=training&model=llama-3.1-8b&method=lora",
    "/?phase=inference&model=llama-3.1-8b&scenario=concurrency&concurrency=64",
]
FIRST_ROW_BOTTOM = "() => document.querySelector('table.ranked tbody tr').getBoundingClientRect().bottom"


@pytest.mark.parametrize("path", RESULTS)
def test_the_ranked_table_shows_in_the_first_screen_of_the_results(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """At 1366x768 the table began 750 px below the results' heading, under three charts: the answer strip's link
    (#results-title) showed the charts and no ranked row. The charts follow the table and its pager."""
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    page.locator("p.answer-strip a").click()
    page.wait_for_function("() => Math.abs(document.querySelector('#results-title').getBoundingClientRect().top) < 2")
    assert page.evaluate(FIRST_ROW_BOTTOM) <= LAPTOP["height"]  # the table's head and the #1 row, on screen
    chart_top = "() => document.querySelector('.chart-grid').getBoundingClientRect().top + window.scrollY"
    assert page.evaluate(chart_top) > page.evaluate(TABLE_TOP)


BATCH_JOB = (
    "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&scenario=max_throughput&job_requests=200000"
    "&job_deadline_hours=4"
)
# found by qa22: a pretraining run's notes (its batch note alone five lines) stood above the table, the row at 830 px
PRETRAIN = "/?phase=training&model=llama-3.1-405b&method=pretrain&max_gpus=4096"


@pytest.mark.parametrize("saved", [False, True], ids=["live", "saved"])
@pytest.mark.parametrize("path", [*RESULTS, BATCH_JOB, PRETRAIN])
def test_the_first_row_ends_on_the_first_screen_as_the_page_opens(  # type: ignore[no-untyped-def]
    page, server_url: str, path: str, saved: bool
) -> None:
    """Found by fold19: at 1366x768 every results page showed its #1 row unscrolled but a batch job's, whose
    per-token comparison (three lines) stood above the table (row ending at 800 px), and a saved link's, whose saved
    note did (772 px). The comparison follows the table; the saved note is one tight line."""
    page.set_viewport_size(LAPTOP)
    page.goto(f"{server_url}{path}")
    if saved:
        page.click("text=Save with today's prices")
        page.wait_for_url(re.compile(r"/s/[0-9a-f]{12}$"))
        assert page.locator(".saved-note").is_visible()
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate(FIRST_ROW_BOTTOM) <= LAPTOP["height"]  # the table's head and the #1 row, unscrolled


@pytest.mark.parametrize("path", [RESULTS[0], RESULTS[1], PRETRAIN], ids=["inference", "training", "pretrain"])
def test_a_saved_link_shows_its_first_row_on_a_1280x720_screen(page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """Found by qa22 and leftovers10: a saved link's #1 row ended at 746 px (inference) and 759 px (training) of a
    1280x720 screen, 11 px to spare at 1366x768; the steps from the results' rule to the table are tighter."""
    page.set_viewport_size(SMALL_LAPTOP)
    page.goto(f"{server_url}{path}")
    page.click("text=Save with today's prices")
    page.wait_for_url(re.compile(r"/s/[0-9a-f]{12}$"))
    assert page.locator(".saved-note").is_visible() and page.evaluate("window.scrollY") == 0
    assert page.evaluate(FIRST_ROW_BOTTOM) <= SMALL_LAPTOP["height"]


def test_the_charts_follow_the_table_without_javascript_too(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    html = page_without_js.goto(f"{server_url}{RESULTS[0]}").text()
    assert html.index('class="summary"') < html.index('table class="data ranked') < html.index('class="chart-grid"')


# every word of a card's values, its rendered line boxes: a word on two lines ("H100-" / "SXM") has two tops
SPLIT_WORDS = """(sel) => {
  const split = [];
  for (const dd of document.querySelectorAll(sel)) {
    const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        if (tops.size > 1) split.push(m[0]);
      }
    }
  }
  return split;
}"""
COMPARE_4 = {
    "inference": "/compare?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM,H200,B200,MI300X",
    "training": "/compare?phase=training&model=llama-3.1-8b&method=lora&gpus=H100-SXM,H200,B200,MI300X",
}


@pytest.mark.parametrize("phase", ["inference", "training"])
@pytest.mark.parametrize("width", [1280, 1366])
def test_compare_cards_keep_their_values_whole_on_a_laptop(page, server_url: str, width: int, phase: str) -> None:  # type: ignore[no-untyped-def]
    """Found by qa18: four cards in a row put each label beside its value, and the widest label ("TTFT · TPOT, mean
    (p99)") left the values ~80 px: "$2.60/GPU-h", "H100-SXM" and the price dates broke at their hyphens and a price
    caveat stood on four lines. Labels now sit above values."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{server_url}{COMPARE_4[phase]}")
    assert page.locator(".cards .card dd").count() >= 16
    assert page.evaluate(SPLIT_WORDS, ".cards .card dd") == []
    prices = page.evaluate(
        "() => Array.from(document.querySelectorAll('.cards .card .big')).map(p => p.getBoundingClientRect().bottom)"
    )
    assert len(prices) == 4 and max(prices) <= 768  # each GPU's answer on the first screen


@pytest.mark.parametrize("width", [1280, 1366])
def test_own_inputs_dates_stay_whole(page, server_url: str, width: int) -> None:  # type: ignore[no-untyped-def]
    """Found by qa18: /own's inputs table broke its As of dates at the hyphen ("2024-" over "08")."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{server_url}/own?gpu=H100-SXM")
    assert page.locator('td[data-label="As of"]').count() >= 5
    assert page.evaluate(SPLIT_WORDS, 'td[data-label="As of"]') == []


@pytest.mark.parametrize("width", [1280, 1366])
def test_providers_token_price_dates_stay_whole(page, server_url: str, width: int) -> None:  # type: ignore[no-untyped-def]
    """Found by qa36: /providers' per-token cell broke its '≤2026-12-01' dates at the hyphen ("≤2026-" over "12-01")."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{server_url}/providers?sells=per_token_only")
    assert page.locator('td[data-label="Per-token API"] .as-of').count() >= 5
    assert page.evaluate(SPLIT_WORDS, 'td[data-label="Per-token API"] .as-of') == []


# each shown select's chosen text against the room inside it (its padding and the ~14 px arrow taken off)
CUT_SELECTS = """() => { const ctx = document.createElement('canvas').getContext('2d');
  return Array.from(document.querySelectorAll('select')).filter(s => s.offsetParent).map(s => {
    const cs = getComputedStyle(s); ctx.font = cs.font;
    const text = s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : '';
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 14;
    return {name: s.name, text: text, cut: ctx.measureText(text).width > room};
  }).filter(s => s.cut).map(s => `${s.name}: ${s.text}`); }"""


@pytest.mark.parametrize("width", [1280, 1366])
@pytest.mark.parametrize(
    "path", ["/?phase=inference", "/?phase=inference&model=gpt-oss-120b", "/plan", "/disagg", "/mix", "/compare"]
)
def test_a_select_shows_its_whole_choice_on_a_laptop(page, server_url: str, path: str, width: int) -> None:  # type: ignore[no-untyped-def]
    """Found by qa18: a select cannot wrap, and in a ~110 px grid cell the blank choices read "default: the engin"
    (KV-cache precision) and "the release's (BF1" (weight precision) on every inference form."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{server_url}{path}")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    assert page.locator("#f-kv_dtype").is_visible() and page.locator("#f-weight_dtype").is_visible()
    assert page.evaluate(CUT_SELECTS) == []


def test_mix_terms_open_under_their_offer_inside_the_table(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Found by qa22: /mix's terms opened inside a last "How" column, their lines unbroken, and the table grew to
    1,364 px in its 1,243 px box, scrolled sideways to show them; they open in a row of their own, wrapped."""
    page.goto(f"{server_url}/mix?model=llama-3.1-8b")
    page.locator("table.ranked details > summary").first.click()
    assert page.locator("table.ranked ul.terms").first.is_visible()
    for width in (1280, 1280 - SCROLLBAR_PX):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate(OVERFLOWING) == [], width
