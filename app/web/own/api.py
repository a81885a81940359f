"""JSON API of owning hardware against renting it (tco.csv defaults, every input overridable)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.scoring.serving.ownership.question import OwnershipQuestion
from app.service import ownership
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.errors.handlers import unprocessable
from app.web.json_api.json_body import StrictJsonRoute
from app.web.own.schemas import OwnResponse

router = APIRouter(
    prefix="/api/v1", tags=["own hardware vs renting"], dependencies=[ONE_VALUE_PER_KEY], route_class=StrictJsonRoute
)


@router.post(
    "/own", summary="Own GPU servers or rent them: monthly costs and break-even utilisation", response_model=OwnResponse
)
def own_vs_rent(question: OwnershipQuestion, snapshot: SnapshotDep) -> dict[str, Any]:
    """Monthly cost of owning N GPUs (depreciation, energy, colocation) against renting the same N on demand
    at the utilisation; the break-even utilisation and months. Empty inputs take sourced defaults, each named."""
    question = ownership.with_catalog_gpu(question, snapshot)
    share = "/own?" + ownership.canonical_own_query(question)
    try:
        return ownership.own_payload(question, snapshot, share)
    except ownership.MissingInput as exc:
        raise unprocessable(exc) from None
