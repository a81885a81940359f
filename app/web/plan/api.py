"""JSON API of the economics: price ranked options for a traffic, against serverless; train-then-serve."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.serving.traffic.week import TRAFFIC_DESCRIPTION, Traffic
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service import plan
from app.service.query.plan import MAX_MONTHS, canonical_plan_query
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.errors.handlers import unprocessable
from app.web.json_api.fast_json import OrjsonResponse, PydanticJsonResponse
from app.web.json_api.json_body import StrictJsonRoute
from app.web.json_api.query_numbers import AS_TYPED, BLANK_IS_UNSET
from app.web.plan.schemas import LifecycleResponse, ServingResponse

router = APIRouter(
    prefix="/api/v1/plan",
    tags=["plan: dedicated vs serverless, train then serve"],
    dependencies=[ONE_VALUE_PER_KEY],
    route_class=StrictJsonRoute,
)

LimitQuery = Annotated[
    int | None, Query(ge=1, le=1000, description="return only the best N dedicated options"), AS_TYPED
]  # AS_TYPED after Query, or the schema's bounds read ge/le (not JSON Schema) beside an integer without them
TermsQuery = Annotated[bool, Query(description="include each option's explanation terms"), BLANK_IS_UNSET]


class ServingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workload: InferenceWorkload = Field(description="the rank API's inference workload")
    traffic: Traffic = Field(default_factory=Traffic, description=TRAFFIC_DESCRIPTION)


class LifecycleRequest(NumbersNotBooleans):
    model_config = ConfigDict(extra="forbid")

    training: TrainingWorkload = Field(description="the rank API's training workload")
    inference: InferenceWorkload = Field(description="the rank API's inference workload")
    traffic: Traffic = Field(default_factory=Traffic, description=TRAFFIC_DESCRIPTION)
    months: int = Field(12, ge=1, le=MAX_MONTHS, description="months of serving after the training run")


def _share_url(
    inference: InferenceWorkload, traffic: Traffic, training: TrainingWorkload | None = None, months: int | None = None
) -> str:
    return "/plan?" + canonical_plan_query(inference, traffic, training, months)


# The handler returns an OrjsonResponse of plain values: response_model documents the schema only (as the rank API).
@router.post(
    "/serving",
    summary="Dedicated GPUs against per-token APIs at a traffic: monthly cost and break-even",
    response_model=ServingResponse,
    response_class=OrjsonResponse,
)
def plan_serving(
    request: ServingRequest, snapshot: SnapshotDep, limit: LimitQuery = None, terms: TermsQuery = True
) -> OrjsonResponse:
    """Every feasible offer priced for the traffic: replicas at peak (`replicas_at_peak`, copies of the layout) on
    rented instances (`instances_at_peak`, what bills) and monthly $ always-on, autoscaled and scale-to-zero;
    serverless prices for the model (or a comparable listed one), one entry per provider and model unless their terms
    differ, each with its `flags` (unverified, deprecated, disputed, availability_unconfirmed,
    weak_source, stale) and its date as the reference gives it (`as_of_label`: ≤ marks an on-or-before date);
    `cheapest_serverless`, the current, verified price the break-even traffic is found against (stale ones too with
    `include_stale`; never an unverified or deprecated one; a disputed one at the higher of its two figures, its own
    in `listed_*` and the other source's in `disputed_*`). The notes name any doubt on the price compared with."""
    try:
        return OrjsonResponse(
            plan.serving_payload(
                request.workload, request.traffic, snapshot, _share_url(request.workload, request.traffic), limit, terms
            )
        )
    except plan.PlanFieldError as exc:
        raise unprocessable(exc) from None


@router.post(
    "/lifecycle",
    summary="Train, then serve: every training option paired with every serving option",
    response_model=LifecycleResponse,
    response_class=PydanticJsonResponse,
)
def plan_lifecycle(request: LifecycleRequest, snapshot: SnapshotDep) -> PydanticJsonResponse:
    """A training run followed by N months of serving: the cheapest combinations, each phase's share. Each label
    says its price's terms with the caveats a buyer must see (`on demand; provider's article, not its price list`),
    also listed in `training_price_caveats` and `serving_price_caveats` (a serverless price's doubts)."""
    share = _share_url(request.inference, request.traffic, request.training, request.months)
    try:
        return PydanticJsonResponse(
            plan.lifecycle_payload(
                request.training, request.inference, request.traffic, request.months, snapshot, share
            )
        )
    except plan.PlanFieldError as exc:
        raise unprocessable(exc) from None
