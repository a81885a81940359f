"""Saved links' routes: POST /share saves a question and the prices it was ranked with; /s/{slug} replays it.

Storage is app/catalog/saved_links.py, the replay app/service/saved_links.py. POST /share refuses cross-site
requests (an Origin that is not this host, or Sec-Fetch-Site: cross-site) and questions whose model the catalog
does not know; it is rate-limited per client in app/web/middleware/rate_limit.py.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from app.catalog import saved_links as stored_links
from app.scoring.specs import CatalogSnapshot
from app.service.query.catalog_spelling import in_catalog_spelling
from app.service.query.phase import PHASES, asks_a_question
from app.service.query.question import ParsedQuery, parse
from app.service.query.view import VIEW_FIELDS, ResultsView, parse_view, with_view
from app.service.rank import ranking
from app.service.rank.model_spec import UnknownId, model_spec_for
from app.service.rank.ranked_page import compare_cards
from app.service.saved_links import query_items, replay, stored_query
from app.web.deps import SessionDep, SnapshotDep, not_found
from app.web.errors.error_shape import field_errors_body
from app.web.errors.handlers import field_error_response, refused_response, wants_json
from app.web.rank.csv_export import csv_response
from app.web.rank.pages import render_workbench
from app.web.rendering.render import json_response, split_twin_suffix
from app.web.share.request import SHARE_BODY, SHARE_RESPONSES, ShareCreated, ShareRequest, share_request

router = APIRouter(tags=["saved links"])
SHARE_PATHS = ("/", "/compare")
EMPTY_QUESTION = "no question to save: name a model (e.g. model=llama-3.1-8b) and what differs from the form's defaults"


def cross_site_reason(request: Request) -> str | None:
    """Why a state-changing request looks cross-site (None: same origin, or a non-browser client)."""
    if request.headers.get("sec-fetch-site") == "cross-site":
        return "cross-site request refused (Sec-Fetch-Site: cross-site)"
    origin = request.headers.get("origin")
    if origin is None:
        return None  # curl and other non-browser clients send no Origin; browsers always do on POST
    origin_host = urlsplit(origin).netloc.lower()
    if origin == "null" or origin_host != request.headers.get("host", "").lower():
        return f"cross-site request refused (Origin {origin!r} is not this host)"
    return None


@router.post(
    "/share",
    summary="Save a question with today's prices under a short link (/s/{slug})",
    status_code=201,
    response_model=ShareCreated,
    responses=SHARE_RESPONSES,
    openapi_extra={"requestBody": SHARE_BODY},
)
def create_share(
    session: SessionDep,
    snapshot: SnapshotDep,
    request: Request,
    fields: Annotated[ShareRequest, Depends(share_request)],
) -> Response:
    """Save a results page's question with the prices it is ranked at; the link replays both. Takes JSON or a form;
    answers 201 {slug, url} to JSON (a JSON body, or Accept: application/json), else redirects to the link. The same
    question at the same prices is the same slug. A cross-site request is a 403."""
    refused = cross_site_reason(request)
    if refused:
        return refused_response(request, 403, refused)
    items = query_items(fields.query)
    question = [(key, value) for key, value in items if key not in VIEW_FIELDS]
    parsed = in_catalog_spelling(parse(question), snapshot)  # saved under the catalog's ids, as the page links them
    view_errors: dict[str, str] = {}
    view = _view(items, parsed, view_errors)
    problems = {**_problems(fields.path, parsed, snapshot, asks_a_question(question, PHASES)), **view_errors}
    if problems:
        return field_error_response(request, problems)
    slug = stored_links.save(session, fields.path, stored_query(parsed, snapshot), snapshot)
    link = f"/s/{slug}?{with_view('', view)}".rstrip("?")  # the view follows the saved link, as /s/{slug}?sort= reads
    if wants_json(request):
        created = json_response({"slug": slug, "url": link}, 201)
        created.headers["Location"] = link  # a 201 names what it created (RFC 9110 §15.3.2), not /share
        return created
    return RedirectResponse(link, status_code=303)


def _view(items: list[tuple[str, str]], parsed: ParsedQuery, errors: dict[str, str]) -> ResultsView:
    """The query's sort, show and page (a rank API's share_url carries its sort): they follow the link, unsaved."""
    given = [key for key, _ in items if key in VIEW_FIELDS]
    errors.update({key: f"given more than once; {key} takes one value" for key in given if given.count(key) > 1})
    return parse_view({key: value for key, value in items if key in VIEW_FIELDS}, errors, parsed.phase)


def _problems(path: str, parsed: ParsedQuery, snapshot: CatalogSnapshot, asks: bool) -> dict[str, str]:
    if path not in SHARE_PATHS:
        return {"path": f"must be one of {', '.join(SHARE_PATHS)}"}
    if not asks:  # `/` with no question is a blank form, not the default model's ranking: nothing to save
        return {"query": EMPTY_QUESTION}
    if parsed.errors or parsed.workload is None:
        return parsed.errors or {"query": "no workload in this query"}
    try:  # a link must replay: its model and filter ids have to resolve now, not fail when opened
        model_spec_for(parsed.workload, snapshot)
    except UnknownId as exc:
        return exc.errors
    return {}


@router.get("/s/{slug}", include_in_schema=False)
def open_share(slug: str, request: Request, session: SessionDep, snapshot: SnapshotDep) -> Response:
    slug, twin = split_twin_suffix(slug)
    try:
        link = stored_links.load(session, slug[:16])
    except stored_links.MissingPrices as exc:
        raise not_found("price snapshot", exc.snapshot_id) from None
    if link is None:
        raise not_found("saved link", slug, "slug")
    replayed = replay(link, snapshot)
    parsed, saved = replayed.parsed, replayed.saved
    # The saved page's own query is only its view (`?page=2`, `?sort=ttft`): the question is the link's.
    view_errors: dict[str, str] = {}
    asked = dict(request.query_params)
    parsed.view = parse_view(asked, view_errors, parsed.phase)
    for name in asked:  # what parse_view left: a question field, which a saved link fixes (the live page takes it)
        view_errors.setdefault(name, "a saved link's question is fixed: only sort, show and page may follow it")
    if view_errors:
        parsed.errors.update(view_errors)
        parsed.workload = None  # a 422 naming the field, beside the form, as on the live page
    if twin is not None:
        return _saved_twin(parsed, replayed.snapshot, slug, saved, twin, link.path)
    template = "compare.html" if link.path == "/compare" else "index.html"
    return render_workbench(
        request,
        parsed,
        replayed.snapshot,
        link.path,
        template,
        {"saved": saved, "side_by_side": link.path == "/compare"},
        view_base=f"/s/{slug}",
    )


def _saved_twin(
    parsed: ParsedQuery, prices: CatalogSnapshot, slug: str, saved: dict[str, Any], twin: str, path: str
) -> Response:
    """`/s/{slug}.json` (the rank API's body and `saved`; a saved /compare's `cards` too) or `.csv`: every option,
    ranked with the saved prices, in the view's sort; a question that no longer reads, or a bad view, is a 422 naming
    the field."""
    errors = dict(parsed.errors) or ({} if parsed.workload else {"model": "the saved question has no workload"})
    payload: dict[str, Any] = {}
    if not errors and parsed.workload is not None:
        try:
            payload = ranking.rank_payload(parsed.phase, parsed.workload, prices, f"/s/{slug}", sort=parsed.view.sort)
            if path == "/compare":
                payload.update(compare_cards(parsed.phase, parsed.workload, prices, f"/s/{slug}"))
        except UnknownId as exc:  # saved before the check at creation, model since removed
            errors.update(exc.errors)
    if errors:
        return json_response(field_errors_body(errors), 422)
    if twin == "csv":
        return csv_response(payload, f"gpumatch-saved-{slug}.csv")
    return json_response({**payload, "saved": saved})
