"""Pinned front-end assets: the vendored htmx matches its SRI hash; plotly.js comes from the wheel."""

from __future__ import annotations

import base64
import hashlib

from fastapi.testclient import TestClient

from app.config import PROJECT_ROOT
from app.main import create_app
from app.web.site.assets import HTMX_FILE, HTMX_SRI, PLOTLY_VERSION
from tests.conftest import settings_for


def test_vendored_htmx_matches_its_integrity_hash() -> None:
    digest = hashlib.sha384((PROJECT_ROOT / "static" / "vendor" / HTMX_FILE).read_bytes()).digest()
    assert "sha384-" + base64.b64encode(digest).decode() == HTMX_SRI


def test_htmx_is_served_from_the_host_only(client) -> None:  # type: ignore[no-untyped-def]
    """A deferred script of its own, so htmx initialises on DOMContentLoaded (the CDN copy's fallback script added it
    after that, too late for htmx 2), and no CDN host in the CSP (all of unpkg.com could run scripts here)."""
    response = client.get("/")
    html = response.text
    assert f'<script src="/static/vendor/{HTMX_FILE}" integrity="{HTMX_SRI}" defer></script>' in html
    assert "unpkg.com" not in html and "unpkg.com" not in response.headers["content-security-policy"]
    assert "htmx-fallback" not in html and client.get("/static/js/htmx-fallback.js").status_code == 404
    assert client.get(f"/static/vendor/{HTMX_FILE}").status_code == 200


def test_the_old_cdn_setting_changes_nothing(seeded_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GPUMATCH_ASSET_SOURCE", "cdn")  # set by older deployments: ignored, not an error
    with TestClient(create_app(settings_for(seeded_url))) as cdn_client:
        response = cdn_client.get("/")
    assert "unpkg.com" not in response.text and "unpkg.com" not in response.headers["content-security-policy"]


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


def test_no_page_loads_plotly_up_front_charts_js_knows_where_it_is(client) -> None:  # type: ignore[no-untyped-def]
    """plotly.js (1.5 MB gzipped) was a <script> on every form, chart or not; charts.js fetches it where a chart is."""
    for path in ("/", "/compare", "/plan", "/?phase=inference&model=llama-3.1-8b", "/gpus/H100-SXM"):
        html = client.get(path).text
        assert '<script src="/vendor/plotly' not in html, path
        plotly = f"/vendor/plotly-{PLOTLY_VERSION}/plotly.min.js"
        assert f'<script src="/static/js/charts.js" data-plotly="{plotly}" defer>' in html
    charts_js = (PROJECT_ROOT / "static" / "js" / "charts.js").read_text(encoding="utf-8")
    assert 'getAttribute("data-plotly")' in charts_js and "htmx:afterSettle" in charts_js
