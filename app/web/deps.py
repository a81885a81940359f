"""Dependencies shared by routers: the session, the settings and the catalog snapshot."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from app.config import Settings
from app.db import SessionDep
from app.scoring.specs import CatalogSnapshot


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_snapshot(request: Request) -> CatalogSnapshot:
    return request.app.state.snapshots.get()


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
SnapshotDep = Annotated[CatalogSnapshot, Depends(get_snapshot)]

__all__ = ["SessionDep", "SettingsDep", "SnapshotDep", "not_found"]


def not_found(kind: str, identifier: str) -> HTTPException:
    return HTTPException(status_code=404, detail=f"no {kind} with id {identifier!r}")
