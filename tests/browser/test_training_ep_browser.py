"""An expert-parallel training answer in a real Chromium, with and without JavaScript (qa26): Llama 4 Maverick
pretraining on B200, where EP wins (DeepSeek-V3's answer here ran EP until the data-parallel rings ran on every NIC of
a node, fsdpbytes: its TP4 PP8 gradients hide again and it is ZeRO-1 without EP)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

EP_QUERY = "/?phase=training&model=llama-4-maverick&method=pretrain&max_gpus=512&providers=coreweave&gpus=B200"


def test_the_ep_row_draws_its_charts_and_opens_to_its_all_to_all(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}{EP_QUERY}")
    row = page.locator("table.ranked tbody tr.row").first
    assert "TP2 PP4 EP8 ZeRO-1 ×8" in row.inner_text()
    for chart in ("cost-step", "frontier", "memory"):
        page.wait_for_selector(f"#{chart}[data-drawn=true] svg", state="attached")
    details = page.locator("tr.terms details").first
    details.locator("summary").click()
    term = details.get_by_role("row", name="exposed expert all-to-all 0.")
    assert term.is_visible() and "MoE layers × 4 all-to-alls" in term.inner_text()
    assert page.console.errors == []


def test_the_ep_row_and_its_terms_read_without_javascript(page_without_js, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_js
    page.goto(f"{server_url}{EP_QUERY}")
    assert "TP2 PP4 EP8 ZeRO-1 ×8" in page.locator("table.ranked tbody tr.row").first.inner_text()
    details = page.locator("tr.terms details").first
    details.locator("summary").click()  # <details> opens without script
    assert details.get_by_role("row", name="exposed expert all-to-all 0.").is_visible()
    text = details.inner_text()
    assert "s compute + " in text and " s exposed expert all-to-all" in text  # the step's sum names the all-to-all
