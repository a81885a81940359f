"""JSON API of the catalog under /api/v1."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query

from app.catalog import queries
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import PriceType as PriceTypeParam
from app.service.catalog import views
from app.service.catalog.list_checks import family_errors, id_errors, provider_errors
from app.service.catalog.list_filters import ID_PATTERN, GpuListQuery, GpuOffersQuery, ModelListQuery, ProviderListQuery
from app.service.catalog.provider_views import provider_detail, provider_list
from app.service.catalog.schemas import (
    GpuDetail,
    GpuPublic,
    ModelDetail,
    ModelPublic,
    OfferPublic,
    PriceHistoryPublic,
    ProviderDetail,
    ProviderPublic,
    TokenPricePublic,
)
from app.service.named_ids import path_id_hint
from app.service.superseded_offer import superseded_history_note
from app.web.catalog.http_cache import CatalogJsonRoute
from app.web.catalog.paging import PAGED_RESPONSES, PagerDep
from app.web.deps import ONE_VALUE_PER_KEY, SessionDep, SettingsDep, SnapshotDep, not_found
from app.web.errors.error_shape import field_entries
from app.web.json_api.query_numbers import BLANK_IS_UNSET

router = APIRouter(prefix="/api/v1", tags=["catalog"], dependencies=[ONE_VALUE_PER_KEY], route_class=CatalogJsonRoute)

OFFER_ID = "the offer's catalog id: `id` in /api/v1/offers, `offer_id` of a ranked option"
# SQL INTEGER range: larger ids cannot exist
OfferIdPath = Annotated[int, Path(ge=1, le=2**31 - 1, description=OFFER_ID)]
# An id in another case is taken, as the filters take it, and the answer's `id` is the catalog's: no redirect, which
# would cost an API client a round trip (the pages, whose URLs are shared, move to the catalog's id with a 301).
GpuIdPath = Annotated[
    str,
    Path(
        max_length=64, description="the GPU's catalog id, e.g. H100-SXM, in any case: the answer's id is the catalog's"
    ),
]
ProviderIdPath = Annotated[
    str,
    Path(
        max_length=64,
        description="the provider's catalog id, e.g. lambda, in any case: the answer's id is the catalog's",
    ),
]
ModelIdPath = Annotated[
    str,
    Path(
        max_length=64,
        description="the model's catalog id, e.g. llama-3.1-70b, in any case: the answer's id is the catalog's",
    ),
]


def _id_query(description: str) -> Any:
    return Query(max_length=64, pattern=ID_PATTERN, description=description)


def known_filter_ids(snapshot: CatalogSnapshot, **given: tuple[str, str | None]) -> None:
    """A filter naming an id the catalog lacks (`?gpu=H100`, `?provider=amazon`) is a 422 naming the parameter, the
    id and the nearest known ids, not an empty list that reads as "no offers"; `given`: parameter -> (kind, id)."""
    errors: dict[str, str] = {}
    for name, (kind, value) in given.items():
        errors.update(id_errors(snapshot, name, kind, value))
    refuse(errors)


@router.get(
    "/gpus",
    summary="List GPUs: specs, dense peaks and the lowest on-demand price",
    response_model=list[GpuPublic],
    responses=PAGED_RESPONSES,
)
def list_gpus(
    session: SessionDep,
    settings: SettingsDep,
    snapshot: SnapshotDep,
    query: Annotated[GpuListQuery, Query()],
    pager: PagerDep,
) -> list[GpuPublic]:
    """The GPUs filtered and sorted as /gpus lists them (vendor, min_memory_gb, sort), a page of them with limit."""
    refuse(id_errors(snapshot, "vendor", "vendors", query.vendor))
    return pager.take(views.gpu_list(session, query, settings.stale_after_days))


@router.get("/gpus/{gpu_id}", summary="One GPU: specs, sources and its offers", response_model=GpuDetail)
def get_gpu(
    gpu_id: GpuIdPath,
    session: SessionDep,
    settings: SettingsDep,
    snapshot: SnapshotDep,
    query: Annotated[GpuOffersQuery, Query()],
) -> GpuDetail:
    """The GPU's offers filtered and sorted as its page's table is (provider, price_type, region, min_gpus, sort);
    the "from" prices stay those of every offer."""
    gpu = queries.get_gpu(session, gpu_id)
    if gpu is None:
        raise not_found("GPU", gpu_id, "gpu_id", path_id_hint(snapshot, "gpus", gpu_id))
    refuse(provider_errors(snapshot, query.provider))
    return views.gpu_detail(session, gpu, settings.stale_after_days, query)


def refuse(errors: dict[str, str]) -> None:
    if errors:
        raise HTTPException(status_code=422, detail=field_entries(errors))


@router.get(
    "/offers",
    summary="List rentable offers: provider, GPU, count, price terms and dated price",
    response_model=list[OfferPublic],
    responses=PAGED_RESPONSES,
)
def list_offers(
    pager: PagerDep,
    session: SessionDep,
    settings: SettingsDep,
    snapshot: SnapshotDep,
    gpu: Annotated[str | None, _id_query("only offers of this GPU id (`id` in /api/v1/gpus)"), BLANK_IS_UNSET] = None,
    provider: Annotated[
        str | None, _id_query("only this provider's offers (`id` in /api/v1/providers)"), BLANK_IS_UNSET
    ] = None,
    price_type: Annotated[
        PriceTypeParam | None, Query(description="only offers on this price term"), BLANK_IS_UNSET
    ] = None,
    max_usd_per_gpu_hour: Annotated[
        float | None,
        Query(gt=0, le=1_000, description="only offers at or under this price, $ per GPU-hour"),
        BLANK_IS_UNSET,
    ] = None,
) -> list[OfferPublic]:
    known_filter_ids(snapshot, gpu=("gpus", gpu), provider=("providers", provider))
    rows = queries.list_offers(session, gpu, provider, price_type, max_usd_per_gpu_hour)
    # A price a newer one of its offer replaced is no rentable offer: /gpus/{id}.json lists it as earlier_prices.
    return pager.take(
        [views.offer_public(o, p, settings.stale_after_days) for o, p in rows if not queries.superseded(o)]
    )


@router.get(
    "/providers",
    summary="List providers: GPU offers, per-token prices and the cheapest current on-demand H100",
    response_model=list[ProviderPublic],
    responses=PAGED_RESPONSES,
)
def list_providers(
    session: SessionDep, settings: SettingsDep, query: Annotated[ProviderListQuery, Query()], pager: PagerDep
) -> list[ProviderPublic]:
    return pager.take(provider_list(session, settings.stale_after_days, query))


@router.get(
    "/providers/{provider_id}",
    summary="One provider: its GPU offers and per-token API prices",
    response_model=ProviderDetail,
)
def get_provider(
    provider_id: ProviderIdPath, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep
) -> ProviderDetail:
    provider = queries.get_provider(session, provider_id)
    if provider is None:
        raise not_found("provider", provider_id, "provider_id", path_id_hint(snapshot, "providers", provider_id))
    return provider_detail(session, provider, settings.stale_after_days)


@router.get(
    "/models",
    summary="List catalog models: family, architecture and release precision",
    response_model=list[ModelPublic],
    responses=PAGED_RESPONSES,
)
def list_models(
    session: SessionDep, snapshot: SnapshotDep, query: Annotated[ModelListQuery, Query()], pager: PagerDep
) -> list[ModelPublic]:
    refuse(family_errors(snapshot, query.family))
    return pager.take(views.model_list(session, query))


@router.get(
    "/models/{model_id}",
    summary="One model: architecture, sources and per-token API prices",
    response_model=ModelDetail,
)
def get_model(model_id: ModelIdPath, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> ModelDetail:
    model = queries.get_model(session, model_id)
    if model is None:
        raise not_found("model", model_id, "model_id", path_id_hint(snapshot, "models", model_id))
    return views.model_detail(session, model, settings.stale_after_days)


@router.get(
    "/token-prices",
    summary="List per-token API prices (serverless), dated and sourced: those /plan compares with first",
    response_model=list[TokenPricePublic],
    responses=PAGED_RESPONSES,
)
def list_token_prices(
    pager: PagerDep,
    session: SessionDep,
    settings: SettingsDep,
    snapshot: SnapshotDep,
    model: Annotated[str | None, _id_query("only this model's prices (`id` in /api/v1/models)"), BLANK_IS_UNSET] = None,
) -> list[TokenPricePublic]:
    known_filter_ids(snapshot, model=("models", model))
    return pager.take(views.token_price_list(session, model, settings.stale_after_days))


@router.get(
    "/offers/{offer_id}/history",
    summary="One offer's price history: every change, when and by whom",
    response_model=list[PriceHistoryPublic],
)
def offer_history(offer_id: OfferIdPath, session: SessionDep, snapshot: SnapshotDep) -> list[PriceHistoryPublic]:
    """Every price the offer has had, oldest first, with who changed it, when, and the source; where a newer price
    of the same offer replaced its latest, that row's superseded_note says by which, as an estimate on it does."""
    rows = queries.price_history(session, offer_id)
    if rows is None:
        raise not_found("offer", str(offer_id), "offer_id")
    return views.price_history_public(rows, superseded_history_note(offer_id, snapshot))
