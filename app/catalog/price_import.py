"""Price updates from a CSV file (CLI) or a JSON list (admin API): the seed loader's parsing and upsert.

A batch is one transaction: the first bad row (its CSV line or list index, and the field) rejects it all.
Every new offer and every changed price appends a price_history row with who, when and the source URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from app.catalog.seed import OFFER_KEY, FileReport, RowError, load_rows, read_file, validate_row
from app.models import Offer

MAX_BATCH_OFFERS = 5_000  # a whole provider's price list fits; more is a mistake or an attack


def import_csv(engine: Engine, path: Path, changed_by: str) -> FileReport:
    """Raise RowError (line counts the header as 1) or return what changed."""
    rows = read_file(path, Offer)
    if len(rows) > MAX_BATCH_OFFERS:
        raise RowError(path.name, MAX_BATCH_OFFERS + 2, "row", f"more than {MAX_BATCH_OFFERS} offers")
    return load_rows(engine, path.name, Offer, OFFER_KEY, rows, changed_by)


def import_items(engine: Engine, items: Sequence[dict[str, Any]], changed_by: str) -> FileReport:
    """Raise RowError whose `line` is the 0-based list index, or return what changed."""
    rows = [(index, validate_row(Offer, dict(item), "request", index)) for index, item in enumerate(items)]
    return load_rows(engine, "request", Offer, OFFER_KEY, rows, changed_by)


def summary(report: FileReport) -> dict[str, int]:
    return {
        "inserted": report.inserted,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "prices_changed": report.prices_changed,
    }
