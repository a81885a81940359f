"""`/plan`: dedicated vs serverless for a workload at a traffic, then train-then-serve; `/plan.json` twin."""

from __future__ import annotations

from typing import Any, get_args

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.scoring.serving.traffic.week import Profile
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service import mix, ownership, plan
from app.service.charts import plan_cost
from app.service.query.phase import asks_a_question
from app.service.query.plan import (
    DEFAULT_MONTHS,
    TRAIN_PREFIX,
    PlanQuery,
    lifecycle_skipped,
    page_field,
    parse_plan,
    ranking_query,
)
from app.web.deps import SnapshotDep
from app.web.forms import form_summary
from app.web.plan.charts import cost_vs_traffic_figure
from app.web.rank import form_options
from app.web.rendering.chart_tables import drawn
from app.web.rendering.render import answer_or_error, canonical_json, canonical_page

router = APIRouter(include_in_schema=False)
TABLE_ROWS = 15


def plan_json(query: PlanQuery, snapshot: CatalogSnapshot, include_terms: bool = False) -> dict[str, Any]:
    """The serving API's body, with the lifecycle plan under `lifecycle` (null without months, and then
    `lifecycle_skipped` says why any train_* fields price nothing); the page, which
    shows no option's terms, leaves them out, the `.json` twin keeps them as the API and the CLI's --json do."""
    assert query.workload is not None and query.traffic is not None
    share = f"/plan?{query.canonical}"
    kept_run = plan.kept_run_errors(query.training, query.months, snapshot)  # said with the served model's errors
    try:
        body = plan.serving_payload(
            query.workload, query.traffic, snapshot, share, TABLE_ROWS * 4, include_terms, charts=False
        )
    except plan.PlanFieldError as exc:
        raise plan.PlanFieldError(exc.field, str(exc), {**exc.errors, **kept_run}) from None
    if kept_run:
        raise plan.PlanFieldError(*next(iter(kept_run.items())), kept_run)
    body["lifecycle"] = None
    body["lifecycle_skipped"] = lifecycle_skipped(query.training, query.months)  # train_* fields without months
    if query.training is not None and query.months is not None:
        life = plan.lifecycle_payload(query.training, query.workload, query.traffic, query.months, snapshot, share)
        body["lifecycle"] = {
            k: life[k]
            for k in ("training", "months", "combinations", "total_combinations", "training_feasible", "basis", "notes")
        }
        # serving the model the run trains: only the serverless prices that serve it (a LoRA adapter's base at a seller
        # that serves adapters; none for new weights), so its verdict may differ from the base model's above
        body["lifecycle"]["verdict"] = life["serving"]["verdict"]
    return body


def with_chart(body: dict[str, Any], query: PlanQuery) -> Markup:
    """The cost-vs-traffic chart's numbers into the body's `charts` (the twin's and the page's table, as the serving API
    gives them); its figure's JSON block for the page to draw."""
    assert query.workload is not None and query.traffic is not None
    chart = plan_cost.cost_vs_traffic(body, query.traffic, query.workload.output_len)
    return drawn(body, chart.table(), cost_vs_traffic_figure(chart))


def form_state(query: PlanQuery | None) -> dict[str, Any]:
    """Defaults, then the parsed question (or exactly what was typed, after an error)."""
    state: dict[str, Any] = {
        **form_options.weights_as_given(InferenceWorkload().model_dump(), ()),
        **{TRAIN_PREFIX + k: v for k, v in TrainingWorkload().model_dump().items()},
        "months": DEFAULT_MONTHS,
        **form_options.traffic_values(None, {}),
    }
    if query is None:
        return form_options.convenience_targets_blank(state, TRAIN_PREFIX)
    if query.workload is not None and query.traffic is not None:
        state.update(form_options.workload_form_values(query.workload))
        state.update(form_options.traffic_values(query.traffic, {}))
        if query.training is not None:
            state.update({TRAIN_PREFIX + k: v for k, v in query.training.model_dump().items()})
        state["months"] = query.months or ""
        return form_options.convenience_targets_blank(state, TRAIN_PREFIX)
    state.update(query.values)
    state.update(form_options.traffic_values(None, query.values))
    return form_options.convenience_targets_blank(state, TRAIN_PREFIX, typed=query.values)


def _context(query: PlanQuery | None, snapshot: CatalogSnapshot) -> dict[str, Any]:
    context: dict[str, Any] = {
        "title": "Dedicated GPUs or serverless?",
        "nav": "plan",
        "profiles": get_args(Profile),
        **form_options.catalog_lists(snapshot),
    }
    if query is not None and query.workload is not None and query.traffic is not None:
        payload = answer_or_error(query, lambda: plan_json(query, snapshot), plan.PlanFieldError, page_field=page_field)
        if payload is not None:
            context.update(
                payload=payload,
                options=payload["options"][:TABLE_ROWS],
                own_gpus=ownership.sourced_gpus(snapshot, [o["gpu_id"] for o in payload["options"][:1]]),
                share_query=query.canonical,
                form_summary=form_summary.traffic_question_summary(
                    query.workload, query.traffic, snapshot, query.months if query.training else None
                ),
                rank_query=ranking_query(query.workload, payload["traffic"]["peak_requests_per_s"]),
                mix_query=mix.query_from_plan(query.workload, query.traffic, snapshot),
                json_url=f"/plan.json?{query.canonical}",
                chart_json=with_chart(payload, query),
            )
    context["form"] = form_state(query)
    context["errors"] = query.errors if query else {}
    return context


@router.get("/plan")
def plan_page(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    query = parse_plan(items) if asks_a_question(items) else None
    return canonical_page(
        request, "/plan", query, lambda: _context(query, snapshot), "plan.html", "planbench", snapshot
    )


def _charted_json(query: PlanQuery, snapshot: CatalogSnapshot) -> dict[str, Any]:
    body = plan_json(query, snapshot, include_terms=True)
    with_chart(body, query)
    return body


@router.get("/plan.json")
def plan_page_json(request: Request, snapshot: SnapshotDep) -> Response:
    query = parse_plan(list(request.query_params.multi_items()))
    return canonical_json(
        request,
        query,
        lambda: _charted_json(query, snapshot),
        plan.PlanFieldError,
        snapshot,
        page_field=page_field,
    )
