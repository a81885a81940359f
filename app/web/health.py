"""Liveness and readiness: answers only when the database does."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import func
from sqlmodel import select

from app.models import Gpu, Offer
from app.web.deps import SessionDep
from app.web.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
def healthz(session: SessionDep) -> Health:
    gpus = session.exec(select(func.count()).select_from(Gpu)).one()
    offers = session.exec(select(func.count()).select_from(Offer)).one()
    newest = session.exec(select(func.max(Offer.as_of))).one()
    return Health(status="ok", database="ok", gpus=gpus, offers=offers, newest_price_as_of=newest)
