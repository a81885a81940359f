"""An unexpected exception answers as every other error does: a page that links home for a browser, the one JSON
shape for a client, never a traceback. Before, Starlette sent its bare text "Internal Server Error"."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import settings_for


@pytest.fixture(scope="module")
def failing_app(seeded_url: str) -> FastAPI:
    app = create_app(settings_for(seeded_url))

    @app.get("/api/v1/boom")
    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals: /home/app/db.py line 42")

    return app


def test_a_page_that_fails_is_a_readable_page_linking_home(failing_app: FastAPI) -> None:
    with TestClient(failing_app, raise_server_exceptions=False) as client:
        page = client.get("/boom", headers={"accept": "text/html"})
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    assert "Server error" in page.text and 'href="/"' in page.text
    assert "secret internals" not in page.text and "Traceback" not in page.text


def test_an_api_call_that_fails_answers_the_one_error_shape(failing_app: FastAPI) -> None:
    with TestClient(failing_app, raise_server_exceptions=False) as client:
        response = client.get("/api/v1/boom")
    assert response.status_code == 500
    [entry] = response.json()["detail"]
    assert entry["field"] == "request" and "retry" in entry["message"]
    assert "secret internals" not in response.text


def test_a_wrong_method_page_says_so_and_links_home(client: TestClient) -> None:
    page = client.post("/gpus", headers={"accept": "text/html"})
    assert page.status_code == 405 and "Method not allowed" in page.text and 'href="/"' in page.text
    assert "it takes GET, HEAD" in page.text
