"""Steps the feature pages' browser tests share: submit the form and read the answer, check the link."""

from __future__ import annotations

import os
import re

SHOTS = os.environ.get("GPUMATCH_FEATURE_SHOTS")  # a folder: save full-page screenshots for a look


def save_shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def fill_form(page, url: str, selects: dict[str, str], fills: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """Open the form at `url` and set its fields by name: the <select>s, then the inputs."""
    page.goto(url)
    for name, value in selects.items():
        page.select_option(f"#f-{name}", value)
    for name, value in fills.items():
        page.fill(f"#f-{name}", value)


def submit_and_read(page, url_pattern: str) -> str:  # type: ignore[no-untyped-def]
    """Submit the form, wait for the canonical URL (a regex) and the drawn chart; the page's text."""
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(url_pattern))
    page.wait_for_selector("[data-drawn=true] svg", state="attached")
    return page.inner_text("main")


def assert_link_reproduces(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """The page's URL, opened afresh, shows the same answer, and the console logged no error."""
    page.goto(page.url)
    assert page.inner_text("main") == text
    assert page.console.errors == []


def open_form(page) -> None:  # type: ignore[no-untyped-def]
    """A results page folds its form under the question's summary: open it to change the question."""
    fold = page.locator("details.form-fold")
    if fold.count() and fold.get_attribute("open") is None:
        fold.locator("> summary").click()
