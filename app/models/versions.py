"""The tables that pin a ranking to a moment: the catalog revision counter, the price snapshots a
ranking used, and the saved share links that point at them."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from app.models.hardware import utcnow


class CatalogRevision(SQLModel, table=True):
    """One row counting catalog edits: every seed, import or admin change that alters a row bumps it,
    so a running server notices non-price edits too (issue 11)."""

    __tablename__ = "catalog_revision"

    id: int = Field(default=1, primary_key=True)
    revision: int = 0
    changed_at: datetime = Field(default_factory=utcnow)


class PriceSnapshot(SQLModel, table=True):
    """The offers a ranking used, stored once per distinct content (one row per catalog version in
    practice): saved links reference it, so a thousand links cost a thousand short rows, not a
    thousand copies of the price list."""

    __tablename__ = "price_snapshot"

    id: str = Field(primary_key=True, max_length=64, description="sha256 hex of offers_json")
    offers_json: str = Field(sa_type=Text, description="[{offer field: value}, …] as ranked")
    created_at: datetime = Field(default_factory=utcnow)


class ShareLink(SQLModel, table=True):
    """A saved comparison: the canonical query and the price snapshot it was ranked with."""

    __tablename__ = "share_link"

    slug: str = Field(primary_key=True, max_length=16)
    path: str = Field(max_length=32, description="the page it reproduces: / or /compare")
    query: str = Field(max_length=4000)
    snapshot_id: str = Field(foreign_key="price_snapshot.id", index=True, max_length=64)
    prices_as_of: date | None = None
    created_at: datetime = Field(default_factory=utcnow)
