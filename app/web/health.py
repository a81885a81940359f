"""Liveness (/healthz: from memory, in the event loop) and readiness (/readyz: asks the database).

/healthz is `async def` and reads only the catalog snapshot already in memory, so it never waits for
a threadpool slot or a database connection: under a burst of heavy rankings it still answers in
milliseconds, and an orchestrator does not restart a process that is merely busy. /readyz counts
rows in the database on the threadpool, for a load balancer deciding where to send traffic.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import func
from sqlmodel import col, select

from app.models import Gpu, Offer
from app.web.deps import SessionDep
from app.web.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
async def healthz(request: Request) -> Health:
    snapshot = request.app.state.snapshots.peek()
    if snapshot is None:  # alive, catalog not read yet (the first ranking or /readyz loads it)
        return Health(status="ok", database="not checked (see /readyz)", gpus=0, offers=0, offers_dated=0)
    newest = max((o.as_of for o in snapshot.offers if o.as_of), default=None)
    return Health(
        status="ok",
        database="not checked (see /readyz)",
        gpus=len(snapshot.gpus),
        offers=snapshot.offers_in_catalog,
        offers_dated=snapshot.offers_dated,
        newest_price_as_of=newest,
    )


@router.get("/readyz", response_model=Health)
def readyz(session: SessionDep, request: Request) -> Health:
    gpus = session.exec(select(func.count()).select_from(Gpu)).one()
    offers = session.exec(select(func.count()).select_from(Offer)).one()
    dated = session.exec(select(func.count()).select_from(Offer).where(col(Offer.as_of).is_not(None))).one()
    newest = session.exec(select(func.max(Offer.as_of))).one()
    request.app.state.snapshots.get()  # warms the in-memory catalog /healthz reports
    return Health(status="ok", database="ok", gpus=gpus, offers=offers, offers_dated=dated, newest_price_as_of=newest)
