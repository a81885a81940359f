"""Load seed_data/*.csv into the catalog: idempotent on natural keys, one transaction per file.

A malformed row is reported with its file, line and field, and that file loads nothing.
Every new or changed offer price appends a row to price_history.
"""

from __future__ import annotations

import csv
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, select

from app.catalog.revision import bump_revision
from app.models.hardware import Gpu, Offer, PriceHistory, Provider
from app.models.llm import LlmModel, TokenPrice
from app.models.reference import QualityResult, TcoInput
from app.scoring.input_checks.messages import error_message

OFFER_KEY = ("provider_id", "gpu_id", "gpu_count", "price_type", "instance_type", "region")
PRICE_FIELDS = ("usd_per_hour", "usd_per_gpu_hour")
# One reading of an offer's price: what it was, when, where it was read, and the words about it (price_note, notes:
# "price from the provider's own article, not its price list"). A load never replaces a newer reading with an older
# one (newer_price_kept); the machine and terms columns still update.
PRICE_READING = (*PRICE_FIELDS, "as_of", "source_url", "retrieved_via", "verification", "price_note", "notes")
SEED_ACTOR = "seed"

# (file, table, natural key), in foreign-key order.
SEED_FILES: tuple[tuple[str, type[SQLModel], tuple[str, ...]], ...] = (
    ("providers.csv", Provider, ("id",)),
    ("gpus.csv", Gpu, ("id",)),
    ("models.csv", LlmModel, ("id",)),
    ("offers.csv", Offer, OFFER_KEY),
    ("token_prices.csv", TokenPrice, ("provider_id", "provider_model_id")),
    ("quality.csv", QualityResult, ("model", "precision", "method", "benchmark")),
    ("tco.csv", TcoInput, ("item", "gpu_id", "unit")),
)


@dataclass
class RowError(Exception):
    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file} line {self.line}, field {self.field}: {self.message}"


@dataclass
class FileReport:
    file: str
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    prices_changed: int = 0
    newer_kept: int = 0  # offers whose stored price is newer than the row's: the stored price stays
    errors: list[RowError] = field(default_factory=list)

    def describe(self) -> str:
        kept = f", {self.newer_kept} newer stored prices kept" if self.newer_kept else ""
        return (
            f"{self.file}: {self.inserted} new, {self.updated} updated ({self.prices_changed} price changes), "
            f"{self.unchanged} unchanged{kept}"
        )


def _allows_none(annotation: object) -> bool:
    return type(None) in typing.get_args(annotation) or isinstance(annotation, types.NoneType)


def parse_row(table: type[SQLModel], raw: dict[str, str], file: str, line: int) -> SQLModel:
    """Validate one CSV row against the table's fields; empty cells mean null or the default."""
    data: dict[str, object] = {}
    for name, info in table.model_fields.items():
        if name not in raw or raw[name] is None:
            continue
        cell = raw[name].strip()
        if cell == "":
            if _allows_none(info.annotation):
                data[name] = None
            continue
        data[name] = cell
    return validate_row(table, data, file, line)


def validate_row(table: type[SQLModel], data: dict[str, object], file: str, line: int) -> SQLModel:
    """One row through the table's validation; the first error becomes a RowError naming the field."""
    try:
        return table.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "row"
        raise RowError(file, line, where, error_message(first)) from None


def read_file(path: Path, table: type[SQLModel]) -> list[tuple[int, SQLModel]]:
    """Parse a whole seed file or raise the first RowError (line numbers count the header as 1)."""
    # utf-8-sig: a byte-order mark (Excel's "CSV UTF-8") is not part of the first column's name.
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [n for n, f in table.model_fields.items() if f.is_required() and n not in (reader.fieldnames or [])]
        if missing:
            raise RowError(path.name, 1, missing[0], "column missing from the header")
        return [
            (reader.line_num, parse_row(table, whole_row(raw, path.name, reader.line_num), path.name, reader.line_num))
            for raw in reader
        ]


def whole_row(raw: dict[str | None, Any], file: str, line: int) -> dict[str, Any]:
    """A csv.DictReader row, or a RowError where it has more fields than the header names (DictReader files the rest
    under None: they were dropped without a word, whatever column they were meant for)."""
    extra = raw.get(None)
    if extra:
        shown = ", ".join(repr(str(value)[:40]) for value in extra[:3])
        raise RowError(file, line, "row", f"{len(extra)} more field(s) than the header has columns ({shown})")
    return raw  # type: ignore[return-value]


def check_unique(file: str, table: type[SQLModel], key: tuple[str, ...], rows: list[tuple[int, SQLModel]]) -> None:
    """One row per natural key: a second one (a last-row-wins reprice, both prices in the history) is a RowError
    naming both lines, as a JSON object's repeated key is an error (strict_json)."""
    first: dict[tuple[object, ...], int] = {}
    for line, row in rows:
        found = first.setdefault(_key(row, key), line)
        if found != line:
            named = ", ".join(f"{name} {getattr(row, name)!s}" for name in key)
            raise RowError(
                file, line, "row", f"the same {table.__name__.lower()} as line {found} ({named}): give each once"
            )


def _key(row: SQLModel, key: tuple[str, ...]) -> tuple[object, ...]:
    return tuple(getattr(row, name) for name in key)


def upsert_rows(
    session: Session,
    table: type[SQLModel],
    key: tuple[str, ...],
    rows: list[tuple[int, SQLModel]],
    report: FileReport,
    changed_by: str,
) -> None:
    existing = {_key(row, key): row for row in session.exec(select(table)).all()}
    fields = [name for name in table.model_fields if name != "id"]
    for _line, row in rows:
        current = existing.get(_key(row, key))
        if current is None:
            session.add(row)
            session.flush()
            existing[_key(row, key)] = row  # a repeated key later in the batch updates this row, not a duplicate
            report.inserted += 1
            if isinstance(row, Offer):
                _append_history(session, row, changed_by)
            continue
        changes = {name: getattr(row, name) for name in fields if getattr(current, name) != getattr(row, name)}
        reading = isinstance(current, Offer) and bool(changes.keys() & set(PRICE_READING))
        if reading and newer_price_kept(session, current, row, changed_by):  # type: ignore[arg-type]
            changes = {name: value for name, value in changes.items() if name not in PRICE_READING}
            report.newer_kept += 1
        if not changes:
            report.unchanged += 1
            continue
        price_changed = any(name in changes for name in PRICE_FIELDS)
        for name, value in changes.items():
            setattr(current, name, value)
        session.add(current)
        report.updated += 1
        if isinstance(current, Offer) and price_changed:
            session.flush()
            _append_history(session, current, changed_by)
            report.prices_changed += 1


def newer_price_kept(session: Session, stored: Offer, incoming: Offer, changed_by: str) -> bool:
    """Whether the stored price is the newer reading, so `incoming` must not replace it: dated where the incoming row
    is not, or dated later. On the same day, a price someone imported beats the committed seed's (the seed loads after
    every upgrade and CLI command: it must not undo `gpumatch prices import`, the admin API or a reprice)."""
    if stored.as_of is None:
        return False
    if incoming.as_of is None or incoming.as_of < stored.as_of:
        return True
    if incoming.as_of > stored.as_of or changed_by != SEED_ACTOR:
        return False
    last = session.exec(
        select(PriceHistory.changed_by).where(PriceHistory.offer_id == stored.id).order_by(PriceHistory.id.desc())  # type: ignore[union-attr]
    ).first()
    return last is not None and last != SEED_ACTOR


def _append_history(session: Session, offer: Offer, changed_by: str) -> None:
    assert offer.id is not None
    session.add(
        PriceHistory(
            offer_id=offer.id,
            usd_per_hour=offer.usd_per_hour,
            usd_per_gpu_hour=offer.usd_per_gpu_hour,
            as_of=offer.as_of,
            source_url=offer.source_url,
            changed_by=changed_by,
        )
    )


def check_references(session: Session, file: str, rows: list[tuple[int, SQLModel]]) -> None:
    """Name an unknown provider, GPU or model id instead of failing on a foreign-key error."""
    known = {
        "provider_id": set(session.exec(select(Provider.id)).all()),
        "gpu_id": set(session.exec(select(Gpu.id)).all()),
        "model_id": set(session.exec(select(LlmModel.id)).all()),
    }
    for line, row in rows:
        for name, ids in known.items():
            value = getattr(row, name, None)
            if value is not None and value not in ids:
                raise RowError(file, line, name, f"unknown id {value!r}")


def load_rows(
    engine: Engine,
    file: str,
    table: type[SQLModel],
    key: tuple[str, ...],
    rows: list[tuple[int, SQLModel]],
    changed_by: str,
) -> FileReport:
    """Check references and upsert every row in one transaction; a RowError rolls all of it back.
    Any insert or change bumps the catalog revision, so running servers reload (not only on prices)."""
    report = FileReport(file)
    check_unique(file, table, key, rows)
    with Session(engine) as session:
        check_references(session, file, rows)
        upsert_rows(session, table, key, rows, report, changed_by)
        if report.inserted or report.updated:
            bump_revision(session)
        session.commit()
    return report


def seed_file(engine: Engine, path: Path, table: type[SQLModel], key: tuple[str, ...], changed_by: str) -> FileReport:
    try:
        return load_rows(engine, path.name, table, key, read_file(path, table), changed_by)
    except RowError as error:
        return FileReport(path.name, errors=[error])


def seed(engine: Engine, seed_dir: Path, changed_by: str = SEED_ACTOR) -> list[FileReport]:
    return [
        seed_file(engine, seed_dir / name, table, key, changed_by)
        for name, table, key in SEED_FILES
        if (seed_dir / name).exists()
    ]
