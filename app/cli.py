"""The `gpumatch` command: serve, db upgrade/seed, validate, rank."""

from __future__ import annotations

import argparse
import sys

from app.config import get_settings


def setup_database(database_url: str, seed_dir: object, quiet: bool = False) -> bool:
    """Migrate to head and load the seed; True when every seed file loaded."""
    from app.catalog import migrate, seed
    from app.db import make_engine

    migrate.upgrade(database_url)
    engine = make_engine(database_url)
    reports = seed.seed(engine, seed_dir)  # type: ignore[arg-type]
    engine.dispose()
    ok = True
    for report in reports:
        for error in report.errors:
            ok = False
            print(f"seed error: {error} (nothing from {report.file} was loaded)", file=sys.stderr)
        if not quiet and not report.errors:
            print(f"{report.file}: {report.inserted} new, {report.updated} updated "
                  f"({report.prices_changed} price changes), {report.unchanged} unchanged")
    return ok


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    if not args.no_setup:
        setup_database(settings.database_url, settings.seed_dir, quiet=True)
    uvicorn.run(
        "app.main:create_app", factory=True, host=args.host or settings.host, port=args.port or settings.port,
        workers=args.workers, proxy_headers=True, forwarded_allow_ips="*" if args.behind_proxy else None,
        log_level="info",
    )
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    from app.catalog import migrate

    settings = get_settings()
    if args.action == "upgrade":
        migrate.upgrade(settings.database_url)
        print("database at head")
        return 0
    if args.action == "check":
        migrate.check(settings.database_url)
        print("models and migrations agree")
        return 0
    return 0 if setup_database(settings.database_url, settings.seed_dir) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpumatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate, seed and serve the dashboard")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-setup", action="store_true", help="skip migrations and seeding")
    serve.add_argument("--behind-proxy", action="store_true", help="trust X-Forwarded-* from any proxy")
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database maintenance")
    db.add_argument("action", choices=["upgrade", "seed", "check"])
    db.set_defaults(func=cmd_db)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
