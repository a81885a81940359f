"""The /disagg page in a real Chromium: htmx form, stacked cost chart drawn, the link reproduces the answer."""

from __future__ import annotations

import pytest

from tests.browser.flows import assert_link_reproduces, fill_form, save_shot, submit_and_read

pytestmark = pytest.mark.browser


def test_disagg_page_compares_layouts_with_a_chart(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    fill_form(
        page,
        f"{server_url}/disagg",
        {"model": "llama-3.1-70b", "weight_dtype": "fp8"},
        # a 32k prompt: no one-node layout meets the 1 s TTFT default
        {"input_len": "32000", "output_len": "1000", "tpot_ms": "40", "ttft_ms": "5000"},
    )
    text = submit_and_read(page, r"/disagg\?model=llama-3.1-70b.*input_len=32000.*tpot_ms=40")
    assert "Prefill pool:" in text and "Decode pool:" in text and "Disaggregated plans" in text
    save_shot(page, "disagg")
    assert_link_reproduces(page, text)


def test_disagg_form_sizes_the_pools_at_the_bands_slow_end(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    fill_form(
        page,
        f"{server_url}/disagg",
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "limits_at": "band_high"},
        {"requests_per_day": "2000000"},
    )
    text = submit_and_read(page, r"/disagg\?model=llama-3.1-70b.*limits_at=band_high")
    assert "slow end of the bands" in text and "borrowed because no publication measures" in text
    assert page.locator("table.ranked .band").count() >= 2  # each pool's latency band, where its latency is
    assert_link_reproduces(page, text)
