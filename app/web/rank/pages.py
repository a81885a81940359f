"""The workload form and its ranked results: `/`, its `.json`/`.csv` twins, and `/compare`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.scoring.specs import CatalogSnapshot
from app.service.query.catalog_spelling import in_catalog_spelling
from app.service.query.phase import PHASES, Phase, asks_a_question
from app.service.query.plan import plan_link, training_plan_link
from app.service.query.question import ParsedQuery, parse
from app.service.query.view import ResultsView, with_view
from app.service.rank import rank_sort, ranking
from app.service.rank.model_spec import UnknownId, model_spec_for
from app.service.rank.ranked_page import compare_cards, ranked_page
from app.web.deps import SnapshotDep
from app.web.errors.error_shape import field_errors_body
from app.web.forms.form_summary import question_summary
from app.web.rank import form_options, result_charts, results_view
from app.web.rank.csv_export import csv_response
from app.web.rendering.render import json_response, name_every_wrong_field, page, wants_fragment

router = APIRouter(include_in_schema=False)


def _blank(request: Request, gpus: list[str] | None = None) -> ParsedQuery:
    """The blank form of the requested phase (a link with no model is a form, not a question)."""
    phase: Phase = "training" if request.query_params.get("phase") == "training" else "inference"
    values: dict[str, Any] = {"phase": phase}
    if gpus:
        values["gpus"] = gpus
    return ParsedQuery(phase, None, values)


def results_context(
    parsed: ParsedQuery, snapshot: CatalogSnapshot, path: str, view_base: str | None = None
) -> dict[str, Any]:
    """Rank one parsed question and chart it, building only the rows its view shows; an unknown model
    becomes a field error. `view_base`: where the pager's and column headers' links go (default: path?question)."""
    assert parsed.workload is not None
    share_url = f"{path}?{parsed.question}"
    base = view_base or share_url
    view = parsed.view
    try:
        ranked = ranked_page(
            parsed.phase, parsed.workload, snapshot, share_url, view.start, view.rows, parsed.workload.gpus, view.sort
        )
    except UnknownId as exc:
        parsed.errors.update(exc.errors)
        return {}
    model = model_spec_for(parsed.workload, snapshot)
    payload = ranked.payload
    charts_for = result_charts.inference_charts if parsed.phase == "inference" else result_charts.training_charts
    return {
        "payload": payload,
        "feasible": payload["options"],
        "shared_assumptions": results_view.shared_assumptions(payload["options"]),
        "feasible_total": payload["feasible_options"],
        "over_limits_total": payload.get("over_limits_options", 0),
        "replicas_url": payload.get("replicas_url"),  # the answer's own, as the JSON and the CLI give it
        "replicas_load": results_view.replicas_load(parsed.workload),
        "limits_at_urls": results_view.limits_at_urls(parsed.workload, path),
        "limits_plan": results_view.limits_plan_note(parsed.workload),
        "overloaded": "overloaded" in payload,  # the answer's own (answer_body.overloaded_replicas), as JSON and CLI
        "ranks": ranked.ranks,
        "best": ranked.best,
        "metric": results_view.ranked_metric(payload.get("rank_by")),
        "close_calls": ranked.close_calls,
        "cards": ranked.cards,
        "per_gpu": ranked.per_gpu,
        "left_out": ranked.left_out,
        "cards_note": ranked.cards_note,
        "infeasible": ranked.infeasible,
        "chart_list": charts_for(payload, ranked.leaders, parsed.workload, snapshot, model),  # type: ignore[arg-type]
        "pager": results_view.pager(view, payload["feasible_options"], base),
        "sorting": results_view.sort_headers(view, base, parsed.phase),
        "sorted_by": rank_sort.describe(view.sort, parsed.phase),
        "share_query": parsed.canonical,
        "question_query": parsed.question,
        "plan_link": plan_link(parsed.question)
        if parsed.phase == "inference"
        else training_plan_link(parsed.question, model.max_context),
        "compare_query": None if path == "/compare" else results_view.compare_query(parsed.question, ranked.leaders),
        "results_path": path,
        "form_summary": question_summary(parsed.workload, snapshot),
    }


def render_workbench(
    request: Request,
    parsed: ParsedQuery | None,
    snapshot: CatalogSnapshot,
    path: str,
    template: str = "index.html",
    extra: dict[str, Any] | None = None,
    view_base: str | None = None,
) -> Response:
    """The form and, for a question, its results. `view_base` (saved links): the URL the pager's links and
    an htmx swap's pushed URL start from, instead of path?question."""
    context: dict[str, Any] = {
        "title": "Rank GPUs for a workload",
        "nav": "rank" if path == "/" else "compare",
        "form_path": path,
        **form_options.catalog_lists(snapshot),
    }
    if parsed is not None and parsed.workload is not None:
        context.update(results_context(parsed, snapshot, path, view_base))
        if context.get("pager", {}).get("beyond"):  # page 99,999 of 2: the last page is the one a reader meant
            return RedirectResponse(context["pager"]["last_page_url"], status_code=303)
    name_every_wrong_field(parsed, snapshot)
    typed = parsed.values if parsed and parsed.errors else ()
    context["form"] = form_options.convenience_targets_blank(form_options.form_state(parsed), typed=typed)
    context["errors"] = parsed.errors if parsed else {}
    if parsed and parsed.canonical and not parsed.errors:
        context.update(twin_urls(parsed, path, view_base))
    elif parsed and parsed.errors:  # the twin of the question as asked: it answers the same 422
        twin = f"{view_base}.json" if view_base is not None else f"{'/rank' if path == '/' else path}.json"
        context["json_url"] = f"{twin}?{request.url.query}" if request.url.query else twin
    context.update(extra or {})
    status = 422 if context["errors"] else 200
    response = page(request, template, context, block="workbench", status_code=status)
    if parsed and parsed.canonical and wants_fragment(request):
        pushed = f"{path}?{parsed.canonical}" if view_base is None else results_view.view_url(view_base, parsed.view)
        response.headers["HX-Push-Url"] = pushed
    return response


def twin_urls(parsed: ParsedQuery, path: str, view_base: str | None) -> dict[str, str]:
    """The JSON and CSV twins of a results page: every option (not only the page's rows), in the view's sort.
    A saved link's twins are its own (`/s/{slug}.json`), ranked with the prices it was saved with."""
    sort_only = results_view.ResultsView(sort=parsed.view.sort)
    if view_base is not None:
        json_url, csv_url = f"{view_base}.json", f"{view_base}.csv"
    else:
        twin = "/rank" if path == "/" else path
        json_url, csv_url = f"{twin}.json?{parsed.question}", f"{twin}.csv?{parsed.question}"
    return {
        "json_url": results_view.view_url(json_url, sort_only),
        "csv_url": results_view.view_url(csv_url, sort_only),
    }


def _redirect_if_not_canonical(request: Request, parsed: ParsedQuery, path: str) -> Response | None:
    if parsed.errors or wants_fragment(request) or parsed.canonical == request.url.query:
        return None
    return RedirectResponse(f"{path}?{parsed.canonical}", status_code=303)


@router.get("/")
def index(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    if not asks_a_question(items, PHASES):
        return render_workbench(request, _blank(request), snapshot, "/")
    parsed = in_catalog_spelling(parse(items, paged=True), snapshot)
    redirect = _redirect_if_not_canonical(request, parsed, "/")
    return redirect or render_workbench(request, parsed, snapshot, "/")


@router.get("/index.json")
def index_json(request: Request, snapshot: SnapshotDep) -> Response:
    """The blank form's JSON twin: default workloads and the catalog's choices. With a question, `/`'s twin is
    `/rank.json`: a redirect there, so the answer (or the 422) is the ranking's, not the blank form's."""
    if asks_a_question(list(request.query_params.multi_items()), PHASES):
        return RedirectResponse(f"/rank.json?{request.url.query}", status_code=307)
    lists = form_options.catalog_lists(snapshot)
    return json_response(
        {
            "defaults": {
                "inference": form_options.form_state(ParsedQuery("inference", None, {})),
                "training": form_options.form_state(ParsedQuery("training", None, {})),
            },
            "models": [m.id for m in lists["model_choices"]],
            "providers": [p for p, _ in lists["filter_choices"]["providers"]],
            "gpus": lists["filter_choices"]["gpus"],
            "rank_api": {"inference": "/api/v1/rank/inference", "training": "/api/v1/rank/training"},
        }
    )


def _payload_or_errors(parsed: ParsedQuery, snapshot: CatalogSnapshot, path: str, charts: bool) -> tuple[Any, int]:
    if not parsed.errors:  # its sort applies; page and show do not
        try:
            assert parsed.workload is not None
            sort = parsed.view.sort
            share_url = f"{path}?{with_view(parsed.question, ResultsView(sort=sort))}"  # the rank API's, sort kept
            # the JSON twin's charts, as the rank API's ?charts=true; the CSV's rows have no place for them
            payload = ranking.rank_payload(parsed.phase, parsed.workload, snapshot, share_url, sort=sort, charts=charts)
            if path == "/compare":  # the cards the page shows above the ranking, as data
                payload.update(compare_cards(parsed.phase, parsed.workload, snapshot, share_url))
            return payload, 200
        except UnknownId as exc:
            parsed.errors.update(exc.errors)
    name_every_wrong_field(parsed, snapshot)
    return field_errors_body(parsed.errors), 422


def _twin(request: Request, snapshot: CatalogSnapshot, path: str, filename: str | None = None) -> Response:
    """The JSON (or, with a filename, CSV) twin of a results page; errors stay JSON. Ids typed in another spelling
    (`gpus=h100-sxm`) move to the twin of the catalog's (303), as the page does: one question, one link."""
    asked = parse(list(request.query_params.multi_items()), paged=True)
    parsed = in_catalog_spelling(asked, snapshot)
    if parsed is not asked:
        return RedirectResponse(
            f"{request.url.path}?{with_view(parsed.question, ResultsView(sort=parsed.view.sort))}", 303
        )
    payload, status = _payload_or_errors(parsed, snapshot, path, charts=filename is None)
    if filename is None or status != 200:
        return json_response(payload, status_code=status)
    return csv_response(payload, filename)


@router.get("/rank.json")
def rank_json(request: Request, snapshot: SnapshotDep) -> Response:
    return _twin(request, snapshot, "/")


@router.get("/rank.csv")
def rank_csv(request: Request, snapshot: SnapshotDep) -> Response:
    return _twin(request, snapshot, "/", "gpumatch-ranking.csv")


@router.get("/compare")
def compare(request: Request, snapshot: SnapshotDep) -> Response:
    items = list(request.query_params.multi_items())
    if not asks_a_question(items, PHASES):
        state = _blank(request, gpus=["H100-SXM", "H200", "B200"])
        return render_workbench(request, state, snapshot, "/compare", "compare.html")
    parsed = in_catalog_spelling(parse(items, paged=True), snapshot)
    redirect = _redirect_if_not_canonical(request, parsed, "/compare")
    return redirect or render_workbench(request, parsed, snapshot, "/compare", "compare.html", {"side_by_side": True})


@router.get("/compare.json")
def compare_json(request: Request, snapshot: SnapshotDep) -> Response:
    return _twin(request, snapshot, "/compare")


@router.get("/compare.csv")
def compare_csv(request: Request, snapshot: SnapshotDep) -> Response:
    return _twin(request, snapshot, "/compare", "gpumatch-compare.csv")
