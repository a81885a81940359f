"""The dedicated-vs-serverless plan page in a real Chromium."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def test_plan_shows_costs_break_even_and_chart(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/plan")
    page.select_option("#f-model", "llama-3.1-70b")
    page.fill("#f-requests_per_day", "500000")
    page.fill("#f-months", "6")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/plan\?.*requests_per_day=500000"))
    page.wait_for_selector("[data-chart][data-drawn=true] svg, [data-drawn=true] svg", state="attached")
    text = page.inner_text("main")
    assert "Break-even" in text and "/month" in text
    assert page.locator("table").count() >= 2
    shared = page.url
    page.goto(shared)
    assert page.inner_text("main") == text  # the link reproduces the same answer
    assert page.console.errors == []
