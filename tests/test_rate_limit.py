"""Rate limits: GPUMATCH_RATE_LIMIT (429 + Retry-After on /api/* and the page twins per client, off by
default), GPUMATCH_SHARE_RATE_LIMIT on POST /share; the key is the peer unless it is a trusted proxy."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app
from app.web.middleware.rate_limit import ApiRateLimit
from tests.conftest import settings_for


def test_api_is_limited_pages_are_not(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, rate_limit="3/minute"))
    with TestClient(app) as client:
        assert [client.get("/api/v1/providers").status_code for _ in range(3)] == [200] * 3
        limited = client.get("/api/v1/gpus")
        assert limited.status_code == 429
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        [error] = limited.json()["detail"]
        assert error["field"] == "request" and "rate limit" in error["message"]
        assert limited.headers["x-content-type-options"] == "nosniff"
        assert all(client.get(p).status_code == 200 for p in ["/healthz", "/providers", "/gpus"] * 3)


def test_api_is_unlimited_by_default(client) -> None:  # type: ignore[no-untyped-def]
    assert client.app.state.settings.rate_limit is None
    assert all(client.get("/api/v1/providers").status_code == 200 for _ in range(40))


def test_no_middleware_when_every_limit_is_off(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, share_rate_limit=""))
    assert not any(m.cls is ApiRateLimit for m in app.user_middleware)


def test_json_and_csv_twins_share_the_api_bucket(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, rate_limit="3/minute"))
    with TestClient(app) as client:
        codes = [client.get(p).status_code for p in ("/api/v1/gpus", "/rank.json", "/rank.csv", "/compare.json")]
        assert codes[:3] != [429] * 3 and codes[3] == 429
        assert client.get("/plan.json").status_code == 429
        assert client.get("/disagg.json").status_code == 429  # every page's twin, not a list of them
        assert client.get("/s/no-such-link.csv").status_code == 429
        assert client.get("/").status_code == 200  # the page itself is not limited
        assert client.get("/static/js/app.js").status_code == 200


def test_spoofed_forwarded_for_from_untrusted_peer_keeps_the_key(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, rate_limit="3/minute", trusted_proxies="10.9.9.9"))
    with TestClient(app, client=("203.0.113.7", 4000)) as client:
        codes = [
            client.get("/api/v1/gpus", headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(6)
        ]
    assert codes == [200, 200, 200, 429, 429, 429]


def test_forwarded_for_from_a_trusted_proxy_names_the_client(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, rate_limit="2/minute", trusted_proxies="10.9.9.9"))
    with TestClient(app, client=("10.9.9.9", 4000)) as proxy:
        first = [proxy.get("/api/v1/gpus", headers={"X-Forwarded-For": "198.51.100.1"}).status_code for _ in range(3)]
        other = proxy.get("/api/v1/gpus", headers={"X-Forwarded-For": "198.51.100.2"}).status_code
    assert first == [200, 200, 429] and other == 200


def test_share_posts_are_limited_per_client(fresh_url: str) -> None:
    app = create_app(settings_for(fresh_url, share_rate_limit="2/minute"))
    form = {"path": "/", "query": "phase=inference&model=llama-3.1-8b"}
    with TestClient(app) as client:
        codes = [client.post("/share", data=form, headers={"Accept": "application/json"}).status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        assert client.get("/").status_code == 200


def test_a_browsers_save_over_the_limit_gets_a_page_and_a_client_json(fresh_url: str) -> None:
    """The Save button's 3rd post in a minute (limit 2) showed the browser raw JSON; it gets a page saying why, with
    the 429 and Retry-After, while a JSON client still gets the {field, message} entry."""
    app = create_app(settings_for(fresh_url, share_rate_limit="2/minute"))
    form = {"path": "/", "query": "phase=inference&model=llama-3.1-8b"}
    with TestClient(app) as client:
        for _ in range(2):
            client.post("/share", data=form, headers={"Accept": "application/json"})
        page = client.post("/share", data=form, headers={"Accept": "text/html"}, follow_redirects=False)
        assert page.status_code == 429 and page.headers["content-type"] == "text/html; charset=utf-8"
        assert "rate limit exceeded: 2 per 1 minute" in page.text and int(page.headers["retry-after"]) > 0
        api = client.post("/share", json=form)
        assert api.status_code == 429 and api.json()["detail"][0]["field"] == "request"
