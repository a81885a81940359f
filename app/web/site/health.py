"""Liveness (/healthz: from memory, in the event loop) and readiness (/readyz: asks the database).

Both report the catalog snapshot the rankings read, so they give the same counts. /healthz is `async def` and
never waits for a threadpool slot or a database connection: under a burst of heavy rankings it still answers in
milliseconds, and an orchestrator does not restart a process that is merely busy. Where the snapshot's version was
last checked longer ago than the recheck interval, it starts a recheck on a thread of its own and waits for it at
most HEALTH_RECHECK_WAIT_S, so an import by another process (the CLI) shows at once, not only after a ranking.
/readyz rechecks the version against the database first, on the threadpool, for a load balancer deciding where
to send traffic.
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError

from app.scoring.specs import CatalogSnapshot
from app.service.catalog.schemas import Health
from app.web.deps import SessionDep
from app.web.errors.error_shape import error_body

router = APIRouter(tags=["health"])

# The longest /healthz waits for a due recheck before answering from memory: well inside a liveness probe's usual
# 1 s timeout (Kubernetes' default), and far above a version query's few milliseconds.
HEALTH_RECHECK_WAIT_S = 0.25
NOT_CHECKED = "not checked (see /readyz)"


def catalog_health(snapshot: CatalogSnapshot, database: str) -> Health:
    newest = max((o.as_of for o in snapshot.offers if o.as_of and not o.superseded), default=None)
    return Health(
        status="ok",
        database=database,
        gpus=len(snapshot.gpus),
        offers=snapshot.offers_in_catalog,
        offers_dated=snapshot.offers_dated,
        earlier_prices=snapshot.earlier_prices_in_catalog,
        newest_price_as_of=newest,
    )


@router.get("/healthz", summary="Liveness: the process answers (and what catalog it serves)", response_model=Health)
async def healthz(request: Request) -> Health:
    snapshots = request.app.state.snapshots
    pending = snapshots.recheck_in_background()
    if pending is not None:
        with contextlib.suppress(Exception):  # slow or failing: alive all the same, with the counts in memory
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(pending)), HEALTH_RECHECK_WAIT_S)
    snapshot = snapshots.peek()
    if snapshot is None:  # alive, catalog not read yet (the first ranking or /readyz loads it)
        return Health(status="ok", database=NOT_CHECKED, gpus=0, offers=0, offers_dated=0, earlier_prices=0)
    return catalog_health(snapshot, NOT_CHECKED)


NOT_READY = {
    503: {
        "description": "the database did not answer: not ready (one {field: request, message} entry)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
}


@router.get(
    "/readyz",
    summary="Readiness: the database answers, with the catalog's counts (503 when it does not)",
    response_model=Health,
    responses=NOT_READY,  # type: ignore[arg-type]
)
def readyz(session: SessionDep, request: Request) -> Health | Response:
    try:
        return catalog_health(request.app.state.snapshots.recheck(session), "ok")
    except SQLAlchemyError as exc:  # JSON whatever the Accept, as the 200 is; the class only: no URL, no password
        message = f"not ready: the database did not answer ({type(exc).__name__})"
        return JSONResponse(error_body(503, message), status_code=503)
