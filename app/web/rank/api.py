"""JSON API of the engine: estimate one configuration, or rank every offer, for either phase."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import Field, ValidationInfo, field_validator

from app.scoring.workload import InferenceWorkload, ShortId, TrainingWorkload
from app.service import estimate as estimates
from app.service.query.canonical import canonical_query
from app.service.query.catalog_spelling import catalog_spelled
from app.service.query.view import ResultsView, with_view
from app.service.rank import rank_sort, ranking
from app.service.rank.model_spec import UnknownId
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.errors.error_shape import field_entries
from app.web.errors.handlers import unprocessable
from app.web.json_api.fast_json import OrjsonResponse, PydanticJsonResponse
from app.web.json_api.json_body import StrictJsonRoute
from app.web.json_api.query_numbers import AS_TYPED, BLANK_IS_UNSET
from app.web.rank.schemas import InferenceEstimateOut, InferenceRankResponse, TrainingEstimateOut, TrainingRankResponse

router = APIRouter(
    prefix="/api/v1", tags=["estimate and rank"], dependencies=[ONE_VALUE_PER_KEY], route_class=StrictJsonRoute
)

# AS_TYPED after Query: before it, the bounds left the schema's integer as unknown keys ge/le, not minimum/maximum
LimitQuery = Annotated[int | None, Query(ge=1, le=1000, description="return only the best N options"), AS_TYPED]
TermsQuery = Annotated[bool, Query(description="include each option's explanation terms"), BLANK_IS_UNSET]
ChartsQuery = Annotated[
    bool,
    Query(
        description="include `charts`: the results page's charts in numbers, as /rank.json gives them (its leading "
        "configurations, whatever the limit or sort); off by default, as they add time to every call (each leading "
        "configuration's operating curve is solved again)"
    ),
    BLANK_IS_UNSET,
]
SortQuery = Annotated[
    str | None,
    Query(
        max_length=20,
        description="sort the feasible options by a column of the ranked table (-column for largest first), as a "
        "results page's `sort`; each option then carries its `rank`. Default: ranked order",
    ),
    BLANK_IS_UNSET,
]


OFFER_ID_HELP = (
    "judge the configuration on this offer's machine (GPUs per node, link, fabric, node limit);"
    " unset = one machine of the GPU's kind"
)


class InferenceEstimateRequest(InferenceWorkload):
    gpu: ShortId = Field(description="catalog GPU id, e.g. H100-SXM")
    gpu_count: int = Field(1, ge=1, le=72, description="GPUs of the configuration: one replica")
    # pipeline_parallel before tensor_parallel: the tensor_parallel check reads both counts it must fit.
    pipeline_parallel: int = Field(1, ge=1, le=72, description="stages; across nodes only over a fabric")
    tensor_parallel: int | None = Field(None, ge=1, le=72, description="default: gpu_count / pipeline_parallel")
    offer_id: int | None = Field(None, ge=1, description=OFFER_ID_HELP)

    @field_validator("pipeline_parallel")
    @classmethod
    def _stages_fit(cls, value: int, info: ValidationInfo) -> int:
        gpu_count = info.data.get("gpu_count")
        if gpu_count is not None and value > gpu_count:
            raise ValueError(f"pipeline_parallel {value} cannot exceed gpu_count {gpu_count}")
        return value

    @field_validator("tensor_parallel")
    @classmethod
    def _layout_uses_every_gpu(cls, value: int | None, info: ValidationInfo) -> int | None:
        # 1 GPU at TP 8 would report 8-GPU throughput: the layout must be exactly the GPUs asked for.
        gpu_count, pp = info.data.get("gpu_count"), info.data.get("pipeline_parallel")
        if value is not None and gpu_count is not None and pp is not None and value * pp != gpu_count:
            raise ValueError(f"tensor_parallel {value} × pipeline_parallel {pp} must equal gpu_count {gpu_count}")
        return value


class TrainingEstimateRequest(TrainingWorkload):
    gpu: ShortId = Field(description="catalog GPU id, e.g. H100-SXM")
    gpu_count: int = Field(8, ge=1, le=65_536, description="GPUs the run uses")
    offer_id: int | None = Field(None, ge=1, description=OFFER_ID_HELP)


def _rank(
    phase: str,
    workload: InferenceWorkload | TrainingWorkload,
    snapshot: Any,
    limit: int | None,
    terms: bool,
    sort: str | None = None,
    charts: bool = False,
) -> dict[str, Any]:
    if problem := rank_sort.sort_error(phase, sort):
        raise HTTPException(status_code=422, detail=field_entries({"sort": problem}))
    workload = catalog_spelled(workload, snapshot)  # answered under the catalog's ids: `h100-sxm` is H100-SXM
    question = canonical_query(phase, workload)  # type: ignore[arg-type]
    share_url = "/?" + with_view(question, ResultsView(sort=sort))
    try:
        return ranking.rank_payload(phase, workload, snapshot, share_url, limit, terms, sort, charts)
    except UnknownId as exc:
        raise unprocessable(exc) from None


# The handlers return a response of plain values: response_model documents the schema only.
@router.post(
    "/rank/inference",
    summary="Rank GPU offers for an inference workload, cheapest per million output tokens first",
    response_model=InferenceRankResponse,
    response_class=OrjsonResponse,
)
def rank_inference(
    workload: InferenceWorkload,
    snapshot: SnapshotDep,
    limit: LimitQuery = None,
    terms: TermsQuery = True,
    sort: SortQuery = None,
    charts: ChartsQuery = False,
) -> OrjsonResponse:
    """Every matching offer ranked by $ per million output tokens at the latency targets."""
    return OrjsonResponse(_rank("inference", workload, snapshot, limit, terms, sort, charts))


@router.post(
    "/rank/training",
    summary="Rank GPU offers for a training run, by what the run bills",
    response_model=TrainingRankResponse,
    response_class=OrjsonResponse,
)
def rank_training(
    workload: TrainingWorkload,
    snapshot: SnapshotDep,
    limit: LimitQuery = None,
    terms: TermsQuery = True,
    sort: SortQuery = None,
    charts: ChartsQuery = False,
) -> OrjsonResponse:
    """Every matching offer ranked by what the run bills (`total_usd`: minimum terms and spot's lost work included),
    cheapest first among runs within the deadline and budget, with $ per optimizer step and the run time."""
    return OrjsonResponse(_rank("training", workload, snapshot, limit, terms, sort, charts))


@router.post(
    "/estimate/inference",
    summary="Estimate one inference configuration (GPU, count, layout) without prices",
    response_model=InferenceEstimateOut,
    response_class=PydanticJsonResponse,
)
def estimate_inference(request: InferenceEstimateRequest, snapshot: SnapshotDep) -> PydanticJsonResponse:
    """One configuration (GPU × count × tensor × pipeline parallel) on a machine, with every term; an infeasible
    one has null measures."""
    r = request
    try:
        return PydanticJsonResponse(
            estimates.inference_estimate(
                r, snapshot, r.gpu, r.gpu_count, r.tensor_parallel, r.pipeline_parallel, r.offer_id
            )
        )
    except estimates.BadEstimateRequest as exc:
        raise unprocessable(exc) from None


@router.post(
    "/estimate/training",
    summary="Estimate one training configuration (GPU, count, layout) without prices",
    response_model=TrainingEstimateOut,
    response_class=PydanticJsonResponse,
)
def estimate_training(request: TrainingEstimateRequest, snapshot: SnapshotDep) -> PydanticJsonResponse:
    """One configuration (GPU × count) on a machine, with the chosen layout, memory per GPU and every term; an
    infeasible one has null measures."""
    try:
        return PydanticJsonResponse(
            estimates.training_estimate(request, snapshot, request.gpu, request.gpu_count, request.offer_id)
        )
    except estimates.BadEstimateRequest as exc:
        raise unprocessable(exc) from None
