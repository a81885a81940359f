"""The `gpumatch` command: serve, db upgrade/seed/check, validate, accuracy-report, device-check, rank, plan,
precision, own, disagg, mix, prices import, catalog gpus/offers/models/providers."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NoReturn

from app.cli.accuracy.commands import add_accuracy_parsers
from app.cli.common import setup_database
from app.cli.examples import add_examples
from app.cli.prices import add_prices_parsers
from app.cli.rank import add_rank_parsers
from app.config import get_settings


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    if args.behind_proxy and not get_settings().trusted_proxies:
        # The proxy on this host; anything else must be named (docs/SECURITY.md). Workers inherit it.
        os.environ["GPUMATCH_TRUSTED_PROXIES"] = "127.0.0.1"
        get_settings.cache_clear()
    settings = get_settings()
    if not args.no_setup:
        setup_database(settings.database_url, settings.seed_dir, quiet=True)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=args.host or settings.host,
        port=args.port or settings.port,
        workers=args.workers,
        proxy_headers=False,  # the app reads X-Forwarded-* itself, from GPUMATCH_TRUSTED_PROXIES only (app/web/edge.py)
        log_level="info",
    )
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    from app.catalog.setup import migrate

    settings = get_settings()
    if args.action == "upgrade":
        migrate.upgrade(settings.database_url)
        print("database at head")
        return 0
    if args.action == "check":
        return _db_check(settings.database_url)
    return 0 if setup_database(settings.database_url, settings.seed_dir) else 1


def _db_check(database_url: str) -> int:
    """0 when the database is at head and the models agree with the migrations; else 1 with alembic's reason."""
    from alembic.util import CommandError

    from app.catalog.setup import migrate

    try:
        migrate.check(database_url)
    except CommandError as error:  # not at head, or models the migrations lack
        hint = " (run `gpumatch db upgrade`)" if "not up to date" in str(error) else ""
        print(f"db check: {error}{hint}", file=sys.stderr)
        return 1
    print("models and migrations agree")
    return 0


class _WholeFlagsParser(argparse.ArgumentParser):
    """Flags only as spelled out, in every subcommand (their parsers are of this class too): an abbreviation would
    read `mix --limit 1` as `--limits-at 1` and name a flag the user never typed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # One line, as a refused field's `--flag: why`: argparse's usage block (27 lines for `rank inference`)
        # buried the reason under every flag the command takes.
        self.exit(2, f"{self.prog}: {message} (`{self.prog} --help` lists what it takes)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _WholeFlagsParser(
        prog="gpumatch",
        description=__doc__,
        epilog="`gpumatch COMMAND --help` says what each flag means and ends with examples to copy.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate, seed and serve the dashboard")
    serve.add_argument("--host", help="address to listen on (default GPUMATCH_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default GPUMATCH_PORT, 8000)")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (default 1); several share one database: Postgres, docs/OPERATIONS.md",
    )
    serve.add_argument("--no-setup", action="store_true", help="skip migrations and seeding")
    serve.add_argument(
        "--behind-proxy",
        action="store_true",
        help="trust X-Forwarded-* from GPUMATCH_TRUSTED_PROXIES (default 127.0.0.1)",
    )
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database maintenance")
    db.add_argument(
        "action",
        choices=["upgrade", "seed", "check"],
        help="upgrade: migrate GPUMATCH_DATABASE_URL to head; seed: migrate, then load GPUMATCH_SEED_DIR "
        "(seed_data/; idempotent); check: exit 1 unless at head and the models agree with the migrations",
    )
    db.set_defaults(func=cmd_db)

    add_accuracy_parsers(sub)
    add_rank_parsers(sub)
    from app.cli.plan import add_plan_parsers

    add_plan_parsers(sub)
    from app.cli.precision import add_precision_parser

    add_precision_parser(sub)
    from app.cli.own import add_own_parser

    add_own_parser(sub)
    from app.cli.disagg import add_disagg_parser

    add_disagg_parser(sub)
    from app.cli.mix import add_mix_parser

    add_mix_parser(sub)
    add_prices_parsers(sub)
    from app.cli.catalog import add_catalog_parsers

    add_catalog_parsers(sub)
    add_examples(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from sqlalchemy.exc import OperationalError

    from app.db import DatabaseUrlError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except OperationalError as error:  # no such server, refused, bad credentials: one line, not a traceback
        reason = str(error.orig or error).strip().splitlines()[0]
        print(f"gpumatch: cannot open the database at GPUMATCH_DATABASE_URL: {reason}", file=sys.stderr)
        return 1
    except DatabaseUrlError as error:  # a typo in the URL was a SQLAlchemy traceback
        print(f"gpumatch: GPUMATCH_DATABASE_URL: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `gpumatch rank … | head` closed the pipe: stop quietly, as other Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's own flush would raise again
        return 1


if __name__ == "__main__":
    sys.exit(main())
