"""`gpumatch prices import FILE.csv [--by NAME]`: reprice and add offers from a CSV like seed_data/offers.csv."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

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


def cmd_prices_import(args: argparse.Namespace) -> int:
    """0 when the whole file loaded, 1 when it was rejected (nothing changed)."""
    from app.catalog import migrate, price_import
    from app.catalog.seed import RowError
    from app.db import make_engine

    path = Path(args.file)
    if not path.is_file():
        print(f"prices import: no such file {path}", file=sys.stderr)
        return 1
    settings = get_settings()
    migrate.upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        report = price_import.import_csv(engine, path, args.by or default_actor())
    except RowError as error:
        print(f"prices import rejected: {error} (nothing was changed)", file=sys.stderr)
        return 1
    except (UnicodeDecodeError, OSError) as error:
        print(f"prices import: cannot read {path}: {error}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    print(
        f"{path.name}: {report.inserted} new, {report.updated} updated "
        f"({report.prices_changed} price changes), {report.unchanged} unchanged"
    )
    return 0


def add_prices_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    prices = sub.add_parser("prices", help="update offer prices")
    actions = prices.add_subparsers(dest="action", required=True)
    load = actions.add_parser("import", help="insert/reprice offers from a CSV (offers.csv columns), all or nothing")
    load.add_argument("file", help="CSV with the columns of seed_data/offers.csv")
    load.add_argument("--by", type=actor_name, help='who made the change, for price_history (default "cli:<login>")')
    load.set_defaults(func=cmd_prices_import)
