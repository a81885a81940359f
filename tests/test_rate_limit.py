"""GPUMATCH_RATE_LIMIT: 429 + Retry-After on /api/* per client; pages and /healthz untouched; off by default."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app
from app.web.rate_limit import ApiRateLimit
from tests.conftest import settings_for


def test_api_is_limited_pages_are_not(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url, rate_limit="3/minute"))
    with TestClient(app) as client:
        assert [client.get("/api/v1/providers").status_code for _ in range(3)] == [200] * 3
        limited = client.get("/api/v1/gpus")
        assert limited.status_code == 429
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert "rate limit" in limited.json()["detail"]
        assert limited.headers["x-content-type-options"] == "nosniff"
        assert all(client.get(p).status_code == 200 for p in ["/healthz", "/providers", "/gpus"] * 3)


def test_off_by_default_means_no_middleware(app) -> None:  # type: ignore[no-untyped-def]
    assert app.state.settings.rate_limit is None
    assert not any(m.cls is ApiRateLimit for m in app.user_middleware)
