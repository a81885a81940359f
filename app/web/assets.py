"""Pinned front-end assets: versions in file names, SRI hashes checked by a test."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import plotly

HTMX_VERSION = "2.0.11"
HTMX_FILE = f"htmx-{HTMX_VERSION}.min.js"
# sha384 of the npm tarball's dist/htmx.min.js, identical to the file in static/vendor.
HTMX_SRI = "sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg"
HTMX_CDN_HOST = "https://unpkg.com"
HTMX_CDN_URL = f"{HTMX_CDN_HOST}/htmx.org@{HTMX_VERSION}/dist/htmx.min.js"

PLOTLY_JS_DIR = Path(plotly.__file__).parent / "package_data"
PLOTLY_VERSION = plotly.__version__


@dataclass(frozen=True)
class Assets:
    """What base.html needs to load scripts, for one asset-source setting."""

    use_cdn: bool
    htmx_local: str = f"/static/vendor/{HTMX_FILE}"
    htmx_cdn: str = HTMX_CDN_URL
    htmx_sri: str = HTMX_SRI
    plotly: str = f"/vendor/plotly-{PLOTLY_VERSION}/plotly.min.js"


def content_security_policy(use_cdn: bool) -> str:
    script_src = "'self'" + (f" {HTMX_CDN_HOST}" if use_cdn else "")
    # plotly.js injects <style> elements at run time, hence 'unsafe-inline' for styles only.
    return (
        f"default-src 'self'; script-src {script_src}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
