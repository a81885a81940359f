"""A chart's note on a vertical line ("end of depreciation" on /own, "your traffic" on /plan) sits above the plot, in
its top margin: inside it, /own's rent line ended right through "depreciation" at the chart's right edge."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# how far each note's box reaches below the top of its plot area (<= 0: wholly above it)
NOTE_OVERLAP = """(id) => { const chart = document.getElementById(id);
  const plot = chart.querySelector('.draglayer .nsewdrag').getBoundingClientRect();
  return Array.from(chart.querySelectorAll('g.annotation')).map(n => n.getBoundingClientRect().bottom - plot.top); }"""


@pytest.mark.parametrize(
    ("path", "chart_id"),
    [
        ("/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=60", "own-rent"),
        ("/plan?model=llama-3.1-70b&requests_per_day=864000&months=12", "cost-traffic"),
    ],
)
@pytest.mark.parametrize("width", [1366, 390])
def test_a_line_note_stays_above_the_plot(page, server_url: str, path: str, chart_id: str, width: int) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server_url}{path}")
    page.wait_for_selector(f"#{chart_id}[data-drawn] g.annotation", state="attached")
    overlaps = page.evaluate(NOTE_OVERLAP, chart_id)
    assert overlaps and all(o <= 1 for o in overlaps), overlaps
