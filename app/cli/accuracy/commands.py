"""The accuracy commands: `gpumatch validate` (score a validation CSV), `accuracy-report` (write
docs/ACCURACY.md, docs/accuracy.json and the constants' evidence an estimate's terms quote) and `device-check` (the
estimator against timed GPU kernels), with their parsers."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from app.cli.common import load_snapshot
from app.config import PROJECT_ROOT


def cmd_validate(args: argparse.Namespace) -> int:
    import json

    from app.calibration.validation.case_files import CaseFileError
    from app.calibration.validation.validate import validate_file
    from app.cli.accuracy.tables import case_table, headline_tables, summary_tables

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


def cmd_accuracy_report(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from app.calibration.validation import product_questions
    from app.calibration.validation.validate import validate_file
    from app.cli.accuracy.memory_section import memory_section
    from app.cli.accuracy.tables import accuracy_header, headline_tables, summary_tables

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
        if "memory" in summary:
            sections.append(memory_section(summary["memory"], result["cases"]))
    sections.append(product_questions.markdown(snapshot.gpus, snapshot.models))
    sections.append(device_sections(snapshot))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(accuracy_header() + "\n\n".join(sections) + "\n", encoding="utf-8")
    out.with_name("accuracy.json").write_text(json.dumps(summaries, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} and {out.with_name('accuracy.json')}")
    if out.resolve() == PROJECT_ROOT / "docs" / "ACCURACY.md":  # the committed report: the terms quote its evidence
        from app.calibration.evidence import TABLE_PATH, write_evidence_table

        write_evidence_table(summaries["inference"].get("evidence", []), "inference_cases.csv")
        print(f"wrote {TABLE_PATH}")
    return 0


def device_sections(snapshot, files=None) -> str:  # type: ignore[no-untyped-def]
    """ACCURACY.md's last section: each recorded GPU run (docs/measurements) beside the estimator's kernel terms."""
    from app.calibration.device import device_check

    parts = [device_check.SECTION_INTRO]
    for path in files if files is not None else device_check.measurement_files():
        result = device_check.check_measurements(device_check.load(path), snapshot.gpus, snapshot.models)
        parts.append(device_check.markdown(result, f"docs/measurements/{Path(path).name}"))
    return "\n".join(parts)


def cmd_device_check(args: argparse.Namespace) -> int:
    import json

    from app.calibration.device import device_check

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


def add_accuracy_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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
    report.add_argument("--out", default="docs/ACCURACY.md", help="where to write it (default docs/ACCURACY.md)")
    report.set_defaults(func=cmd_accuracy_report)

    device = sub.add_parser(
        "device-check", help="the estimator's kernel terms against GPU kernels timed by benchmarks/device"
    )
    device.add_argument("files", nargs="*", help="measurement JSON files (default: docs/measurements/*.json)")
    device.add_argument("--json", action="store_true", help="print each check as JSON")
    device.set_defaults(func=cmd_device_check)
