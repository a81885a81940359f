"""`/mix`: the cheapest mix of GPU offers for a request-length distribution; `/mix.json` twin."""

from __future__ import annotations

from typing import Any, get_args

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.mix.request_shapes import SHAPES
from app.scoring.serving.traffic.week import Profile
from app.scoring.specs import CatalogSnapshot
from app.service import mix
from app.service.charts import mix_cost
from app.service.query.phase import asks_a_question
from app.web.deps import SnapshotDep
from app.web.forms import form_summary
from app.web.mix.charts import cost_by_offer_figure
from app.web.rank import form_options
from app.web.rendering.chart_tables import drawn, twin_payload
from app.web.rendering.render import answer_or_error, canonical_json, canonical_page

router = APIRouter(include_in_schema=False)


def _with_chart(payload: dict[str, Any]) -> Markup:
    """The figure's numbers into the payload's `charts` (the twin's and the page's table); its block to draw."""
    chart = mix_cost.cost_by_offer(payload)
    return drawn(payload, chart.table(), cost_by_offer_figure(chart))


def _payload(query: mix.MixQuery, snapshot: CatalogSnapshot) -> dict[str, Any]:
    assert query.question is not None
    return mix.mix_payload(query.question, snapshot, f"/mix?{query.canonical}", charts=False)


def _form(query: mix.MixQuery | None) -> dict[str, Any]:
    form: dict[str, Any] = form_options.weights_as_given(MixQuestion().model_dump(), ())
    form["mix"] = MixQuestion().distribution_text
    if query is not None and query.question is not None:
        form.update(form_options.workload_form_values(query.question))  # a custom model: its arch_* fields
        form["mix"] = query.question.distribution_text
    elif query is not None:
        form.update(query.values)
    return form


def _context(query: mix.MixQuery | None, snapshot: CatalogSnapshot) -> dict[str, Any]:
    context: dict[str, Any] = {
        "title": "Cheapest GPU mix",
        "nav": "mix",
        "profiles": get_args(Profile),
        "shapes": list(SHAPES.values()),
        **form_options.catalog_lists(snapshot),
    }
    if query is not None and query.question is not None:
        payload = answer_or_error(query, lambda: _payload(query, snapshot), mix.PlanFieldError)
        if payload is not None:
            context.update(
                payload=payload,
                share_query=query.canonical,
                form_summary=form_summary.mix_summary(
                    query.question,
                    form_summary.workload_model(query.question, snapshot),
                    payload["weights"]["weight_dtype"],
                ),
                json_url=f"/mix.json?{query.canonical}",
                chart_json=_with_chart(payload),
            )
    context["form"] = _form(query)
    context["errors"] = query.errors if query else {}
    return context


@router.get("/mix")
def mix_page(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    query = mix.parse_mix(items) if asks_a_question(items) else None
    return canonical_page(request, "/mix", query, lambda: _context(query, snapshot), "mix.html", "mixbench", snapshot)


@router.get("/mix.json")
def mix_json(request: Request, snapshot: SnapshotDep) -> Response:
    query = mix.parse_mix(list(request.query_params.multi_items()))
    return canonical_json(
        request, query, lambda: twin_payload(_payload(query, snapshot), _with_chart), mix.PlanFieldError, snapshot
    )
