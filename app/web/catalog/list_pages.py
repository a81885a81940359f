"""/gpus, /models, /providers and a GPU's page, sorted and filtered by their query strings, each with its `.json` twin.
A page reads its own query, as the question pages do, so a bad sort or filter (`min_memory_gb=abc`, a vendor the
catalog lacks, a key given twice or not taken) re-renders the page with the error beside its field (422), where the
router-wide check (deps.ONE_VALUE_PER_KEY) sent it to the general error page; a good one in another spelling moves to
its canonical URL (303). A twin answers the same 422 as JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.catalog import queries
from app.catalog.left_out import left_out_rows
from app.service.catalog import views
from app.service.catalog.list_checks import families, read_list_query
from app.service.catalog.list_filters import GpuListQuery, GpuOffersQuery, ModelListQuery, ProviderListQuery
from app.service.catalog.list_query import ListQuery, ListRequest, form_values, parse_list_query, sort_links
from app.service.catalog.provider_views import provider_list
from app.service.charts.gpu_prices import cheapest_price_bars
from app.service.named_ids import path_id_hint
from app.web.catalog.http_cache import CatalogJsonRoute
from app.web.catalog.pages import canonical_redirect
from app.web.deps import SessionDep, SettingsDep, SnapshotDep, not_found
from app.web.errors.error_shape import field_errors_body
from app.web.rendering.charts import offer_price_bars, to_json_block
from app.web.rendering.render import json_response, page, split_json_suffix, wants_fragment

router = APIRouter(include_in_schema=False, route_class=CatalogJsonRoute)
PROVIDER_KINDS = ("hyperscaler", "neocloud", "marketplace", "serverless")
GPU_SORTS = [
    ("name", "Name"),
    ("memory", "Memory"),
    ("bandwidth", "Bandwidth"),
    ("bf16", "BF16 TFLOPS"),
    ("fp8", "FP8 TFLOPS"),
    ("price", "On-demand $/GPU-h"),
]


def _items(request: Request) -> list[tuple[str, str]]:
    return list(request.query_params.multi_items())


def list_context(parsed: ListRequest[Any], fallback: ListQuery, path: str) -> dict[str, Any]:
    query = parsed.query or fallback
    return {
        "query": query,
        "form": form_values(parsed),
        "errors": parsed.errors,
        "fieldless": [key for key in parsed.errors if key not in type(query).model_fields],
        "sort_links": sort_links(path, query),
    }


def list_page(
    request: Request,
    path: str,
    parsed: ListRequest[Any],
    context: Callable[[], dict[str, Any]],
    template: str,
    block: str,
) -> Response:
    """The page for a good query at its canonical URL; the page with each error beside its field (422) else."""
    if parsed.query is None:
        return page(request, template, context(), block=block, status_code=422)
    canonical = parsed.query.canonical()
    url = f"{path}?{canonical}" if canonical else path
    if canonical != request.url.query and not wants_fragment(request):
        return RedirectResponse(url, status_code=303)
    response = page(request, template, context(), block=block)
    response.headers["HX-Push-Url"] = url
    return response


@router.get("/gpus")
def gpus_page(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(_items(request), GpuListQuery, snapshot, "GET /gpus")

    def context() -> dict[str, Any]:
        rows = views.gpu_list(session, parsed.query, settings.stale_after_days) if parsed.query else []
        listed = list_context(parsed, GpuListQuery(), "/gpus")
        return {
            "title": "GPUs",
            "nav": "gpus",
            "rows": rows,
            "vendors": queries.vendors(session),
            "sorts": GPU_SORTS,
            "base_query": listed["query"].base_query(),
            "left_out": left_out_rows(settings.seed_dir, "gpus.csv"),
            **listed,
        }

    return list_page(request, "/gpus", parsed, context, "gpus.html", "gpu_table")


@router.get("/gpus.json")
def gpus_json(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(_items(request), GpuListQuery, snapshot, "GET /gpus.json")
    if parsed.query is None:
        return json_response(field_errors_body(parsed.errors), 422)
    return json_response(views.gpu_list(session, parsed.query, settings.stale_after_days))


@router.get("/models")
def models_page(request: Request, session: SessionDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(_items(request), ModelListQuery, snapshot, "GET /models")

    def context() -> dict[str, Any]:
        rows = views.model_list(session, parsed.query) if parsed.query else []
        listed = list_context(parsed, ModelListQuery(), "/models")
        return {"title": "Models", "nav": "models", "models": rows, "families": families(snapshot), **listed}

    return list_page(request, "/models", parsed, context, "models.html", "model_table")


@router.get("/models.json")
def models_json(request: Request, session: SessionDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(_items(request), ModelListQuery, snapshot, "GET /models.json")
    if parsed.query is None:
        return json_response(field_errors_body(parsed.errors), 422)
    return json_response(views.model_list(session, parsed.query))


@router.get("/providers")
def providers_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    parsed = parse_list_query(_items(request), ProviderListQuery, "GET /providers")

    def context() -> dict[str, Any]:
        rows = provider_list(session, settings.stale_after_days, parsed.query) if parsed.query else []
        listed = list_context(parsed, ProviderListQuery(), "/providers")
        return {"title": "Providers", "nav": "providers", "providers": rows, "kinds": PROVIDER_KINDS, **listed}

    return list_page(request, "/providers", parsed, context, "providers.html", "provider_table")


@router.get("/providers.json")
def providers_json(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    parsed = parse_list_query(_items(request), ProviderListQuery, "GET /providers.json")
    if parsed.query is None:
        return json_response(field_errors_body(parsed.errors), 422)
    return json_response(provider_list(session, settings.stale_after_days, parsed.query))


@router.get("/gpus/{gpu_id}")
def gpu_page(
    gpu_id: str, request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep
) -> Response:
    gpu_id, as_json = split_json_suffix(gpu_id)
    gpu = queries.get_gpu(session, gpu_id)
    if gpu is None:
        raise not_found("GPU", gpu_id, "gpu_id", path_id_hint(snapshot, "gpus", gpu_id))
    if gpu.id != gpu_id:
        return canonical_redirect(request, f"/gpus/{gpu.id}", as_json)
    where = f"GET /gpus/{{gpu_id}}{'.json' if as_json else ''}"
    parsed = read_list_query(_items(request), GpuOffersQuery, snapshot, where)
    if as_json:
        if parsed.query is None:
            return json_response(field_errors_body(parsed.errors), 422)
        return json_response(views.gpu_detail(session, gpu, settings.stale_after_days, parsed.query))

    def context() -> dict[str, Any]:
        every_offer = views.gpu_detail(session, gpu, settings.stale_after_days)
        detail = views.filtered_offers(every_offer, parsed.query, settings.stale_after_days)
        providers = {o.provider_id: o.provider_name for o in every_offer.offers}
        return {
            "title": detail.name,
            "nav": "gpus",
            "gpu": detail,
            # the offers the table lists, so a filter narrows both; it sits in the block htmx swaps
            "chart_json": to_json_block(offer_price_bars(cheapest_price_bars(detail.offers))),
            "stale_after_days": settings.stale_after_days,
            "providers": sorted(providers.items(), key=lambda p: p[1].casefold()),
            **list_context(parsed, GpuOffersQuery(), f"/gpus/{gpu.id}"),
        }

    return list_page(request, f"/gpus/{gpu.id}", parsed, context, "gpu.html", "offer_table")
