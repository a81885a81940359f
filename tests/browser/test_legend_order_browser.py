"""A stacked bar chart's legend names its segments in the order they stack, left to right: plotly reverses a stacked
chart's legend (right for upright bars), so /disagg's read "decode pool, prefill pool, aggregated" beside bars drawn
prefill then decode, and the memory chart put capacity first and weights last."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LEGEND = """(id) => Array.from(document.querySelectorAll(`#${id} .legend .traces text.legendtext`))
  .map(t => t.textContent)"""


@pytest.mark.parametrize(
    ("path", "chart_id", "first_names"),
    [
        ("/disagg?model=llama-3.1-70b", "cost-disagg", ["aggregated", "prefill pool", "decode pool"]),
        ("/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,B200", "memory", ["weights", "KV cache"]),
    ],
)
def test_a_stacked_legend_reads_in_stacking_order(page, server_url: str, path: str, chart_id: str, first_names) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1366, "height": 800})
    page.goto(f"{server_url}{path}")
    page.wait_for_selector(f"#{chart_id}[data-drawn] .legend text.legendtext", state="attached")
    names = page.evaluate(LEGEND, chart_id)
    assert [n[: len(want)] for n, want in zip(names, first_names, strict=False)] == first_names, names
