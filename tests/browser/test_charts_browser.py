"""Charts in a real Chromium: nothing empty without JavaScript, nothing overlapping or cut on a phone."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

INFERENCE = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"
JOB = "/?phase=inference&model=llama-3.1-70b&scenario=max_throughput&job_requests=200000&job_deadline_hours=4"


def test_without_javascript_charts_leave_no_empty_box(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """Each chart was a blank 320 px box under a caption about stars and lines; Copy link did nothing."""
    page = page_without_js
    page.goto(f"{server_url}{INFERENCE}")
    assert page.locator("figure.chart").count() >= 3
    assert page.locator(".chart-area:visible, figure.chart figcaption:visible").count() == 0
    notes = page.locator(".chart-nojs:visible")
    assert notes.count() == page.locator("figure.chart").count()
    assert "needs JavaScript" in notes.first.inner_text() and "numbers are below" in notes.first.inner_text()
    # each note names its chart (three identical lines in a row left a reader guessing whose numbers sat below)
    texts = notes.all_inner_texts()
    assert len(set(texts)) == len(texts) and texts[0].startswith("$ per million output tokens vs mean time per")
    data = page.locator("figure.chart details.chart-data")  # each chart's numbers, the batch sweep's too
    assert data.count() == page.locator("figure.chart").count()
    data.first.locator("summary").click()
    assert data.first.locator("tbody tr:visible").count() >= 2
    assert page.locator("[data-copy]").count() >= 1 and page.locator("[data-copy]:visible").count() == 0


def test_with_javascript_charts_show_and_the_note_does_not(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}{INFERENCE}")
    page.wait_for_selector(".chart-area[data-drawn]")
    assert page.locator(".chart-nojs:visible").count() == 0
    assert page.locator("[data-copy]:visible").count() >= 1


PLOTLY_FETCHED = "() => performance.getEntriesByType('resource').some(e => e.name.includes('plotly'))"


def test_plotly_loads_only_once_a_chart_is_on_the_page(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """A blank form fetched 1.5 MB of plotly.js for no chart; charts.js now fetches it when an answer brings one."""
    page.goto(f"{server_url}/?phase=inference")
    page.wait_for_load_state("load")
    assert page.evaluate(PLOTLY_FETCHED) is False and page.evaluate("typeof window.Plotly") == "undefined"
    page.select_option("#f-model", "llama-3.1-8b")
    page.click("button[type=submit]")  # an htmx swap brings the charts in
    page.wait_for_selector("#cost-latency[data-drawn=true] svg", state="attached")
    assert page.evaluate(PLOTLY_FETCHED) is True
    assert page.console.errors == []


def _boxes(page, selector: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return [box for box in (el.bounding_box() for el in page.locator(selector).all()) if box]


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and (b["y"] < a["y"] + a["height"])
    )


@pytest.mark.parametrize("path", [INFERENCE, JOB])
def test_on_a_phone_legends_clear_axis_titles_and_labels_fit(phone_page, server_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """At 390 px the throughput chart's x-axis title sat on its first legend entry and the memory chart's last label
    read "4×H100-S…"."""
    page = phone_page
    page.goto(f"{server_url}{path}")
    page.wait_for_selector(".chart-area[data-drawn]")
    page.wait_for_timeout(300)
    for chart in page.locator(".chart-area[data-drawn]").all():
        chart_id = chart.get_attribute("id")
        titles = _boxes(page, f"#{chart_id} .g-xtitle")
        legend = _boxes(page, f"#{chart_id} .legend .traces")
        assert not [1 for t in titles for entry in legend if _overlap(t, entry)], chart_id
        frame = chart.bounding_box()
        for box in _boxes(page, f"#{chart_id} .xtick text, #{chart_id} .ytick text, #{chart_id} .g-xtitle"):
            assert box["x"] >= frame["x"] - 1 and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1, chart_id


def test_a_chart_offers_no_upload_to_plotly_cloud(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    """plotly.js 3 adds a "Share chart..." button to every modebar by default: its dialog uploads the figure (the
    workload's costs) to Plotly Cloud, a third party, and each chart had one more keyboard stop for it."""
    page.goto(f"{server_url}{INFERENCE}")
    page.wait_for_selector(".chart-area[data-drawn] .modebar-btn", state="attached")
    titles = page.locator(".modebar-btn").evaluate_all("buttons => buttons.map(b => b.dataset.title)")
    assert "Download plot as a PNG" in titles
    assert not [title for title in titles if "Share" in title or "Cloud" in title], titles


LAPTOP_WIDTHS = (1280, 1366)  # a laptop's page holds three charts side by side, ~430 px each

TICKS_APART = """(sel) => {
  const boxes = Array.from(document.querySelectorAll(sel)).map(t => t.getBoundingClientRect()).filter(b => b.height);
  const clash = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
      clash.push([i, j]);
  }
  return clash;
}"""


@pytest.mark.parametrize("width", LAPTOP_WIDTHS)
@pytest.mark.parametrize("path", [INFERENCE, JOB])
def test_on_a_laptop_legends_do_not_scroll_and_axis_labels_do_not_collide(  # type: ignore[no-untyped-def]
    page, server_url: str, path: str, width: int
) -> None:
    """Found by qa18 at 1366x768: five configurations' thirteen legend entries squeezed the curve charts' plots to
    ~150 px in a fixed 380 px chart; plotly gave each legend its own scrollbar (the last curves' names hidden), cut the
    throughput chart's y-axis title ("output tokens/s per replic") and piled the log axes' labels on each other
    ("70 8090 100", "10 9 8 7 6 5 4 3 2 1 0.9 0.8", the job chart's "100 90 80 70 60 50")."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{server_url}{path}")
    page.wait_for_selector(".chart-area[data-drawn]")
    page.wait_for_timeout(300)
    charts = page.locator(".chart-area[data-drawn]").all()
    assert len(charts) >= 3
    for chart in charts:
        chart_id = chart.get_attribute("id")
        assert (
            page.locator(f"#{chart_id} .legend .scrollbar").evaluate_all(
                "bars => bars.filter(b => b.getBBox().height > 0).length"
            )
            == 0
        ), chart_id
        frame = chart.bounding_box()
        for box in _boxes(page, f"#{chart_id} .g-ytitle, #{chart_id} .g-xtitle, #{chart_id} .legend .traces"):
            assert box["y"] >= frame["y"] - 1 and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1, chart_id
        for axis in ("xtick", "ytick"):
            assert page.evaluate(TICKS_APART, f"#{chart_id} .{axis} text") == [], (chart_id, axis)
