"""`gpumatch prices import FILE.csv [--by NAME] [--format F] [--provider ID] [--as-of DATE] [--source-url URL]`:
reprice and add offers from a CSV like seed_data/offers.csv, a SkyPilot catalog CSV or a dstack gpuhunt CSV."""

from __future__ import annotations

import argparse
import csv
import getpass
import sys
from datetime import date
from pathlib import Path

from app.catalog.prices import price_import
from app.catalog.prices.price_formats import FORMATS
from app.catalog.setup import migrate
from app.config import get_settings


def default_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"[:MAX_ACTOR_CHARS]
    except (KeyError, OSError):  # no login name in some containers
        return "cli:unknown"


MAX_ACTOR_CHARS = 120  # price_history.changed_by


def actor_name(text: str) -> str:
    if not 1 <= len(text) <= MAX_ACTOR_CHARS:
        raise argparse.ArgumentTypeError(f"1 to {MAX_ACTOR_CHARS} characters")
    return text


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a date like 2026-12-01") from None


def describe(source: price_import.ImportSource) -> str:
    if source.format == "gpumatch":
        return "format gpumatch (dates from the as_of column)"
    text = f"format {source.format}, provider {source.provider}, prices as of {source.as_of} ({source.as_of_from})"
    skipped = ", ".join(f"{count} {reason}" for reason, count in sorted(source.skipped.items()))
    return text + (f"; skipped: {skipped}" if skipped else "")


def cmd_prices_import(args: argparse.Namespace) -> int:
    """0 when the whole file loaded, 1 when a row was rejected (nothing changed), 2 when the file cannot be read
    (missing, not text, not CSV), as every other command's bad input."""
    from app.catalog.setup.seed import RowError
    from app.db import make_engine

    path = Path(args.file)
    if not path.is_file():
        print(f"prices import: no such file {path}", file=sys.stderr)
        return 2
    settings = get_settings()
    migrate.upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        report, source = price_import.import_file(
            engine, path, args.by or default_actor(), args.format, args.provider, args.as_of, args.source_url
        )
    except RowError as error:
        print(f"prices import rejected: {error} (nothing was changed)", file=sys.stderr)
        return 1
    except price_import.BadOption as error:  # bad input, as a bad flag: exit 2 naming it
        print(f"--{error.field.replace('_', '-')}: {error.message}", file=sys.stderr)
        return 2
    except (UnicodeDecodeError, OSError, csv.Error) as error:
        print(f"prices import: cannot read {path}: {error}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(f"{path.name}: {describe(source)}")
    print(report.describe())
    return 0


def add_prices_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    prices = sub.add_parser("prices", help="update offer prices")
    actions = prices.add_subparsers(dest="action", required=True)
    load = actions.add_parser(
        "import", help="insert/reprice offers from a CSV (offers.csv, SkyPilot or gpuhunt columns), all or nothing"
    )
    load.add_argument("file", help="CSV: seed_data/offers.csv columns, a SkyPilot vms.csv or a gpuhunt CSV")
    load.add_argument("--format", choices=FORMATS, help="default: detected from the header")
    load.add_argument("--provider", help="provider id for SkyPilot/gpuhunt rows (default: folder / file name)")
    load.add_argument(
        "--as-of", type=iso_date, help="date of SkyPilot/gpuhunt prices (default: the file's modification date)"
    )
    load.add_argument("--source-url", help="where the SkyPilot/gpuhunt file came from (default: the tool's repo)")
    load.add_argument("--by", type=actor_name, help='who made the change, for price_history (default "cli:<login>")')
    load.set_defaults(func=cmd_prices_import)
