"""HTTP as clients and caches use it: HEAD on every GET route (uptime checks sent HEAD /healthz and got a 405 HTML
page), an Allow header on every 405 (the HTML one had none), and conditional GETs on the catalog API: an ETag from
the catalog version, Cache-Control, and a 304 for If-None-Match (app/web/middleware/head_requests.py,
app/web/catalog/http_cache.py)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.catalog.revision import bump_revision
from app.db import make_engine
from app.main import create_app
from tests.conftest import make_database, settings_for

GET_ROUTES = [
    "/healthz",
    "/readyz",
    "/api/v1/gpus",
    "/api/v1/gpus/H100-SXM",
    "/api/v1/offers?gpu=H100-SXM",
    "/openapi.json",
    "/gpus",
    "/gpus.json",
    "/methodology",
    "/rank.json?model=llama-3.1-8b",
    "/api/v1/gpus/H900",  # a 404 keeps its status too
]
CATALOG_ROUTES = [
    "/api/v1/gpus",
    "/api/v1/gpus/H100-SXM",
    "/api/v1/offers",
    "/api/v1/providers",
    "/api/v1/models",
    "/api/v1/models/llama-3.1-8b",
    "/api/v1/token-prices",
    "/api/v1/offers/1/history",
    # the catalog pages' JSON twins: the API's bytes, which carried no tag
    "/gpus.json",
    "/gpus/H100-SXM.json",
    "/providers.json",
    "/models.json",
    "/models/llama-3.1-8b.json",
]


@pytest.mark.parametrize("path", GET_ROUTES)
def test_head_answers_as_get_without_a_body(client: TestClient, path: str) -> None:
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code != 405
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == got.headers["content-length"]


@pytest.mark.parametrize(
    ("method", "path", "allow", "accept"),
    [
        ("DELETE", "/healthz", "GET, HEAD", "text/html"),  # was an HTML page with no Allow
        ("POST", "/api/v1/gpus", "GET, HEAD", "application/json"),
        ("GET", "/api/v1/rank/inference", "POST", "application/json"),
        ("HEAD", "/api/v1/rank/inference", "POST", "application/json"),
    ],
)
def test_a_405_says_which_methods_the_route_allows(
    client: TestClient, method: str, path: str, allow: str, accept: str
) -> None:
    response = client.request(method, path, headers={"accept": accept})
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    assert response.headers["content-type"].startswith(accept)


@pytest.mark.parametrize("path", CATALOG_ROUTES)
def test_catalog_routes_carry_an_etag_and_answer_304_for_it(client: TestClient, path: str) -> None:
    first = client.get(path)
    assert first.status_code == 200
    etag = first.headers["etag"]
    version = client.post("/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b"}).json()["catalog_version"]
    assert etag.startswith(f'W/"{version}+')  # the catalog_version a ranking reports
    assert first.headers["cache-control"] == "public, no-cache"
    again = client.get(path, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    assert client.get(path, headers={"if-none-match": f'"other", {etag.removeprefix("W/")}'}).status_code == 304
    assert client.get(path, headers={"if-none-match": '"other"'}).status_code == 200


def test_errors_and_rankings_carry_no_catalog_etag(client: TestClient) -> None:
    """A 404 or 422 is not the catalog's representation; a ranking depends on its question as well; a catalog page's
    HTML varies with HX-Request and its templates."""
    assert "etag" not in client.get("/gpus/H100-SXM", headers={"accept": "text/html"}).headers
    assert "etag" not in client.get("/gpus/H900.json").headers
    assert "etag" not in client.get("/api/v1/gpus/H900").headers
    assert "etag" not in client.get("/api/v1/offers?gpu=H100").headers
    assert "etag" not in client.post("/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b"}).headers


def test_a_catalog_edit_changes_the_etag(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = make_database(tmp_path)
    app = create_app(settings_for(url))
    with TestClient(app) as client:
        etag = client.get("/api/v1/providers").headers["etag"]
        with Session(make_engine(url)) as session:
            bump_revision(session)  # what every import and admin edit does in its transaction
            session.commit()
        app.state.snapshots.invalidate()  # the next read rechecks at once, not after the recheck interval
        response = client.get("/api/v1/providers", headers={"if-none-match": etag})
        assert response.status_code == 200 and response.headers["etag"] != etag
