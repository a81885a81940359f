"""Dependencies shared by routers: the session, the settings and the catalog snapshot."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError

from app.config import Settings
from app.db import SessionDep
from app.scoring.specs import CatalogSnapshot
from app.service.workload_query import query_shape_errors


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_snapshot(request: Request) -> CatalogSnapshot:
    return request.app.state.snapshots.get()


def single_valued_query(request: Request) -> None:
    """A query key given twice is a 422 naming it, as on the question pages (workload_query.query_shape_errors),
    not a silent pick of its last value; for routers whose query parameters FastAPI reads (one value each)."""
    errors = query_shape_errors(list(request.query_params.multi_items()))
    if errors:
        raise RequestValidationError(
            [{"type": "value_error", "loc": ("query", k), "msg": m, "input": None} for k, m in errors.items()]
        )


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
SnapshotDep = Annotated[CatalogSnapshot, Depends(get_snapshot)]
ONE_VALUE_PER_KEY = Depends(single_valued_query)

__all__ = ["ONE_VALUE_PER_KEY", "SessionDep", "SettingsDep", "SnapshotDep", "not_found"]


def not_found(kind: str, identifier: str) -> HTTPException:
    return HTTPException(status_code=404, detail=f"no {kind} with id {identifier!r}")
