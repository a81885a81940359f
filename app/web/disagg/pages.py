"""`/disagg`: aggregated against disaggregated prefill/decode serving at a traffic; `/disagg.json` twin."""

from __future__ import annotations

from typing import Any, get_args

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.scoring.serving.traffic.week import Profile, Traffic
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service import disagg
from app.service.charts import disagg_cost
from app.service.query.phase import asks_a_question
from app.service.query.plan import PlanQuery, page_field, ranking_query
from app.web.deps import SnapshotDep
from app.web.disagg.charts import cost_by_layout_figure
from app.web.forms import form_summary
from app.web.rank import form_options
from app.web.rendering.chart_tables import drawn, twin_payload
from app.web.rendering.render import answer_or_error, canonical_json, canonical_page

router = APIRouter(include_in_schema=False)


def _with_chart(payload: dict[str, Any]) -> Markup | None:
    """The figure's numbers into the payload's `charts` (the twin's and the page's table), where there is a layout to
    draw; its JSON block for the page."""
    payload.setdefault("charts", [])
    if not disagg_cost.has_chart(payload):
        return None
    chart = disagg_cost.cost_by_layout(payload)
    return drawn(payload, chart.table(), cost_by_layout_figure(chart))


def _payload(query: PlanQuery, snapshot: CatalogSnapshot) -> dict[str, Any]:
    assert query.workload is not None and query.traffic is not None
    return disagg.disagg_payload(query.workload, query.traffic, snapshot, f"/disagg?{query.canonical}", charts=False)


def _form(query: PlanQuery | None) -> dict[str, Any]:
    form: dict[str, Any] = {
        **form_options.weights_as_given(InferenceWorkload(model="llama-3.1-70b").model_dump(), ()),
        **form_options.traffic_values(None, {}),
    }
    if query is not None and query.workload is not None and query.traffic is not None:
        form.update(form_options.workload_form_values(query.workload))
        form.update(form_options.traffic_values(query.traffic, {}))
    elif query is not None:
        form.update(query.values)
        form.update(form_options.traffic_values(None, query.values))
    return form


def verdict_claim(verdict: dict[str, Any]) -> str:
    """The verdict's headline without its reason, for the strip above the form: the results under it give the whole
    sentence, and the strip had repeated all of it (three lines at 1366 px) a screen above them."""
    claim, because, _ = verdict["headline"].partition(", because ")
    return f"{claim}." if because else verdict["headline"]


def _on_the_estimate(workload: InferenceWorkload, traffic: Traffic) -> str:
    """The same question with its pools sized on the estimate (limits_at unset, as the workload reads it)."""
    return disagg.canonical_disagg_query(workload.model_copy(update={"limits_at": None}), traffic)


def _context(query: PlanQuery | None, snapshot: CatalogSnapshot) -> dict[str, Any]:
    context: dict[str, Any] = {
        "title": "Disaggregate prefill and decode?",
        "nav": "disagg",
        "profiles": get_args(Profile),
        **form_options.catalog_lists(snapshot),
    }
    if query is not None and query.workload is not None and query.traffic is not None:
        payload = answer_or_error(
            query, lambda: _payload(query, snapshot), disagg.PlanFieldError, page_field=page_field
        )
        if payload is not None:
            context.update(
                payload=payload,
                verdict_claim=verdict_claim(payload["verdict"]),
                share_query=query.canonical,
                form_summary=form_summary.traffic_question_summary(query.workload, query.traffic, snapshot),
                rank_query=ranking_query(query.workload, payload["traffic"]["peak_requests_per_s"]),
                json_url=f"/disagg.json?{query.canonical}",
                estimate_query=_on_the_estimate(query.workload, query.traffic),
                chart_json=_with_chart(payload),
            )
    context["form"] = _form(query)
    context["errors"] = query.errors if query else {}
    return context


@router.get("/disagg")
def disagg_page(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    query = disagg.parse_disagg(items) if asks_a_question(items) else None
    return canonical_page(
        request, "/disagg", query, lambda: _context(query, snapshot), "disagg.html", "disaggbench", snapshot
    )


@router.get("/disagg.json")
def disagg_json(request: Request, snapshot: SnapshotDep) -> Response:
    query = disagg.parse_disagg(list(request.query_params.multi_items()))
    return canonical_json(
        request,
        query,
        lambda: twin_payload(_payload(query, snapshot), _with_chart),
        disagg.PlanFieldError,
        snapshot,
        page_field=page_field,
    )
