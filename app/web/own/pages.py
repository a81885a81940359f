"""`/own`: owning N GPU servers against renting them; `/own.json` twin."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.scoring.serving.ownership.question import OwnershipQuestion
from app.scoring.specs import CatalogSnapshot
from app.service import ownership
from app.service.charts import own_cost
from app.service.query.phase import asks_a_question
from app.web.deps import SnapshotDep
from app.web.forms import form_summary
from app.web.own.charts import cumulative_cost_figure
from app.web.rendering.chart_tables import drawn, twin_payload
from app.web.rendering.render import answer_or_error, canonical_json, canonical_page

router = APIRouter(include_in_schema=False)


def _with_chart(payload: dict[str, Any]) -> Markup:
    """The figure's numbers into the payload's `charts` (the twin's and the page's table); its block to draw."""
    chart = own_cost.cumulative_cost(payload)
    return drawn(payload, chart.table(), cumulative_cost_figure(chart))


def _payload(query: ownership.OwnQuery, snapshot: CatalogSnapshot) -> dict[str, Any]:
    assert query.question is not None
    return ownership.own_payload(query.question, snapshot, f"/own?{query.canonical}", charts=False)


def _context(query: ownership.OwnQuery, snapshot: CatalogSnapshot, asked: bool) -> dict[str, Any]:
    """`asked`: a question in the URL; the blank form shows the default question's answer, its form open."""
    context: dict[str, Any] = {
        "title": "Own or rent?",
        "nav": "own",
        "gpu_choices": ownership.gpu_choices(snapshot),
    }
    form: dict[str, Any] = OwnershipQuestion().model_dump()
    if query.question is not None:
        form.update(query.question.model_dump())
        payload = answer_or_error(query, lambda: _payload(query, snapshot), ownership.MissingInput)
        if payload is not None:
            context.update(
                payload=payload,
                defaults={i["name"]: i for i in payload["inputs"]},
                share_query=query.canonical,
                form_summary=form_summary.own_summary(query.question) if asked else None,
                json_url=f"/own.json?{query.canonical}",
                chart_json=_with_chart(payload),
            )
        else:  # the hints stay beside the cost fields, and each field without a default says so
            context["defaults"] = ownership.form_defaults(query.question, snapshot)
    else:
        form.update(query.values)
    context["form"] = form
    context["missing"] = ownership.catalog_gaps(query.errors, query.values, snapshot)
    context["errors"] = {k: v for k, v in query.errors.items() if k not in context["missing"]}
    return context


@router.get("/own")
def own_page(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    asked = asks_a_question(items)
    query = ownership.parse_own(items if asked else [], snapshot)  # the blank form shows the default question's answer
    return canonical_page(
        request,
        "/own",
        query if asked else None,
        lambda: _context(query, snapshot, asked),
        "own.html",
        "ownbench",
        snapshot,
    )


@router.get("/own.json")
def own_json(request: Request, snapshot: SnapshotDep) -> Response:
    query = ownership.parse_own(list(request.query_params.multi_items()), snapshot)
    return canonical_json(
        request, query, lambda: twin_payload(_payload(query, snapshot), _with_chart), ownership.MissingInput, snapshot
    )
