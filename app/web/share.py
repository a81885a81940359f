"""Saved links: POST /share stores a question and the prices it was ranked with; /s/{slug} replays it.

The prices are stored once per distinct offer list (a `price_snapshot` row keyed by the sha256 of
its JSON, one per catalog version in practice) and each link references it, so a link costs its
query and a 64-character key. POST /share refuses cross-site requests (an Origin that is not this
host, or Sec-Fetch-Site: cross-site) and questions whose model the catalog does not know; it is
rate-limited per client in app/web/rate_limit.py.
"""

from __future__ import annotations

import hashlib
from dataclasses import fields
from datetime import date
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlsplit

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.models import PriceSnapshot, ShareLink
from app.scoring.specs import CatalogSnapshot, Offer
from app.service import rank as ranking
from app.service.moved_offers import relabel_moved_offers
from app.service.workload_query import ParsedQuery, parse, parse_view
from app.web.deps import SessionDep, SnapshotDep, not_found
from app.web.error_shape import error_body, field_errors_body
from app.web.errors import wants_json
from app.web.rank.csv_export import csv_response
from app.web.rank.pages import render_workbench
from app.web.render import json_response, split_twin_suffix
from app.web.share_request import SHARE_BODY, SHARE_RESPONSES, ShareCreated, ShareRequest, share_request

router = APIRouter(tags=["saved links"])
SHARE_PATHS = ("/", "/compare")
# The columns of links saved before offers carried their machine and terms; read back as they were.
LEGACY_OFFER_FIELDS = (
    "provider_id",
    "provider_name",
    "gpu_id",
    "gpu_count",
    "price_type",
    "usd_per_gpu_hour",
    "as_of",
    "instance_type",
    "region",
    "source_url",
    "offer_id",
)
OFFER_FIELDS = tuple(f.name for f in fields(Offer))


def offers_to_json(offers: tuple[Offer, ...]) -> str:
    """Every field of every offer (machine, terms and the stale flag too), so a replay ranks the same
    configurations at the same terms as the page that was saved."""
    rows = [{name: _plain(getattr(o, name)) for name in OFFER_FIELDS} for o in offers]
    return orjson.dumps(rows).decode()


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def offers_from_json(text: str) -> tuple[Offer, ...]:
    offers = []
    for row in orjson.loads(text):
        values = dict(zip(LEGACY_OFFER_FIELDS, row, strict=True)) if isinstance(row, list) else row
        values = {k: v for k, v in values.items() if k in OFFER_FIELDS}
        values["as_of"] = date.fromisoformat(values["as_of"]) if values.get("as_of") else None
        offers.append(Offer(**values))
    return tuple(offers)


def snapshot_id_for(offers_json: str) -> str:
    return hashlib.sha256(offers_json.encode()).hexdigest()  # migration 0005 computes it the same way


def slug_for(path: str, query: str, snapshot_id: str) -> str:
    """Same question at the same prices → same slug, so repeated or concurrent saves never collide."""
    return hashlib.sha256(f"{path}?{query}\n{snapshot_id}".encode()).hexdigest()[:12]


def _store_snapshot(session: Session, offers: tuple[Offer, ...]) -> str:
    offers_json = offers_to_json(offers)
    snapshot_id = snapshot_id_for(offers_json)
    if session.get(PriceSnapshot, snapshot_id) is None:
        session.add(PriceSnapshot(id=snapshot_id, offers_json=offers_json))
        _commit_or_lost_race(session)
    return snapshot_id


def _commit_or_lost_race(session: Session) -> None:
    try:
        session.commit()
    except IntegrityError:  # a concurrent save of the same row won the race: same content
        session.rollback()


def save(session: Session, path: str, query: str, snapshot: CatalogSnapshot) -> str:
    snapshot_id = _store_snapshot(session, snapshot.offers)
    slug = slug_for(path, query, snapshot_id)
    if session.get(ShareLink, slug) is None:
        newest = max((o.as_of for o in snapshot.offers if o.as_of), default=None)
        session.add(ShareLink(slug=slug, path=path, query=query, snapshot_id=snapshot_id, prices_as_of=newest))
        _commit_or_lost_race(session)
    return slug


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


def price_changes(saved: tuple[Offer, ...], current: tuple[Offer, ...]) -> int:
    """Offers added, removed or repriced since the link was saved."""

    def key(o: Offer) -> tuple[Any, ...]:
        return (o.provider_id, o.gpu_id, o.gpu_count, o.price_type, o.instance_type, o.region)

    before = {key(o): o.usd_per_gpu_hour for o in saved}
    after = {key(o): o.usd_per_gpu_hour for o in current}
    return sum(1 for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@router.post(
    "/share",
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
        return json_response(error_body(403, refused), 403)
    parsed = parse(_query_items(fields.query))
    problems = _problems(fields.path, parsed, snapshot)
    if problems:
        return json_response(field_errors_body(problems), 422)
    slug = save(session, fields.path, parsed.canonical, snapshot)
    if wants_json(request):
        return json_response({"slug": slug, "url": f"/s/{slug}"}, 201)
    return RedirectResponse(f"/s/{slug}", status_code=303)


def _problems(path: str, parsed: ParsedQuery, snapshot: CatalogSnapshot) -> dict[str, str]:
    if path not in SHARE_PATHS:
        return {"path": f"must be one of {', '.join(SHARE_PATHS)}"}
    if parsed.errors or parsed.workload is None:
        return parsed.errors or {"query": "no workload in this query"}
    try:  # a link must replay: its model and filter ids have to resolve now, not fail when opened
        ranking.model_spec_for(parsed.workload, snapshot)
    except ranking.UnknownId as exc:
        return exc.errors
    return {}


def _query_items(query: str) -> list[tuple[str, str]]:
    return parse_qsl(query, keep_blank_values=True)[:200]


@router.get("/s/{slug}", include_in_schema=False)
def open_share(slug: str, request: Request, session: SessionDep, snapshot: SnapshotDep) -> Response:
    slug, twin = split_twin_suffix(slug)
    link = session.get(ShareLink, slug[:16])
    if link is None:
        raise not_found("saved link", slug, "slug")
    stored = session.get(PriceSnapshot, link.snapshot_id)
    if stored is None:  # the foreign key forbids it; a hand-edited database could still get here
        raise not_found("price snapshot", link.snapshot_id)
    saved_offers = relabel_moved_offers(offers_from_json(stored.offers_json), snapshot)
    replay = CatalogSnapshot(
        gpus=snapshot.gpus,
        models=snapshot.models,
        offers=saved_offers,
        token_prices=snapshot.token_prices,
        version=f"saved-{slug}",
        providers=snapshot.providers,
    )
    parsed = parse(_query_items(link.query))
    changed = price_changes(saved_offers, snapshot.offers)
    saved = {
        "slug": slug,
        "prices_as_of": link.prices_as_of,
        "saved_at": link.created_at,
        "offers_changed_since": changed,
        "current_url": f"{link.path}?{link.query}",
    }
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
        return _saved_twin(parsed, replay, slug, saved, twin)
    template = "compare.html" if link.path == "/compare" else "index.html"
    return render_workbench(
        request,
        parsed,
        replay,
        link.path,
        template,
        {"saved": saved, "side_by_side": link.path == "/compare"},
        view_base=f"/s/{slug}",
    )


def _saved_twin(parsed: ParsedQuery, replay: CatalogSnapshot, slug: str, saved: dict[str, Any], twin: str) -> Response:
    """`/s/{slug}.json` (the rank API's body and `saved`) or `.csv`: every option, ranked with the saved prices,
    in the view's sort; a question that no longer reads, or a bad view, is a 422 naming the field."""
    errors = dict(parsed.errors) or ({} if parsed.workload else {"model": "the saved question has no workload"})
    payload: dict[str, Any] = {}
    if not errors and parsed.workload is not None:
        try:
            payload = ranking.rank_payload(parsed.phase, parsed.workload, replay, f"/s/{slug}", sort=parsed.view.sort)
        except ranking.UnknownId as exc:  # saved before the check at creation, model since removed
            errors.update(exc.errors)
    if errors:
        return json_response(field_errors_body(errors), 422)
    if twin == "csv":
        return csv_response(payload, f"gpumatch-saved-{slug}.csv")
    return json_response({**payload, "saved": saved})
