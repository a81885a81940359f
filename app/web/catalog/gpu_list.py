"""`/gpus`, the GPU catalog's filterable list, and its `/gpus.json` twin.

The page reads its own query, as the question pages do, so a bad filter (`min_memory_gb=abc`, a vendor the catalog
lacks, a key given twice or not taken) re-renders the page with the error beside its field and answers 422; the
router-wide check (deps.ONE_VALUE_PER_KEY) sent it to the general error page. The twin answers the same 422 as JSON.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.catalog import queries
from app.catalog.left_out import left_out_rows
from app.config import Settings
from app.web.catalog import views
from app.web.catalog.http_cache import CatalogJsonRoute
from app.web.catalog.list_checks import read_list_query
from app.web.catalog.list_filters import GpuListQuery
from app.web.catalog.list_pages import list_context, list_page
from app.web.catalog.list_query import ListRequest
from app.web.deps import SessionDep, SettingsDep, SnapshotDep
from app.web.errors.error_shape import field_errors_body
from app.web.rendering.render import json_response

router = APIRouter(include_in_schema=False, route_class=CatalogJsonRoute)

SORTS = [
    ("name", "Name"),
    ("memory", "Memory"),
    ("bandwidth", "Bandwidth"),
    ("bf16", "BF16 TFLOPS"),
    ("fp8", "FP8 TFLOPS"),
    ("price", "On-demand $/GPU-h"),
]


def _context(session: SessionDep, settings: Settings, parsed: ListRequest[GpuListQuery]) -> dict[str, Any]:
    listed = list_context(parsed, GpuListQuery(), "/gpus")
    return {
        "left_out": left_out_rows(settings.seed_dir, "gpus.csv"),
        "title": "GPUs",
        "nav": "gpus",
        "rows": views.gpu_list(session, parsed.query, settings.stale_after_days) if parsed.query else [],
        "vendors": queries.vendors(session),
        "sorts": SORTS,
        "base_query": listed["query"].base_query(),
        **listed,
    }


@router.get("/gpus")
def gpus_page(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(list(request.query_params.multi_items()), GpuListQuery, snapshot, "GET /gpus")
    return list_page(request, "/gpus", parsed, lambda: _context(session, settings, parsed), "gpus.html", "gpu_table")


@router.get("/gpus.json")
def gpus_json(request: Request, session: SessionDep, settings: SettingsDep, snapshot: SnapshotDep) -> Response:
    parsed = read_list_query(list(request.query_params.multi_items()), GpuListQuery, snapshot, "GET /gpus.json")
    if parsed.query is None:
        return json_response(field_errors_body(parsed.errors), 422)
    return json_response(views.gpu_list(session, parsed.query, settings.stale_after_days))
