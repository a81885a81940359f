"""Admin API under /api/v1/admin: bulk price updates. Off (404) unless GPUMATCH_ADMIN_TOKEN is set."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, HTTPException, Request
from pydantic import BaseModel, ConfigDict

from app.catalog import price_import
from app.catalog.seed import RowError
from app.models import OfferBase
from app.web.catalog.admin_auth import require_admin

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])

ERROR_RESPONSES: dict[int | str, dict[str, str]] = {
    401: {"description": "missing or wrong bearer token"},
    404: {"description": "admin API disabled (no GPUMATCH_ADMIN_TOKEN)"},
}


class OfferImport(OfferBase):
    """One offer, the columns of seed_data/offers.csv."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]


class ImportResult(BaseModel):
    inserted: int
    updated: int
    unchanged: int
    prices_changed: int


OfferBatch = Annotated[list[OfferImport], Body(min_length=1, max_length=price_import.MAX_BATCH_OFFERS)]


@router.post("/offers", response_model=ImportResult, responses=ERROR_RESPONSES)
def import_offers(offers: OfferBatch, request: Request, actor: Annotated[str, Depends(require_admin)]) -> ImportResult:
    """Insert new offers and reprice existing ones (natural key: provider, GPU, count, price type, instance,
    region) in one transaction; every price change is appended to the offer's history."""
    items = [offer.model_dump() for offer in offers]
    try:
        report = price_import.import_items(request.app.state.engine, items, actor)
    except RowError as error:
        detail = [{"field": f"{error.line}.{error.field}", "message": error.message}]
        raise HTTPException(status_code=422, detail=detail) from None
    request.app.state.snapshots.invalidate()  # rankings use the new prices on the next request
    return ImportResult(**price_import.summary(report))
