"""`gpumatch rank inference|training`: rank the catalog's offers for a workload, as the page and the rank API
do, and print the ranked table (or the API's JSON), with its parser."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.cli.common import (
    TEXT_ROWS,
    add_field_flags,
    add_hf_config_flag,
    add_limit_flag,
    also_refused,
    flag_values,
    load_snapshot,
    print_field_errors,
    print_flag_errors,
    read_hf_config,
)


def cmd_rank(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.service.query.canonical import canonical_query
    from app.service.query.catalog_spelling import catalog_spelled
    from app.service.query.phase import WORKLOADS, QuestionKind
    from app.service.query.view import ResultsView, with_view
    from app.service.rank import rank_sort, ranking
    from app.service.rank.model_spec import UnknownId

    values = flag_values(args, WORKLOADS[args.phase].model_fields)
    refused = set() if read_hf_config(values, args.hf_config) else {"hf_config"}
    sort = None if args.sort in (None, rank_sort.RANK) else args.sort
    if sort_error := rank_sort.sort_error(args.phase, sort):
        print(f"--sort: {sort_error}", file=sys.stderr)
        refused.add("sort")
    if args.charts and not args.json:  # the table has no place for them
        print("--charts: the charts' numbers come with the JSON: add --json", file=sys.stderr)
        refused.add("charts")
    kind: QuestionKind = "serving" if args.phase == "inference" else "training"
    if (status := also_refused(values, WORKLOADS[args.phase], refused, kind)) is not None:
        return status
    try:
        snapshot = load_snapshot()
        # as the rank API answers: under the catalog's ids (`h100-sxm` is H100-SXM), the link keeping the sort
        workload = catalog_spelled(WORKLOADS[args.phase].model_validate(values), snapshot)
        share = "/?" + with_view(canonical_query(args.phase, workload), ResultsView(sort=sort))
        json_limit = args.limit if args.json else None  # the table reads every option (counts, reasons)
        payload = ranking.rank_payload(
            args.phase,
            workload,  # type: ignore[arg-type]
            snapshot,
            share,
            json_limit,
            sort=sort,
            charts=args.charts,
        )
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values, kind=kind)
    except UnknownId as exc:
        return print_field_errors(exc)
    if args.json:
        print(json.dumps(payload, indent=2, default=str))
        return 0
    print_ranking(args, payload, sort)
    return 0


def print_ranking(args: argparse.Namespace, payload: dict[str, Any], sort: str | None) -> None:
    from app.cli.tables.ranking import (
        best_at_risk,
        best_near_tpot_floor,
        fit_count_words,
        infeasible_reasons,
        price_sources,
        ranking_table,
        row_notes,
        serverless_job_line,
    )
    from app.service.rank import rank_sort
    from app.service.rank.fixed_load_words import load_words, one_replica_sentence, over_limits_sentence

    rows = args.limit or TEXT_ROWS
    print(f"{payload['model']['name']}: {fit_count_words(payload)}")
    if sort:
        print(f"sorted by {rank_sort.describe(sort, args.phase)}; # is the rank")
    print(ranking_table(payload, rows))
    if at_risk := best_at_risk(payload):
        print("\n" + at_risk)
    if near_floor := best_near_tpot_floor(payload):
        print("\n" + near_floor)
    best = next((o for o in payload["options"] if o["feasible"] and o.get("rank", 1) == 1), None)
    if best is not None and best.get("over_limits"):  # the page's summary: even #1 misses, and what any layout reaches
        band_high = payload["workload"].get("limits_at") == "band_high"
        print("\n" + over_limits_sentence(best["over_limits"], payload.get("lowest_p99"), band_high))
    notes = row_notes(payload, rows)
    if notes:
        print("\n" + notes)
    sources = price_sources([o for o in payload["options"] if o["feasible"]][:rows])
    if sources:
        print("\n" + sources)
    if payload.get("serverless_job") or payload.get("serverless_job_left_out"):
        print("\n" + serverless_job_line(payload["serverless_job"], payload.get("serverless_job_left_out")))
    if not payload["feasible_options"] and payload["total_options"]:
        why = infeasible_reasons(payload, rows)
        print("\nNo offer can run this workload within its limits. Why, per configuration:\n" + why)
    if behind := payload.get("overloaded"):
        print(f"\n{behind['note']}: {behind['url']}")
    if payload["notes"]:
        print("\n" + "\n".join(f"note: {note}" for note in payload["notes"]))
    if (sized := payload.get("replicas_url")) and not behind:  # the page links it beside every fixed load, as the JSON
        asked = payload["workload"]
        load = load_words(asked.get("scenario"), asked.get("concurrency"), asked.get("requests_per_s"))
        print(f"\n{one_replica_sentence(load, asked.get('scenario'))}: {sized}")
    wider = payload.get("deadline_max_gpus")
    if wider:
        now = payload["workload"]["max_gpus"]
        print(f"Max GPUs ({now:,}) is the limit; with {wider['max_gpus']:,} the run finishes in time: {wider['url']}")
    typical = (payload.get("global_batch") or {}).get("typical")
    if typical:
        print(f"at {typical['sequences']:,} sequences per step: {typical['url']}")
    print(f"\nshare: {payload['share_url']}")


def add_rank_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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
        parser.add_argument(
            "--charts",
            action="store_true",
            help="with --json: add the results page's charts in numbers (`charts`), as the API's ?charts=true",
        )
        parser.set_defaults(func=cmd_rank)
