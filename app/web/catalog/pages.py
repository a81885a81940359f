"""Catalog pages; each has a JSON twin at the same path + `.json` (the lists, sorted and filtered: list_pages)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.catalog import queries
from app.scoring.workload import InferenceWorkload
from app.service.catalog import views
from app.service.catalog.provider_views import provider_detail
from app.service.catalog.schemas import ModelDetail
from app.service.named_ids import path_id_hint
from app.service.query.canonical import canonical_query
from app.service.query.fitting_lengths import lengths_within
from app.web.catalog.http_cache import CatalogJsonRoute
from app.web.deps import ONE_VALUE_PER_KEY, SessionDep, SettingsDep, SnapshotDep, not_found
from app.web.rendering.render import json_response, page, split_json_suffix

router = APIRouter(include_in_schema=False, dependencies=[ONE_VALUE_PER_KEY], route_class=CatalogJsonRoute)


def canonical_redirect(request: Request, path: str, as_json: bool) -> Response:
    """An id typed in another spelling (/gpus/h100-sxm) moves for good to the catalog's (/gpus/H100-SXM): a shared
    link, a bookmark and a search engine keep one URL per page (found by qa33)."""
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"{path}{'.json' if as_json else ''}{query}", status_code=301)


@router.get("/providers/{provider_id}")
def provider_page(
    provider_id: str, request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep
) -> Response:
    provider_id, as_json = split_json_suffix(provider_id)
    provider = queries.get_provider(session, provider_id)
    if provider is None:
        raise not_found("provider", provider_id, "provider_id", path_id_hint(snapshot, "providers", provider_id))
    if provider.id != provider_id:
        return canonical_redirect(request, f"/providers/{provider.id}", as_json)
    detail = provider_detail(session, provider, settings.stale_after_days)
    if as_json:
        return json_response(detail)
    context = {
        "title": detail.name,
        "nav": "providers",
        "provider": detail,
        "stale_after_days": settings.stale_after_days,
    }
    return page(request, "provider.html", context)


@router.get("/models/{model_id}")
def model_page(
    model_id: str, request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep
) -> Response:
    model_id, as_json = split_json_suffix(model_id)
    model = queries.get_model(session, model_id)
    if model is None:
        raise not_found("model", model_id, "model_id", path_id_hint(snapshot, "models", model_id))
    if model.id != model_id:
        return canonical_redirect(request, f"/models/{model.id}", as_json)
    detail = views.model_detail(session, model, settings.stale_after_days)
    if as_json:
        return json_response(detail)
    context = {
        "title": detail.name,
        "nav": "models",
        "model": detail,
        "serve_query": serve_query(detail),
    }
    return page(request, "model.html", context)


def serve_query(model: ModelDetail) -> str:
    """The model's serving ranking at the form's default lengths, or at lengths its context holds: the page's "Rank
    GPUs to serve it" led the 13 models of 2,048 tokens to a 422 naming input_len (found by qa37)."""
    return canonical_query("inference", InferenceWorkload(model=model.id, **lengths_within(model.max_context)))
