"""JSON API of the precision comparison: one workload at each precision (BF16, FP8 with a BF16 or FP8 KV cache, FP4,
INT4 and INT8 weight-only, INT8 W8A8, BF16 with an FP8 KV cache)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.scoring.workload import InferenceWorkload
from app.service import precision
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.errors.handlers import unprocessable
from app.web.json_api.json_body import StrictJsonRoute
from app.web.precision.schemas import PrecisionResponse

router = APIRouter(
    prefix="/api/v1", tags=["precision side by side"], dependencies=[ONE_VALUE_PER_KEY], route_class=StrictJsonRoute
)


@router.post(
    "/precision",
    summary="One inference workload at each precision: cheapest option, latency, quality",
    response_model=PrecisionResponse,
)
def compare_precision(workload: InferenceWorkload, snapshot: SnapshotDep) -> dict[str, Any]:
    """The cheapest feasible option at each precision (weight_dtype and kv_dtype in the body are ignored:
    every row sets its own), with memory, latency and the published quality delta for the model."""
    share = "/precision?" + precision.canonical_precision_query(workload)
    try:
        return precision.precision_payload(workload, snapshot, share)
    except precision.PlanFieldError as exc:
        raise unprocessable(exc) from None
