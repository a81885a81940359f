"""`/precision`: one inference workload at each precision side by side; `/precision.json` twin."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service import precision
from app.service.charts import precision_cost
from app.service.query.phase import asks_a_question
from app.service.query.question import ParsedQuery
from app.web.deps import SnapshotDep
from app.web.forms import form_summary
from app.web.precision.charts import cost_by_precision_figure
from app.web.rank import form_options
from app.web.rendering.chart_tables import drawn, twin_payload
from app.web.rendering.render import answer_or_error, canonical_json, canonical_page

router = APIRouter(include_in_schema=False)


def _with_chart(payload: dict[str, Any]) -> Markup:
    """The figure's numbers into the payload's `charts` (the twin's and the page's table); its block to draw."""
    chart = precision_cost.cost_by_precision(payload)
    return drawn(payload, chart.table(), cost_by_precision_figure(chart))


def _payload(query: ParsedQuery, snapshot: CatalogSnapshot) -> dict[str, Any]:
    assert isinstance(query.workload, InferenceWorkload)
    return precision.precision_payload(query.workload, snapshot, f"/precision?{query.canonical}", charts=False)


def _context(query: ParsedQuery | None, snapshot: CatalogSnapshot) -> dict[str, Any]:
    context: dict[str, Any] = {
        "title": "Which precision?",
        "nav": "precision",
        **form_options.catalog_lists(snapshot),
    }
    form: dict[str, Any] = InferenceWorkload(model="llama-3.1-70b").model_dump()
    if query is not None and isinstance(query.workload, InferenceWorkload):
        form.update(form_options.workload_form_values(query.workload))
        payload = answer_or_error(query, lambda: _payload(query, snapshot), precision.PlanFieldError)
        if payload is not None:
            context.update(
                payload=payload,
                share_query=query.canonical,
                form_summary=form_summary.inference_summary(
                    query.workload, form_summary.workload_model(query.workload, snapshot), dtype=False
                ),
                json_url=f"/precision.json?{query.canonical}",
                chart_json=_with_chart(payload),
            )
    elif query is not None:
        form.update(query.values)
    context["form"] = form
    context["errors"] = query.errors if query else {}
    return context


@router.get("/precision")
def precision_page(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    query = precision.parse_precision(items) if asks_a_question(items) else None
    return canonical_page(
        request, "/precision", query, lambda: _context(query, snapshot), "precision.html", "precisionbench", snapshot
    )


@router.get("/precision.json")
def precision_json(request: Request, snapshot: SnapshotDep) -> Response:
    query = precision.parse_precision(list(request.query_params.multi_items()))
    return canonical_json(
        request, query, lambda: twin_payload(_payload(query, snapshot), _with_chart), precision.PlanFieldError, snapshot
    )
