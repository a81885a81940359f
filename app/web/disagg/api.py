"""JSON API of disaggregated prefill/decode serving against aggregated serving, at a traffic."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.service import disagg
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.disagg.schemas import DisaggRequest, DisaggResponse
from app.web.errors.handlers import unprocessable
from app.web.json_api.json_body import StrictJsonRoute

router = APIRouter(
    prefix="/api/v1",
    tags=["disaggregated prefill/decode"],
    dependencies=[ONE_VALUE_PER_KEY],
    route_class=StrictJsonRoute,
)


@router.post(
    "/disagg",
    summary="Aggregated serving against disaggregated prefill and decode pools",
    response_model=DisaggResponse,
)
def disaggregated_serving(request: DisaggRequest, snapshot: SnapshotDep) -> dict[str, Any]:
    """Aggregated serving (prefill inside decode steps) against prefill and decode pools with the KV cache moved
    between them: the P:D ratio that meets TTFT and TPOT at the traffic, monthly cost per pool, and which pays."""
    share = "/disagg?" + disagg.canonical_disagg_query(request.workload, request.traffic)
    try:
        return disagg.disagg_payload(request.workload, request.traffic, snapshot, share)
    except disagg.PlanFieldError as exc:
        raise unprocessable(exc) from None
