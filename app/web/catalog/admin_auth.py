"""Bearer-token guard of the admin API: 404 when no token is configured (disabled, not open), 401 otherwise."""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request

from app.web.deps import get_app_settings

ADMIN_ACTOR = "api:admin"  # one shared token, so one label in price_history


def require_admin(request: Request) -> str:
    """The actor name for price_history, or an HTTPException."""
    expected = get_app_settings(request).admin_token
    if not expected:
        raise HTTPException(status_code=404, detail="Not Found")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    # compare_digest on bytes: constant time, and no error on non-ASCII input.
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="unauthorized", headers={"WWW-Authenticate": "Bearer"})
    return ADMIN_ACTOR
