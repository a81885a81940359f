"""Price updates from a CSV file (CLI) or a JSON list (admin API): the seed loader's parsing and upsert.

A batch is one transaction: the first bad row (its CSV line or list index, and the field) rejects it all.
Every new offer and every changed price appends a price_history row with who, when and the source URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.catalog import rules
from app.catalog.prices import price_formats
from app.catalog.setup.seed import OFFER_KEY, FileReport, RowError, load_rows, parse_row, read_file, validate_row
from app.models.hardware import Offer, Provider

MAX_BATCH_OFFERS = 5_000  # a whole provider's price list fits; more is a mistake or an attack


def import_csv(engine: Engine, path: Path, changed_by: str) -> FileReport:
    """Raise RowError (line counts the header as 1) or return what changed. A row repricing a known offer keeps
    the stored value of each of KEPT_FIELDS the header has no column for, as a JSON row leaving it out does."""
    rows = read_file(path, Offer)
    if len(rows) > MAX_BATCH_OFFERS:
        raise RowError(path.name, MAX_BATCH_OFFERS + 2, "row", f"more than {MAX_BATCH_OFFERS} offers")
    absent = [name for name in KEPT_FIELDS if name not in price_formats.read_header(path)]
    known = known_offers(engine) if absent else {}
    for _line, row in rows:
        current = known.get(tuple(str(getattr(row, k)) for k in OFFER_KEY))
        for name in absent if current is not None else ():
            setattr(row, name, getattr(current, name))
    return load_rows(engine, path.name, Offer, OFFER_KEY, rows, changed_by)


@dataclass
class ImportSource:
    """How a file was read: its format, the date its prices carry (and where that came from), the provider."""

    format: str
    as_of: date | None = None
    as_of_from: str = ""  # "--as-of" | "file modification date" | "" (gpumatch files carry their own)
    provider: str = ""
    skipped: dict[str, int] = field(default_factory=dict)


def file_date(path: Path) -> date:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date()


class BadOption(ValueError):
    """An option the import cannot use (`field`: the option's name): one the file's format takes from each row
    instead, or a provider id the catalog does not know."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _refuse_unused_options(provider: str | None, as_of: date | None, source_url: str | None) -> None:
    """A gpumatch file names each row's provider_id, as_of and source_url: an option for them would be ignored."""
    for name, value in (("provider", provider), ("as_of", as_of), ("source_url", source_url)):
        if value is not None:
            column = "provider_id" if name == "provider" else name
            raise BadOption(name, f"a gpumatch file gives each row's {column} itself; leave {name} out")


def import_file(
    engine: Engine,
    path: Path,
    changed_by: str,
    fmt: str | None = None,
    provider: str | None = None,
    as_of: date | None = None,
    source_url: str | None = None,
) -> tuple[FileReport, ImportSource]:
    """Any supported format (detected from the header unless given) through the one validated, all-or-nothing
    load. SkyPilot/gpuhunt prices are dated `as_of`, else the file's modification date."""
    header = price_formats.read_header(path)
    fmt = fmt or price_formats.detect_format(header, path.name)
    if fmt == "gpumatch":
        _refuse_unused_options(provider, as_of, source_url)
        return import_csv(engine, path, changed_by), ImportSource("gpumatch")
    _check_options(as_of, source_url)
    dated = as_of or file_date(path)
    source = ImportSource(
        fmt,
        dated,
        "--as-of" if as_of else "file modification date",
        _known_provider(engine, provider, default_provider(path, fmt), rows_say_it="provider" in header),
    )
    converted = price_formats.convert(path, fmt, source.provider, dated, source_url)
    source.skipped = converted.skipped
    if not converted.rows:
        raise RowError(path.name, 1, "row", "no offer with a known GPU in the file")
    if len(converted.rows) > MAX_BATCH_OFFERS:
        raise RowError(path.name, MAX_BATCH_OFFERS + 2, "row", f"more than {MAX_BATCH_OFFERS} offers")
    known = known_offers(engine)
    rows = [(line, parse_row(Offer, keep_known(raw, known), path.name, line)) for line, raw in converted.rows]
    return load_rows(engine, path.name, Offer, OFFER_KEY, rows, changed_by), source


# What a SkyPilot/gpuhunt row does not say, or an admin API row leaves out: repricing an offer keeps these from the
# catalog, not blanks (its machine, terms and notes).
KEPT_FIELDS = (
    "price_note",
    "notes",
    "min_term_hours",
    "gpus_per_node",
    "intra_node_link",
    "inter_node_fabric",
    "inter_node_gbps_per_gpu",
    "max_nodes",
    "scaleup_domain_gpus",
    "topology_source",
)


def known_offers(engine: Engine) -> dict[tuple[str, ...], Offer]:
    with Session(engine) as session:
        return {tuple(str(getattr(o, k)) for k in OFFER_KEY): o for o in session.exec(select(Offer)).all()}


def keep_known(raw: dict[str, str], known: dict[tuple[str, ...], Offer]) -> dict[str, str]:
    """The row, with the machine and notes of the offer it reprices (if any) filled in."""
    current = known.get(tuple(raw.get(k, "") for k in OFFER_KEY))
    if current is None:
        return raw
    kept = {name: "" if getattr(current, name) is None else str(getattr(current, name)) for name in KEPT_FIELDS}
    return {**raw, **kept}


def keep_omitted(item: dict[str, Any], known: dict[tuple[str, ...], Offer]) -> dict[str, Any]:
    current = known.get(tuple(str(item.get(k, "")) for k in OFFER_KEY))
    if current is None:
        return item
    return {**{name: getattr(current, name) for name in KEPT_FIELDS if name not in item}, **item}


def _check_options(as_of: date | None, source_url: str | None) -> None:
    """The options every converted row carries, checked once at the option (BadOption) rather than reported as
    line 2's cell ('line 2, field as_of: as_of is in the future' for --as-of 2099-11-01)."""
    try:
        rules.not_future(as_of)
    except ValueError as error:
        raise BadOption("as_of", str(error)) from None
    try:
        rules.http_url(source_url or "", allow_empty=True)
    except ValueError as error:
        raise BadOption("source_url", str(error)) from None


def _known_provider(engine: Engine, given: str | None, from_path: str, rows_say_it: bool) -> str:
    """The provider id the rows are for, or BadOption at `provider`: one guessed from the file name was reported
    as every row's unknown provider_id ('export.csv line 2, field provider_id: unknown id export'). A file whose
    rows name their provider uses the option or the name only for a row that does not: that row says so."""
    chosen = price_formats.provider_id(given or from_path)
    with Session(engine) as session:
        known = sorted(session.exec(select(Provider.id)).all())
    if chosen in known or (rows_say_it and given is None):
        return chosen
    where = "" if given else ", taken from the file's name or folder: give --provider"
    raise BadOption("provider", f"unknown provider id {chosen!r}{where} (known: {', '.join(known)})")


def default_provider(path: Path, fmt: str) -> str:
    """SkyPilot keeps one cloud per folder (aws/vms.csv); gpuhunt one provider per file (aws.csv)."""
    return path.parent.name if fmt == "skypilot" else path.stem


def import_items(engine: Engine, items: Sequence[dict[str, Any]], changed_by: str) -> FileReport:
    """Raise RowError whose `line` is the 0-based list index, or return what changed. An item without one of
    KEPT_FIELDS (absent, not null) keeps the stored offer's value: a price update is not a machine update."""
    known = known_offers(engine)
    rows = [
        (index, validate_row(Offer, keep_omitted(dict(item), known), "request", index))
        for index, item in enumerate(items)
    ]
    return load_rows(engine, "request", Offer, OFFER_KEY, rows, changed_by)


def summary(report: FileReport) -> dict[str, int]:
    return {
        "inserted": report.inserted,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "prices_changed": report.prices_changed,
        "newer_kept": report.newer_kept,
    }
