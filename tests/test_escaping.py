"""A model and a provider named `<script>alert(1)</script>` are shown as text everywhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_database, settings_for
from tests.hostile_seed import GPU_ID, MODEL_ID, PAYLOAD, add_hostile_rows

pytestmark = pytest.mark.db  # the hostile fixture builds its own database

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("xss")
    url = make_database(folder)
    add_hostile_rows(url, Path(folder) / "seed")
    with TestClient(create_app(settings_for(url))) as client:
        yield client


@pytest.mark.parametrize(
    "path", ["/models", f"/models/{MODEL_ID}", "/providers", f"/gpus/{GPU_ID}", "/", f"/?model={MODEL_ID}"]
)
def test_payload_is_escaped(hostile: TestClient, path: str) -> None:
    response = hostile.get(path, follow_redirects=True)
    assert response.status_code == 200
    assert PAYLOAD not in response.text
    assert ESCAPED in response.text or "\\u003cscript\\u003e" in response.text


def test_dashboard_model_select_lists_it_escaped(hostile: TestClient) -> None:
    text = hostile.get("/").text
    assert f'value="{MODEL_ID}"' in text and f"Evil {ESCAPED}" in text
