"""Security headers: scripts from this host only (no inline script, no eval, no CDN host)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_headers(client: TestClient) -> None:
    for path in ("/", "/api/v1/gpus", "/no-such-page"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
        assert script_src.strip() == "script-src 'self'" and "unsafe-eval" not in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_no_inline_scripts_in_pages(client: TestClient) -> None:
    import re

    for path in ("/", "/gpus", "/models", "/providers", "/plan", "/methodology"):
        for tag in re.findall(r"<script\b[^>]*>", client.get(path).text):
            assert "src=" in tag or 'type="application/json"' in tag, (path, tag)
