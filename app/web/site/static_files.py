"""Static files with long cache lifetimes for versioned assets."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.web.site.assets import PLOTLY_JS_DIR, PLOTLY_VERSION

YEAR_S = 365 * 24 * 3600


class CachedStaticFiles(StaticFiles):
    """Files under vendor/ carry their version in the name, so they may be cached for a year."""

    def file_response(self, full_path, stat_result, scope: Scope, status_code: int = 200):  # type: ignore[no-untyped-def]
        response = super().file_response(full_path, stat_result, scope, status_code)
        lifetime = YEAR_S if "/vendor/" in str(full_path) else 3600
        response.headers["Cache-Control"] = f"public, max-age={lifetime}"
        return response


router = APIRouter(include_in_schema=False)


@router.get(f"/vendor/plotly-{PLOTLY_VERSION}/plotly.min.js")
def plotly_js() -> FileResponse:
    """plotly.js straight from the installed plotly wheel (never committed)."""
    return FileResponse(
        PLOTLY_JS_DIR / "plotly.min.js",
        media_type="text/javascript",
        headers={"Cache-Control": f"public, max-age={YEAR_S}, immutable"},
    )
