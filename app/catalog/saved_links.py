"""Saved links in the database: a question and the prices it was ranked with.

The prices are stored once per distinct offer list (a `price_snapshot` row keyed by the sha256 of its JSON, one per
catalog version in practice) and each link references it, so a link costs its query and a 64-character key.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any

import orjson
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.models.versions import PriceSnapshot, ShareLink
from app.scoring.specs import CatalogSnapshot, Offer

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


@dataclass(frozen=True, slots=True)
class SavedLink:
    """A saved link as stored: its question (path and canonical query) and the offers it was ranked with."""

    slug: str
    path: str
    query: str
    prices_as_of: date | None
    saved_at: datetime
    offers: tuple[Offer, ...]


class MissingPrices(LookupError):
    """A link whose price snapshot is gone: the foreign key forbids it, a hand-edited database could still have it."""

    def __init__(self, snapshot_id: str) -> None:
        super().__init__(snapshot_id)
        self.snapshot_id = snapshot_id


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
    """Store the question with the snapshot's offers; its slug."""
    snapshot_id = _store_snapshot(session, snapshot.offers)
    slug = slug_for(path, query, snapshot_id)
    if session.get(ShareLink, slug) is None:
        newest = max((o.as_of for o in snapshot.offers if o.as_of), default=None)
        session.add(ShareLink(slug=slug, path=path, query=query, snapshot_id=snapshot_id, prices_as_of=newest))
        _commit_or_lost_race(session)
    return slug


def load(session: Session, slug: str) -> SavedLink | None:
    """The link saved under `slug` with its offers as stored (None: no such link; MissingPrices: its prices are
    gone)."""
    link = session.get(ShareLink, slug)
    if link is None:
        return None
    stored = session.get(PriceSnapshot, link.snapshot_id)
    if stored is None:
        raise MissingPrices(link.snapshot_id)
    offers = offers_from_json(stored.offers_json)
    return SavedLink(link.slug, link.path, link.query, link.prices_as_of, link.created_at, offers)
