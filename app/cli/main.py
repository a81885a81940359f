"""The `gpumatch` command: serve, db upgrade/seed/check, validate, accuracy-report, device-check, rank, plan,
precision, own, disagg, mix, prices import."""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path
from typing import Any

from app.cli.common import (
    TEXT_ROWS,
    add_field_flags,
    add_hf_config_flag,
    add_limit_flag,
    load_snapshot,
    print_field_errors,
    print_flag_errors,
    read_hf_config,
    setup_database,
)
from app.cli.prices import add_prices_parsers
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


def cmd_validate(args: argparse.Namespace) -> int:
    import json

    from app.calibration.validate import CaseFileError, validate_file
    from app.cli.accuracy_tables import case_table, headline_tables, summary_tables

    snapshot = load_snapshot()
    try:
        result = validate_file(args.cases, snapshot.gpus, snapshot.models, loso=not args.in_sample_only)
    except (OSError, UnicodeDecodeError, csv.Error, CaseFileError) as error:  # the file itself: say so, no traceback
        print(f"gpumatch validate: cannot read {args.cases}: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, default=str))
        return 0
    if not args.summary_only:
        print(case_table(result["cases"]), end="\n\n")
    print(headline_tables(result["summary"]), end="\n\n")
    print("In-sample, every row weighted equally:")
    print(summary_tables(result["summary"]))
    return 0


def cmd_rank(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.service.query.canonical import canonical_query
    from app.service.query.phase import WORKLOADS
    from app.service.rank import rank_sort, ranking
    from app.service.rank.model_spec import UnknownId

    values = {k: v for k, v in vars(args).items() if k in WORKLOADS[args.phase].model_fields and v is not None}
    if not read_hf_config(values, args.hf_config):
        return 2
    sort = None if args.sort in (None, rank_sort.RANK) else args.sort
    try:
        sort_error = rank_sort.phase_error(args.phase, rank_sort.check(sort)) if sort else None
    except ValueError as exc:
        sort_error = str(exc)
    if sort_error:
        print(f"--sort: {sort_error}", file=sys.stderr)
        return 2
    try:
        workload = WORKLOADS[args.phase].model_validate(values)
        snapshot, share = load_snapshot(), "/?" + canonical_query(args.phase, workload)
        json_limit = args.limit if args.json else None  # the table reads every option (counts, reasons)
        payload = ranking.rank_payload(args.phase, workload, snapshot, share, json_limit, sort=sort)  # type: ignore[arg-type]
    except ValidationError as exc:
        return print_flag_errors(exc)
    except UnknownId as exc:
        return print_field_errors(exc)
    if args.json:
        print(json.dumps(payload, indent=2, default=str))
        return 0
    print_ranking(args, payload, sort)
    return 0


def print_ranking(args: argparse.Namespace, payload: dict[str, Any], sort: str | None) -> None:
    from app.cli.ranking_tables import infeasible_reasons, ranking_table, serverless_job_line, training_row_notes
    from app.service.rank import rank_sort

    rows = args.limit or TEXT_ROWS
    print(f"{payload['model']['name']}: {payload['feasible_options']} feasible of {payload['total_options']} offers")
    if sort:
        print(f"sorted by {rank_sort.describe(sort, args.phase)}; # is the rank")
    print(ranking_table(payload, rows))
    row_notes = training_row_notes(payload, rows) if args.phase == "training" else ""
    if row_notes:
        print("\n" + row_notes)
    if payload.get("serverless_job") or payload.get("serverless_job_left_out"):
        print("\n" + serverless_job_line(payload["serverless_job"], payload.get("serverless_job_left_out")))
    if not payload["feasible_options"] and payload["total_options"]:
        print("\nNo offer can run this workload. Why, per configuration:\n" + infeasible_reasons(payload, rows))
    if payload["notes"]:
        print("\n" + "\n".join(f"note: {note}" for note in payload["notes"]))
    wider = payload.get("deadline_max_gpus")
    if wider:
        now = payload["workload"]["max_gpus"]
        print(f"Max GPUs ({now:,}) is the limit; with {wider['max_gpus']:,} the run finishes in time: {wider['url']}")
    typical = (payload.get("global_batch") or {}).get("typical")
    if typical:
        print(f"at {typical['sequences']:,} sequences per step: {typical['url']}")
    print(f"\nshare: {payload['share_url']}")


def cmd_accuracy_report(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from app.calibration import product_questions
    from app.calibration.validate import validate_file
    from app.cli.accuracy_tables import accuracy_header, headline_tables, summary_tables

    snapshot = load_snapshot()
    folder = Path(args.validation_dir)
    sections, summaries = [], {}
    for name in ("inference_cases.csv", "training_cases.csv"):
        result = validate_file(folder / name, snapshot.gpus, snapshot.models)
        summaries[name.removesuffix("_cases.csv")] = result["summary"]
        summary = result["summary"]
        sections.append(
            f"## {name}\n\n{headline_tables(summary, markdown=True)}\n\n"
            f"### In-sample, every row weighted equally\n\n{summary_tables(summary, markdown=True)}"
        )
    sections.append(product_questions.markdown(snapshot.gpus, snapshot.models))
    sections.append(device_sections(snapshot))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(accuracy_header() + "\n\n".join(sections) + "\n", encoding="utf-8")
    out.with_name("accuracy.json").write_text(json.dumps(summaries, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} and {out.with_name('accuracy.json')}")
    return 0


def device_sections(snapshot, files=None) -> str:  # type: ignore[no-untyped-def]
    """ACCURACY.md's last section: each recorded GPU run (docs/measurements) beside the estimator's kernel terms."""
    from app.calibration import device_check

    parts = [device_check.SECTION_INTRO]
    for path in files if files is not None else device_check.measurement_files():
        result = device_check.check_measurements(device_check.load(path), snapshot.gpus, snapshot.models)
        parts.append(device_check.markdown(result, f"docs/measurements/{Path(path).name}"))
    return "\n".join(parts)


def cmd_device_check(args: argparse.Namespace) -> int:
    import json

    from app.calibration import device_check

    snapshot = load_snapshot()
    files = args.files or device_check.measurement_files()
    if not files:
        print("gpumatch device-check: no measurement files (docs/measurements/*.json)", file=sys.stderr)
        return 2
    results = []
    for path in files:
        try:
            data = device_check.load(path)
            results.append((path, device_check.check_measurements(data, snapshot.gpus, snapshot.models)))
        except KeyError as error:  # a row or the run lacks a field the script always writes
            print(f"gpumatch device-check: cannot read the measurements in {path}: no field {error}", file=sys.stderr)
            return 2
        except (OSError, ValueError, TypeError) as error:
            print(f"gpumatch device-check: cannot read the measurements in {path}: {error}", file=sys.stderr)
            return 2
    if args.json:
        payload = [{"file": str(p), **device_check.as_json(r)} for p, r in results]
        print(json.dumps(payload, indent=2))
        return 0
    for path, result in results:
        print(device_check.markdown(result, str(path)))
    return 0


def _add_rank_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rank = sub.add_parser("rank", help="rank GPU offers for a workload")
    phases = rank.add_subparsers(dest="phase", required=True)
    from app.scoring.workload import InferenceWorkload, TrainingWorkload

    for phase, model in (("inference", InferenceWorkload), ("training", TrainingWorkload)):
        parser = phases.add_parser(phase, help=(model.__doc__ or "").strip())
        add_field_flags(parser, model, [n for n in model.model_fields if n not in ("custom_model", "hf_config")])
        add_hf_config_flag(parser)
        add_limit_flag(parser, "options")
        parser.add_argument(
            "--sort",
            help="sort the feasible options by a column, as the page's headers do (ttft, cost; --sort=-tok_s for "
            "largest first), each keeping its rank; --json gives them in that order too, as the API's `sort`",
        )
        parser.add_argument("--json", action="store_true", help="print the rank API's JSON")
        parser.set_defaults(func=cmd_rank)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpumatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate, seed and serve the dashboard")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-setup", action="store_true", help="skip migrations and seeding")
    serve.add_argument(
        "--behind-proxy",
        action="store_true",
        help="trust X-Forwarded-* from GPUMATCH_TRUSTED_PROXIES (default 127.0.0.1)",
    )
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database maintenance")
    db.add_argument("action", choices=["upgrade", "seed", "check"])
    db.set_defaults(func=cmd_db)

    validate = sub.add_parser("validate", help="predict every case of a validation CSV and score the errors")
    validate.add_argument("cases", help="inference_cases.csv or training_cases.csv (schema in shared/validation)")
    validate.add_argument("--json", action="store_true", help="print {summary, cases} as JSON")
    validate.add_argument("--summary-only", action="store_true", help="skip the per-case table")
    validate.add_argument(
        "--in-sample-only",
        action="store_true",
        help="skip the leave-one-source-out refits (minutes on the full inference file)",
    )
    validate.set_defaults(func=cmd_validate)

    report = sub.add_parser("accuracy-report", help="write docs/ACCURACY.md from the validation cases")
    report.add_argument("validation_dir", help="folder with inference_cases.csv and training_cases.csv")
    report.add_argument("--out", default="docs/ACCURACY.md")
    report.set_defaults(func=cmd_accuracy_report)

    device = sub.add_parser(
        "device-check", help="the estimator's kernel terms against GPU kernels timed by benchmarks/device"
    )
    device.add_argument("files", nargs="*", help="measurement JSON files (default: docs/measurements/*.json)")
    device.add_argument("--json", action="store_true", help="print each check as JSON")
    device.set_defaults(func=cmd_device_check)

    _add_rank_parsers(sub)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
