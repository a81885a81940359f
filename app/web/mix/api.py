"""JSON API of the GPU mix: the cheapest mix of offers meeting the latency limits for every length bucket."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.scoring.serving.mix.question import MixQuestion
from app.service import mix
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.errors.handlers import unprocessable
from app.web.json_api.json_body import StrictJsonRoute
from app.web.mix.schemas import MixResponse

router = APIRouter(prefix="/api/v1", tags=["GPU mix"], dependencies=[ONE_VALUE_PER_KEY], route_class=StrictJsonRoute)


@router.post(
    "/mix", summary="The cheapest mix of GPU offers for a request-length distribution", response_model=MixResponse
)
def cheapest_mix(question: MixQuestion, snapshot: SnapshotDep) -> dict[str, Any]:
    """Integer replicas of several offers, each bucket's load split among them (Mélange's program, solved by
    HiGHS), against the cheapest fleet of one GPU type. `mix` is a list of buckets or its text form
    `chat:0.6,rag:0.3,1000x200:0.1`; shares are weights, divided by their total (a note says so when it is not 1).
    The model is a catalog id, a `custom_model` or a pasted config.json (`hf_config`), as the rank API's."""
    share = "/mix?" + mix.canonical_mix_query(question)
    try:
        return mix.mix_payload(question, snapshot, share)
    except mix.PlanFieldError as exc:
        raise unprocessable(exc) from None
