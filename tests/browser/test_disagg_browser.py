"""The /disagg page in a real Chromium: htmx form, stacked cost chart drawn, the link reproduces the answer."""

from __future__ import annotations

import os
import re

import pytest

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("GPUMATCH_FEATURE_SHOTS")  # a folder: save full-page screenshots for a look


def test_disagg_page_compares_layouts_with_a_chart(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/disagg")
    page.select_option("#f-model", "llama-3.1-70b")
    page.select_option("#f-weight_dtype", "fp8")
    page.fill("#f-input_len", "32000")
    page.fill("#f-output_len", "1000")
    page.fill("#f-tpot_ms", "40")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/disagg\?model=llama-3.1-70b.*input_len=32000.*tpot_ms=40"))
    page.wait_for_selector("[data-drawn=true] svg", state="attached")
    text = page.inner_text("main")
    assert "Prefill pool:" in text and "Decode pool:" in text and "Disaggregated plans" in text
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "disagg.png"), full_page=True)
    page.goto(page.url)
    assert page.inner_text("main") == text
    assert page.console.errors == []
