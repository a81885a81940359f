"""The catalog edit counter: bumped in the same transaction as any row a seed, import or admin call changes."""

from __future__ import annotations

from sqlmodel import Session

from app.models.hardware import utcnow
from app.models.versions import CatalogRevision

REVISION_ROW_ID = 1


def current_revision(session: Session) -> int:
    row = session.get(CatalogRevision, REVISION_ROW_ID)
    return row.revision if row else 0


def bump_revision(session: Session) -> None:
    row = session.get(CatalogRevision, REVISION_ROW_ID) or CatalogRevision(id=REVISION_ROW_ID)
    row.revision += 1
    row.changed_at = utcnow()
    session.add(row)
