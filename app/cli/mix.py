"""`gpumatch mix`: the cheapest mix of GPU offers for a request-length distribution, against one GPU type."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from app.cli.common import typed_flag
from app.cli.tables.writer import rounded
from app.scoring.explain import fixed, percent
from app.scoring.serving.mix.question import MixQuestion
from app.service.query.custom_model import RAW_MODEL_FIELDS
from app.service.query.values import LIST_FIELDS

# Catalog models only, as `gpumatch rank`: a custom architecture is the API's custom_model or hf_config.
FLAGS = [name for name in MixQuestion.model_fields if name not in RAW_MODEL_FIELDS]


@contextmanager
def native_stdout_silenced() -> Iterator[None]:
    """HiGHS (inside SciPy) may printf a debug line straight to file descriptor 1; keep it out of our output."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def _fleet_lines(fleet: dict[str, Any]) -> list[list[Any]]:
    from app.cli.tables.ranking import price_terms_cell

    return [
        [
            f"{r['replicas']} × {r['label']}",
            price_terms_cell(r),  # caveats and STALE as the page's badges, and the date
            ", ".join(r["serves"]),
            rounded(r["load_replicas"], 2),
            f"${fixed(r['usd_per_month'], 0)}",
        ]
        for r in fleet["rows"]
    ]


def _print(body: dict[str, Any]) -> None:
    from app.cli.tables.price_lines import offer_prices
    from app.cli.tables.writer import table

    print(
        f"{body['model']['name']} at {fixed(body['requests_per_day'], 0)} requests/day "
        f"({fixed(body['peak_requests_per_s'], 2)}/s in the busiest hour)"
    )
    buckets = [
        [
            b["name"],
            b["input_len"],
            b["output_len"],
            f"{percent(b['share'], 1)}",
            rounded(b["requests_per_s"], 3),
            b["source"],
        ]
        for b in body["buckets"]
    ]
    print(table(["bucket", "in", "out", "share", "req/s at peak", "lengths from"], buckets))
    headers = ["replicas × offer", "terms, as of", "serves", "load", "$/month"]
    for title, fleet in (("cheapest mix", body["mix"]), ("best single GPU type", body["best_single"])):
        if fleet is None:
            print(f"\n{title}: none serves every bucket")
            continue
        print(f"\n{title}: ${fixed(fleet['usd_per_month'], 0)}/month")
        print(table(headers, _fleet_lines(fleet)))
        for r in fleet["rows"]:  # a whole instance its peak load leaves partly spare, as /plan says its fleet's
            if r.get("fleet_note"):
                print(f"{r['replicas']} × {r['label']}: {r['fleet_note']}")
    if body["saving_usd_per_month"] is not None:
        print(f"\nsaving: ${fixed(body['saving_usd_per_month'], 0)}/month ({fixed(body['saving_pct'], 1)}%)")
    fleets = [f for f in (body["mix"], body["best_single"]) if f]
    if fleets:
        print("\n" + offer_prices([r for f in fleets for r in f["rows"]]) + "\n")
    for note in body["notes"]:
        print(note)


def _values(args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in FLAGS:
        raw = getattr(args, name, None)
        if raw is not None:
            listed = name in LIST_FIELDS
            values[name] = [v.strip() for v in raw.split(",") if v.strip()] if listed else typed_flag(name, raw)
    return values


def cmd_mix(args: argparse.Namespace) -> int:
    from app.cli.common import (
        emit,
        load_snapshot,
        print_field_error,
        print_field_errors,
        print_unknown_ids,
        read_hf_config,
    )
    from app.service import mix

    values = _values(args)
    # a --hf-config file that cannot be read (said by read_hf_config) is said beside the other flags' errors
    refused = set() if read_hf_config(values, args.hf_config) else {"hf_config"}
    try:
        question = MixQuestion.model_validate(values)
        if refused:
            print_unknown_ids(values, refused, lambda field: field, "mix")
            return 2
        share = "/mix?" + mix.canonical_mix_query(question)
        snapshot = load_snapshot()
        with native_stdout_silenced():
            body = mix.mix_payload(question, snapshot, share, charts=args.json)
    except ValidationError as exc:
        wrong = mix.question_errors(exc)
        for name, message in wrong.items():  # `--mix: bucket 2, input_len: ...`
            print_field_error(name, message)
        print_unknown_ids(values, {*wrong, *refused}, lambda field: field, "mix")
        return 2
    except mix.PlanFieldError as exc:
        return print_field_errors(exc)
    return emit(body, args.json, _print)


def add_mix_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from app.cli.common import add_flags, add_hf_config_flag

    parser = sub.add_parser("mix", help="the cheapest mix of GPU offers for a request-length distribution")
    helps = {name: MixQuestion.model_fields[name].description for name in FLAGS}
    switches = [name for name in FLAGS if MixQuestion.model_fields[name].annotation is bool]
    add_flags(parser, helps, "mix", cmd_mix, switches)
    add_hf_config_flag(parser)
