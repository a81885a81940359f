"""`gpumatch precision`: one inference workload at each precision (BF16, FP8 with a BF16 or FP8 KV cache, FP4,
INT4 and INT8 weight-only, INT8 W8A8, BF16 with an FP8 KV cache)."""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import ValidationError

from app.cli.tables.price_lines import offer_prices
from app.cli.tables.ranking import instance_words, price_terms_cell
from app.cli.tables.writer import rounded
from app.scoring.explain import duration_text, fixed, money_places, usd_amount
from app.scoring.workload import InferenceWorkload

# The ranking's inference question, as the page and the API take it, but the dtypes every row sets itself (and the
# custom model's raw fields: --hf-config gives one).
FLAGS = tuple(
    name
    for name in InferenceWorkload.model_fields
    if name not in ("weight_dtype", "kv_dtype", "custom_model", "hf_config")
)


def _quality(row: dict[str, Any]) -> str:
    """The row's published quality as the page says it: each benchmark's recovery at one place (99.9%), or that none
    is published, then the note where there is one."""
    said = [
        f"{q['benchmark']}: {fixed(q['recovery_pct'], 1)}% recovered against {q['baseline']}"
        if q["recovery_pct"] is not None
        else f"{q['benchmark']}: no recovery published; baseline {q['baseline']}"
        for q in row["quality"]
    ]
    return "; ".join(said + ([row["quality_note"]] if row["quality_note"] else []))


def _best_option(row: dict[str, Any]) -> str:
    """The row's best option as the page's cell: configuration (the idle GPUs of a fixed load's whole instance, or the
    copies one holds, and its nodes), seller, price terms with their caveats and date, $ per
    GPU-hour, and a batch job's time and cost; why nothing runs where nothing does."""
    b = row["best"]
    if not b:
        return str(row["reason"])
    price = f"{price_terms_cell(b)}, ${fixed(b['usd_per_gpu_hour'], 2)}/GPU-h"
    rents = ", ".join(w for w in (instance_words(b), f"{b['nodes']} nodes" if b["nodes"] > 1 else "") if w)
    text = f"{b['gpu_count']}×{b['gpu_id']}{f' ({rents})' if rents else ''} {b['provider_name']} ({price})"
    if b.get("job_hours"):
        on = f" on {b['replicas']:,} replicas" if b["replicas"] > 1 else ""
        text += f"; the job: {duration_text(b['job_hours'] * 3600)}{on}, {usd_amount(b['job_usd'])}"
    return text


def _ranked_cost_text(best: dict[str, Any], most: int) -> str:
    """The best option's ranked cost at the page's places, and OVER LIMITS where the page badges it."""
    cost = best["ranked_cost"]
    return fixed(cost, money_places(cost, most)) + (" OVER LIMITS" if best["over_limits"] else "")


def _print(body: dict[str, Any]) -> None:
    from app.cli.tables.writer import table

    rows = []
    for r in body["rows"]:
        b = r["best"]
        most = 0 if body.get("rank_by") == "fleet" else 3  # the page's places for the ranked cost
        rows.append(
            [
                r["label"],
                rounded(r["weights_gb"], 1),
                _best_option(r),
                _ranked_cost_text(b, most) if b else "",
                f"{fixed(b['ttft_mean_ms'], 0)} ({fixed(b['ttft_p99_ms'], 0)})" if b else "",
                f"{fixed(b['tpot_mean_ms'], 1)} ({fixed(b['tpot_p99_ms'], 1)})" if b else "",
                rounded(b["replica_memory_gb"], 1) if b else "",
                _quality(r),
            ]
        )
    release = body["release"]
    released = f"released in {release['precision'].upper()} ({release['source']})"
    print(f"{body['model']['name']}, by {body['ranked_unit']}; {released}")
    headers = [
        "precision",
        "weights GB",
        "best option",
        "cost",
        "TTFT ms mean (p99)",
        "TPOT ms mean (p99)",
        "replica GB",
        "quality",
    ]
    print(table(headers, rows))
    prices = offer_prices([r["best"] for r in body["rows"] if r["best"]])
    if prices:
        print(prices)
    for line in _quality_sources(body["rows"]):
        print(line)


def _quality_sources(rows: list[dict[str, Any]]) -> list[str]:
    """Each quality source once, with the rows it is quoted for and the date it states, as the page's rows cite them
    (the CLI listed bare URLs: which row, and of when, was not said)."""
    cited: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
    for r in rows:
        for q in r["quality"]:
            labels, dates = cited.setdefault(q["source_url"], ({}, {}))
            labels[r["label"]] = None
            dates[q["as_of"] or "undated"] = None
    return [
        f"quality source: {url} ({' / '.join(labels)}; {', '.join(dates)})" for url, (labels, dates) in cited.items()
    ]


def cmd_precision(args: argparse.Namespace) -> int:
    from app.cli.common import (
        also_refused,
        emit,
        flag_values,
        load_snapshot,
        print_field_errors,
        print_flag_errors,
        read_hf_config,
    )
    from app.service import precision

    values = flag_values(args, FLAGS)
    if not read_hf_config(values, args.hf_config):
        return also_refused(values, InferenceWorkload, {"hf_config"}) or 2
    try:
        workload = InferenceWorkload.model_validate(values)
        share = "/precision?" + precision.canonical_precision_query(workload)
        body = precision.precision_payload(workload, load_snapshot(), share, charts=args.json)
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values)
    except precision.PlanFieldError as exc:
        return print_field_errors(exc)
    return emit(body, args.json, _print)


def add_precision_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from app.cli.common import add_field_flags, add_hf_config_flag

    parser = sub.add_parser(
        "precision",
        help="one inference workload at each precision side by side: BF16, FP8 (BF16 or FP8 KV cache), FP4, "
        "INT4 and INT8 weight-only, INT8 W8A8, and BF16 with an FP8 KV cache",
    )
    add_field_flags(parser, InferenceWorkload, FLAGS)
    add_hf_config_flag(parser)
    parser.add_argument("--json", action="store_true", help="print the precision API's JSON")
    parser.set_defaults(func=cmd_precision)
