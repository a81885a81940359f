"""Saved links: POST /share stores a question and the prices it was ranked with; /s/{slug} replays it."""

from __future__ import annotations

import hashlib
from dataclasses import fields
from datetime import date
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.models import ShareLink
from app.scoring.specs import CatalogSnapshot, Offer
from app.service.workload_query import parse
from app.web.deps import SessionDep, SnapshotDep, not_found
from app.web.errors import wants_json
from app.web.rank.pages import render_workbench
from app.web.render import json_response, split_json_suffix

router = APIRouter(include_in_schema=False)
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


def slug_for(path: str, query: str, offers_json: str) -> str:
    """Same question at the same prices → same slug, so repeated or concurrent saves never collide."""
    return hashlib.sha256(f"{path}?{query}\n{offers_json}".encode()).hexdigest()[:12]


def save(session: Session, path: str, query: str, snapshot: CatalogSnapshot) -> str:
    offers_json = offers_to_json(snapshot.offers)
    slug = slug_for(path, query, offers_json)
    if session.get(ShareLink, slug) is None:
        newest = max((o.as_of for o in snapshot.offers if o.as_of), default=None)
        session.add(ShareLink(slug=slug, path=path, query=query, offers_json=offers_json, prices_as_of=newest))
        try:
            session.commit()
        except IntegrityError:  # a concurrent save of the same link won the race: same content
            session.rollback()
    return slug


def price_changes(saved: tuple[Offer, ...], current: tuple[Offer, ...]) -> int:
    """Offers added, removed or repriced since the link was saved."""

    def key(o: Offer) -> tuple[Any, ...]:
        return (o.provider_id, o.gpu_id, o.gpu_count, o.price_type, o.instance_type, o.region)

    before = {key(o): o.usd_per_gpu_hour for o in saved}
    after = {key(o): o.usd_per_gpu_hour for o in current}
    return sum(1 for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@router.post("/share")
def create_share(
    session: SessionDep,
    snapshot: SnapshotDep,
    request: Request,
    path: Annotated[str, Form(max_length=32)],
    query: Annotated[str, Form(max_length=4000)],
) -> Response:
    parsed = parse(_query_items(query))
    if path not in SHARE_PATHS or parsed.errors:
        problems = parsed.errors or {"path": f"must be one of {', '.join(SHARE_PATHS)}"}
        return json_response({"detail": [{"field": k, "message": v} for k, v in problems.items()]}, 422)
    slug = save(session, path, parsed.canonical, snapshot)
    if wants_json(request):
        return json_response({"slug": slug, "url": f"/s/{slug}"}, 201)
    return RedirectResponse(f"/s/{slug}", status_code=303)


def _query_items(query: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(query, keep_blank_values=True)[:200]


@router.get("/s/{slug}")
def open_share(slug: str, request: Request, session: SessionDep, snapshot: SnapshotDep) -> Response:
    slug, as_json = split_json_suffix(slug)
    link = session.get(ShareLink, slug[:16])
    if link is None:
        raise not_found("saved link", slug)
    saved_offers = offers_from_json(link.offers_json)
    replay = CatalogSnapshot(
        gpus=snapshot.gpus,
        models=snapshot.models,
        offers=saved_offers,
        token_prices=snapshot.token_prices,
        version=f"saved-{slug}",
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
    if as_json:
        from app.service import rank as ranking

        assert parsed.workload is not None
        payload = ranking.rank_payload(parsed.phase, parsed.workload, replay, f"/s/{slug}")
        return json_response({**payload, "saved": saved})
    template = "compare.html" if link.path == "/compare" else "index.html"
    return render_workbench(
        request, parsed, replay, link.path, template, {"saved": saved, "side_by_side": link.path == "/compare"}
    )
