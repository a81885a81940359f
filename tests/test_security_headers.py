"""Security headers in both asset modes: no inline script or eval, CDN host only in cdn mode."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.assets import HTMX_CDN_HOST
from tests.conftest import settings_for


@pytest.mark.parametrize("mode", ["cdn", "local"])
def test_headers(seeded_url: str, mode: str) -> None:
    with TestClient(create_app(settings_for(seeded_url, asset_source=mode))) as client:
        for path in ("/", "/api/v1/gpus", "/no-such-page"):
            headers = client.get(path).headers
            csp = headers["content-security-policy"]
            script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
            assert "'unsafe-inline'" not in script_src and "unsafe-eval" not in csp
            assert (HTMX_CDN_HOST in script_src) is (mode == "cdn")
            assert "frame-ancestors 'none'" in csp
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_no_inline_scripts_in_pages(client: TestClient) -> None:
    import re

    for path in ("/", "/gpus", "/models", "/providers", "/plan", "/methodology"):
        for tag in re.findall(r"<script\b[^>]*>", client.get(path).text):
            assert "src=" in tag or 'type="application/json"' in tag, (path, tag)
