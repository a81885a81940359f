"""Pinned front-end assets, served from this host: versions in file names, SRI hashes checked by a test.

htmx once came from unpkg with a local fallback script; the fallback ran after DOMContentLoaded, too late for htmx 2
to initialise when the CDN failed slowly, and `script-src https://unpkg.com` let any package on unpkg run here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import plotly

HTMX_VERSION = "2.0.11"
HTMX_FILE = f"htmx-{HTMX_VERSION}.min.js"
# sha384 of the npm tarball's dist/htmx.min.js, identical to the file in static/vendor.
HTMX_SRI = "sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg"

PLOTLY_JS_DIR = Path(plotly.__file__).parent / "package_data"
PLOTLY_VERSION = plotly.__version__


@dataclass(frozen=True)
class Assets:
    """What base.html needs to load scripts."""

    htmx: str = f"/static/vendor/{HTMX_FILE}"
    htmx_sri: str = HTMX_SRI
    plotly: str = f"/vendor/plotly-{PLOTLY_VERSION}/plotly.min.js"


def content_security_policy() -> str:
    # plotly.js injects <style> elements at run time, hence 'unsafe-inline' for styles only.
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
