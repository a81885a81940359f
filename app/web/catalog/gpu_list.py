"""`/gpus`, the GPU catalog's filterable list, and its `/gpus.json` twin.

The page reads its own query, as the question pages do, so a bad filter (`min_memory_gb=abc`, a vendor the catalog
lacks, a key given twice or not taken) re-renders the page with the error beside its field and answers 422; the
router-wide check (deps.ONE_VALUE_PER_KEY) sent it to the general error page. The twin answers the same 422 as JSON.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field, field_validator

from app.catalog import queries
from app.catalog.left_out import left_out_rows
from app.config import Settings
from app.scoring.specs import CatalogSnapshot
from app.service.catalog_ids import catalog_id, unknown_ids_message
from app.web.catalog import views
from app.web.catalog.http_cache import CatalogJsonRoute
from app.web.catalog.list_query import ListRequest, parse_list_query
from app.web.deps import SessionDep, SettingsDep, SnapshotDep
from app.web.errors.error_shape import field_errors_body
from app.web.rendering.render import json_response, page, wants_fragment

router = APIRouter(include_in_schema=False, route_class=CatalogJsonRoute)

SORTS = [
    ("name", "Name"),
    ("memory", "Memory"),
    ("bandwidth", "Bandwidth"),
    ("bf16", "BF16 TFLOPS"),
    ("fp8", "FP8 TFLOPS"),
    ("price", "On-demand $/GPU-h"),
]


class GpuListQuery(BaseModel):
    vendor: str | None = Field(None, max_length=40)
    min_memory_gb: float | None = Field(None, ge=0, le=10_000)
    sort: queries.GpuSort = "name"

    @field_validator("vendor", "min_memory_gb", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value  # an untouched form field submits ""

    def base_query(self) -> str:
        parts = [f"vendor={quote(self.vendor)}"] if self.vendor else []
        if self.min_memory_gb is not None:
            parts.append(f"min_memory_gb={self.min_memory_gb:g}")
        return "&".join(parts)

    def canonical(self) -> str:
        sort = [] if self.sort == "name" else [f"sort={self.sort}"]
        return "&".join([p for p in [self.base_query()] if p] + sort)


# The list's filters as parsed (None where any is wrong), what was typed (to refill the form) and each error.
GpuListRequest = ListRequest[GpuListQuery]


def parse_gpu_list(items: list[tuple[str, str]], snapshot: CatalogSnapshot, where: str) -> GpuListRequest:
    """The list's query, with an error per field: a key given twice or not taken, a value its filter refuses
    (list_query.parse_list_query), a vendor the catalog lacks (a 422, not an empty list that reads as "no such
    GPUs")."""
    parsed = parse_list_query(items, GpuListQuery, where)
    typed, errors, query = parsed.typed, parsed.errors, parsed.query
    vendor = typed.get("vendor")
    unknown_vendor = unknown_ids_message(snapshot, "vendors", [vendor]) if vendor and "vendor" not in errors else None
    if unknown_vendor:
        errors["vendor"] = unknown_vendor
    if query is not None and query.vendor:  # ?vendor=amd filters as AMD: its canonical URL and the form say AMD
        query = query.model_copy(update={"vendor": catalog_id(snapshot, "vendors", query.vendor)})
    return ListRequest(None if errors else query, typed, errors)


def _context(session: SessionDep, settings: Settings, parsed: GpuListRequest) -> dict[str, Any]:
    query = parsed.query or GpuListQuery()
    rows = (
        views.gpu_list(session, query.vendor, query.min_memory_gb, query.sort, settings.stale_after_days)
        if parsed.query
        else []
    )
    return {
        "left_out": left_out_rows(settings.seed_dir, "gpus.csv"),
        "title": "GPUs",
        "nav": "gpus",
        "rows": rows,
        "vendors": queries.vendors(session),
        "form": parsed.typed if parsed.errors else query.model_dump(exclude_none=True),
        "errors": parsed.errors,
        "fieldless": [key for key in parsed.errors if key not in GpuListQuery.model_fields],
        "query": query,
        "sorts": SORTS,
        "base_query": query.base_query(),
    }


@router.get("/gpus")
def gpus_page(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = parse_gpu_list(list(request.query_params.multi_items()), snapshot, "GET /gpus")
    if parsed.query is None:  # the page again, the typed values in its form and each error beside its field
        return page(request, "gpus.html", _context(session, settings, parsed), block="gpu_table", status_code=422)
    canonical = parsed.query.canonical()
    url = f"/gpus?{canonical}" if canonical else "/gpus"
    if canonical != request.url.query and not wants_fragment(request):
        return RedirectResponse(url, status_code=303)
    response = page(request, "gpus.html", _context(session, settings, parsed), block="gpu_table")
    response.headers["HX-Push-Url"] = url
    return response


@router.get("/gpus.json")
def gpus_json(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = parse_gpu_list(list(request.query_params.multi_items()), snapshot, "GET /gpus.json")
    if parsed.query is None:
        return json_response(field_errors_body(parsed.errors), 422)
    query = parsed.query
    return json_response(
        views.gpu_list(session, query.vendor, query.min_memory_gb, query.sort, settings.stale_after_days)
    )
