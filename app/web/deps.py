"""Dependencies shared by routers: the session, the settings and the catalog snapshot."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.config import Settings
from app.db import SessionDep
from app.scoring.specs import CatalogSnapshot
from app.service.query.fields import unknown_key_errors
from app.service.query.values import query_shape_errors
from app.web.errors.error_shape import field_entries


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_snapshot(request: Request) -> CatalogSnapshot:
    """The catalog snapshot: in the event loop while no recheck is due (a sync dependency costs a threadpool hop on
    every request), else on a worker thread, since a recheck reads the database."""
    snapshots = request.app.state.snapshots
    snapshot = snapshots.current()
    return snapshot if snapshot is not None else await run_in_threadpool(snapshots.get)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a query parameter stands for (`Annotated[GpuListQuery, Query()]`), else None."""
    for candidate in (annotation, *getattr(annotation, "__args__", ())):  # `Model | None` too
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def accepted_query_keys(dependant: Dependant) -> frozenset[str]:
    """Every query key a route reads: its own parameters, its dependencies', a query model's fields."""
    names: set[str] = set()
    for field in dependant.query_params:
        model = _model_of(field.field_info.annotation)
        if model is None:
            names.add(field.alias)
        else:
            names.update(info.alias or name for name, info in model.model_fields.items())
    for sub in dependant.dependencies:
        names |= accepted_query_keys(sub)
    return frozenset(names)


async def single_valued_query(request: Request) -> None:
    """A query key given twice is a 422 naming it, as on the question pages (query.values.query_shape_errors),
    not a silent pick of its last value; a key the route does not read is a 422 naming it and the nearest key it
    does read, not a filter silently ignored. For routers whose query parameters FastAPI reads (one value each)."""
    items = list(request.query_params.multi_items())
    errors = query_shape_errors(items)
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is not None:  # a walk over a few parameters: cheaper than any cache keyed on the route
        where = f"{request.method} {getattr(route, 'path', request.url.path)}"
        errors.update(unknown_key_errors((k for k, _ in items), accepted_query_keys(dependant), where))
    if errors:
        raise RequestValidationError(
            [{"type": "value_error", "loc": ("query", k), "msg": m, "input": None} for k, m in errors.items()]
        )


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
SnapshotDep = Annotated[CatalogSnapshot, Depends(get_snapshot)]
ONE_VALUE_PER_KEY = Depends(single_valued_query)

__all__ = ["ONE_VALUE_PER_KEY", "SessionDep", "SettingsDep", "SnapshotDep", "not_found"]


def not_found(kind: str, identifier: str, field: str = "path", hint: str = "") -> HTTPException:
    """A 404 naming the id, at the path parameter that holds it (`gpu_id`), and the ids it may mean (`hint`)."""
    message = f"no {kind} with id {identifier!r}" + (f"; {hint.strip()}" if hint else "")
    return HTTPException(status_code=404, detail=field_entries({field: message}))
