"""Pinned front-end assets: the vendored htmx matches its SRI hash; plotly.js comes from the wheel."""

from __future__ import annotations

import base64
import hashlib

from fastapi.testclient import TestClient

from app.config import PROJECT_ROOT
from app.main import create_app
from app.web.assets import HTMX_FILE, HTMX_SRI, PLOTLY_VERSION
from tests.conftest import settings_for


def test_vendored_htmx_matches_its_integrity_hash() -> None:
    digest = hashlib.sha384((PROJECT_ROOT / "static" / "vendor" / HTMX_FILE).read_bytes()).digest()
    assert "sha384-" + base64.b64encode(digest).decode() == HTMX_SRI


def test_local_mode_serves_htmx_from_the_host_only(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get("/").text
    assert f'src="/static/vendor/{HTMX_FILE}" integrity="{HTMX_SRI}"' in html
    assert "unpkg.com" not in html and "unpkg.com" not in client.get("/").headers["content-security-policy"]
    assert client.get(f"/static/vendor/{HTMX_FILE}").status_code == 200


def test_cdn_mode_pins_the_cdn_copy_with_sri_and_a_local_fallback(seeded_url: str) -> None:
    with TestClient(create_app(settings_for(seeded_url, asset_source="cdn"))) as cdn_client:
        response = cdn_client.get("/")
    html = response.text
    assert f'integrity="{HTMX_SRI}" crossorigin="anonymous"' in html and "unpkg.com/htmx.org@" in html
    assert 'src="/static/js/htmx-fallback.js"' in html and f'data-local-src="/static/vendor/{HTMX_FILE}"' in html
    assert "script-src 'self' https://unpkg.com" in response.headers["content-security-policy"]


def test_plotly_js_is_served_from_the_installed_wheel_with_a_long_cache(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(f"/vendor/plotly-{PLOTLY_VERSION}/plotly.min.js")
    assert response.status_code == 200 and len(response.content) > 1_000_000
    assert "immutable" in response.headers["cache-control"]


def test_static_pages_have_no_inline_scripts() -> None:
    import re

    for template in (PROJECT_ROOT / "templates").glob("*.html"):
        text = re.sub(r"\{#.*?#\}", "", template.read_text(), flags=re.S)  # Jinja comments are not output
        for match in re.finditer(r"<script([^>]*)>(.*?)</script>", text, re.S):
            attributes, body = match.groups()
            assert "src=" in attributes or 'type="application/json"' in attributes, template.name
            assert "src=" not in attributes or not body.strip(), template.name
