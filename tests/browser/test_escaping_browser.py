"""In Chromium: hostile names render as literal text, no alert fires, no console errors (CSP included)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import running_server
from tests.conftest import make_database
from tests.hostile_seed import GPU_ID, MODEL_ID, PAYLOAD, add_hostile_rows

pytestmark = pytest.mark.browser
PAGES = ["/models", f"/models/{MODEL_ID}", "/providers", f"/gpus/{GPU_ID}", "/", f"/?model={MODEL_ID}"]


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("xss-browser")
    url = make_database(folder)
    add_hostile_rows(url, Path(folder) / "seed")
    with running_server(url) as base:
        yield base


@pytest.mark.parametrize("path", PAGES)
def test_hostile_names_are_inert_text(page, hostile_url: str, path: str) -> None:  # type: ignore[no-untyped-def]
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(hostile_url + path)
    page.wait_for_load_state("networkidle")
    if path == "/":
        assert (
            page.locator(f'select[name="model"] option[value="{MODEL_ID}"]').inner_text().startswith(f"Evil {PAYLOAD}")
        )
    else:
        assert page.get_by_text(PAYLOAD, exact=False).count() >= 1
    assert page.evaluate("document.querySelectorAll('script:not([src]):not([type=\"application/json\"])').length") == 0
    assert dialogs == []
    assert page.console.errors == []
