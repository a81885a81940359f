"""`gpumatch plan serving|lifecycle`: the plan API's answer as tables (or its JSON)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import ValidationError

from app.cli.common import typed_flag
from app.cli.tables.writer import rounded
from app.scoring.explain import fixed, money_places, percent, usd_per_mtok
from app.scoring.pricing.token_prices import DOUBTS
from app.scoring.serving.traffic.week import Traffic
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.query.conveniences import CONVENIENCES
from app.service.query.plan import PLAN_FIELDS, SERVED_MODEL_FIELDS, SERVING_WORKLOAD_FIELDS, TRAIN_PREFIX

# The page's serving question: model, dtypes, lengths, limits, engine settings, serving techniques and the offer filters
INFERENCE_FLAGS = SERVING_WORKLOAD_FIELDS
# The training run's fields as the page's train_* fields, but its model: it trains the model it serves.
TRAINING_FLAGS = tuple(name for name in TrainingWorkload.model_fields if name not in SERVED_MODEL_FIELDS)
TRAINING_PREFIX = TRAIN_PREFIX  # the training run's flags: --train-method, args.train_method

# The page's fields these commands refuse, with the page's reasons (--hf-config reads a custom architecture's file)
PAGE_REASONS = {name: why for name, why in PLAN_FIELDS.reasons.items() if name != "hf_config"} | {
    "custom_model": "give a custom architecture as its config.json file (--hf-config FILE)",
    "hf_config_json": "the page's pasted config.json: give it as a file here (--hf-config FILE)",
    "tokens_per_s_per_user": f"the page's other spelling of --tpot-ms ({CONVENIENCES['tokens_per_s_per_user']})",
}
REFUSED = {
    "serving": {name: why for name, why in PAGE_REASONS.items() if not name.startswith(TRAIN_PREFIX)}
    | {"months": "only `gpumatch plan lifecycle` prices a training run and months of serving after it"},
    "lifecycle": PAGE_REASONS
    | {"train_model": "a train-then-serve plan serves the model it trains: --model (or --hf-config) names both"},
}


def _values(args: argparse.Namespace, names: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    return {n: typed_flag(n, getattr(args, prefix + n)) for n in names if getattr(args, prefix + n, None) is not None}


def _plan_flags(option: dict[str, Any]) -> str:
    """A dedicated row's flags as the plan page badges them: over the latency limits, a committed price (always on,
    never autoscaled), a replica over more nodes than the offer says it supplies."""
    flags = (
        ("OVER LIMITS", option.get("over_limits")),
        ("committed, always on", option.get("committed")),
        ("NODES?", option.get("cluster_caveat")),
    )
    return " ".join(flag for flag, on in flags if on)


def _print_serving(body: dict[str, Any], limit: int) -> None:
    from app.cli.tables.ranking import price_sources, price_terms_cell, row_notes, token_flags_text
    from app.cli.tables.writer import table

    t = body["traffic"]
    print(
        f"{body['model']['name']}: {fixed(t['requests_per_day'], 0)} requests/day, {t['profile']}, "
        f"peak {fixed(t['peak_requests_per_s'], 2)}/s"
    )
    rows = [
        [
            position,
            f"{o['gpu_count']}×{o['gpu_id']}",
            o["provider_name"],
            price_terms_cell(o),
            fixed(o["usd_per_gpu_hour"], money_places(o["usd_per_gpu_hour"], 2)),
            fixed(o["output_tokens_per_s"], 0),
            o["replicas_at_peak"],
            o["instances_at_peak"],
            rounded(o["monthly_usd_always_on"]),
            rounded(o["monthly_usd_autoscaled"]),
            rounded(o["monthly_usd_scale_to_zero"]),
            percent(o["utilisation_autoscaled"]),
            _plan_flags(o),
        ]
        for position, o in enumerate(body["options"][:limit], start=1)
    ]
    print(
        table(
            [
                "#",
                "config",
                "provider",
                "price terms, as of",
                "$/GPU-h",
                "tok/s",
                "replicas",
                "instances",
                "always-on $/mo",
                "autoscaled $/mo",
                "to-zero $/mo",
                "util.",
                "",
            ],
            rows,
        )
    )
    if rows:
        print("\n".join(filter(None, (row_notes(body, limit), price_sources(body["options"][:limit])))))
    quotes = [
        [
            q["provider_name"],
            q["model_name"] + (" (substitute)" if q["substitute"] else ""),
            usd_per_mtok(q["input_usd_per_mtok"]).removeprefix("$"),
            usd_per_mtok(q["output_usd_per_mtok"]).removeprefix("$"),
            rounded(q["monthly_usd"]),
            q["as_of_label"],
            token_flags_text(q).upper() + (" (not compared)" if not q["comparable"] else ""),
        ]
        for q in body["serverless"]
    ]
    print()
    print(
        table(["serverless", "model", "in $/M", "out $/M", "$/mo", "as of", "flags"], quotes)
        if quotes
        else "no serverless price for this model or a comparable one "
        "(same dense/MoE kind, near in active and total parameters)"
    )
    cheapest = body["cheapest_serverless"]
    if cheapest:
        print(
            f"cheapest serverless compared with: {cheapest['provider_name']} ${fixed(cheapest['monthly_usd'], 0)}/month"
            + (" (STALE, included on request)" if cheapest["stale"] else "")
            + "".join(f" [{f.replace('_', ' ').upper()}: see the note]" for f in cheapest["flags"] if f in DOUBTS)
        )
    elif quotes:
        print("cheapest serverless compared with: none (no current, verified per-token price)")
    for note in body["notes"]:
        print(f"note: {note}")
    print()
    for even in (body["break_even"], body["break_even_scale_to_zero"]):
        mode = even["mode"].replace("_", " ")
        print(
            f"break-even, {mode}: {fixed(even['requests_per_day'], 0)} requests/day ({even['reason']})"
            if even["requests_per_day"]
            else f"break-even, {mode}: none ({even['reason']})"
        )
    verdict = body["verdict"]
    print(f"verdict: {verdict['text']}")
    if verdict["caveat"]:
        print(f"  {verdict['caveat']}")
    if body["infeasible"]:
        print("\nno dedicated option serves this workload. Why, per configuration:")
        rows = [[g["gpu_id"], g["gpu_count"], g["offers"], g["reason"]] for g in body["infeasible"]]
        print(table(["GPU", "count", "offers", "why not"], rows))


def cmd_plan(args: argparse.Namespace) -> int:
    from app.cli.common import (
        TEXT_ROWS,
        also_refused,
        load_snapshot,
        print_field_error,
        print_field_errors,
        print_flag_errors,
        print_unknown_ids,
        read_hf_config,
    )
    from app.cli.refused_flags import print_refused
    from app.service import plan
    from app.service.query.plan import MAX_MONTHS, canonical_plan_query, validate_training

    refused = {"refused flags"} if print_refused(args) else set()  # said before the question is read
    if args.kind == "lifecycle" and not 1 <= args.months <= MAX_MONTHS:  # the API's and the page's bounds
        print_field_error("months", f"a whole number of months from 1 to {MAX_MONTHS}, not {args.months}")
        refused.add("months")
    values = _values(args, INFERENCE_FLAGS)
    if not read_hf_config(values, args.hf_config):
        refused.add("hf_config")
    if (status := also_refused(values, InferenceWorkload, refused)) is not None:  # the served workload's, too
        return status
    try:
        workload = InferenceWorkload.model_validate(values)
        traffic = Traffic.model_validate(_values(args, tuple(Traffic.model_fields)))
        training = None
        if args.kind == "lifecycle":  # it trains the model it serves: the catalog one or the --hf-config file's
            model = {"model": workload.model, "hf_config": workload.hf_config}
            run = _values(args, (*TRAINING_FLAGS, "steps"), TRAINING_PREFIX)
            errors: dict[str, str] = {}  # at train_* fields, as the page says them: --train-*
            training = validate_training({**model, **run}, errors)
            if training is None:  # the served workload's ids are said with them
                for field, message in errors.items():
                    print_field_error(field, message)
                print_unknown_ids(
                    {TRAIN_PREFIX + k: v for k, v in run.items()}, errors, lambda field: field, kind="training"
                )
                print_unknown_ids(values, (), lambda field: field)
                return 2
        share = "/plan?" + canonical_plan_query(workload, traffic, training, args.months if training else None)
        snapshot = load_snapshot()
        rows = args.limit or TEXT_ROWS
        if training is None:  # the table reads every option; --json gives the best --limit, or all, as the API
            limit = args.limit if args.json else None  # --json carries each option's terms as the API does
            body = plan.serving_payload(workload, traffic, snapshot, share, limit, args.json, charts=args.json)
        elif args.json and args.limit is None:  # the API's default number of combinations
            body = plan.lifecycle_payload(training, workload, traffic, args.months, snapshot, share)
        else:
            body = plan.lifecycle_payload(training, workload, traffic, args.months, snapshot, share, rows)
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values)
    except plan.PlanFieldError as exc:  # `workload.model`: --model; the training run's `training.gpus`: --train-gpus
        return print_field_errors(exc, _flag_of_field)
    if args.json:
        print(json.dumps(body, indent=2, default=str))
        return 0
    if training is None:
        _print_serving(body, rows)
    else:
        _print_lifecycle(body, rows)
    print(f"\nshare: {body['share_url']}")
    return 0


def _flag_of_field(field: str) -> str:
    """The flag's name of a field the plan service rejected: the training run's own fields are --train-*; its model
    and --hf-config, which it shares with the served model, and the rest keep their names."""
    part, _, name = field.rpartition(".")
    return TRAINING_PREFIX + name if part == "training" and name in TRAINING_FLAGS else name


def _print_lifecycle(body: dict[str, Any], limit: int) -> None:
    from app.cli.tables.writer import table

    rows = [
        [
            f"{c['training']} {c['training_as_of'] or 'undated'}"
            + (f" · {c['training_layout']}" if c["training_layout"] else ""),
            f"{c['serving']} {c['serving_as_of_label']}",
            rounded(c["training_usd"]),
            rounded(c["serving_usd_per_month"]),
            rounded(c["total_usd"]),
            f"{percent(c['training_share'], 1)}",
            f"{percent(c['serving_share'], 1)}",
        ]
        for c in body["combinations"][:limit]
    ]
    print(f"train, then serve for {body['months']} months ({body['basis']})")
    print(table(["train on", "serve on", "train $", "serve $/mo", "total $", "train %", "serve %"], rows))
    if rows:
        print(_lifecycle_sources(body["combinations"][:limit]))


def _lifecycle_sources(combinations: list[dict[str, Any]]) -> str:
    """Where each shown price was read, as the rank tables' `price sources:` say it: one line per offer, its date
    beside it in the table."""
    seen: dict[str, str] = {}
    for c in combinations:
        for role in ("training", "serving"):
            url = c[f"{role}_price_source_url"] or "(no source stated)"
            seen.setdefault(c[role], url)
    return "price sources:\n" + "\n".join(f"{offer}: {url}" for offer, url in seen.items())


def add_plan_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    plan = sub.add_parser("plan", help="dedicated vs serverless at a traffic; train-then-serve totals")
    kinds = plan.add_subparsers(dest="kind", required=True)
    from app.cli.common import add_field_flags, add_hf_config_flag, add_limit_flag, add_switch, field_help, help_text
    from app.cli.refused_flags import add_refused_flags

    for kind in ("serving", "lifecycle"):
        parser = kinds.add_parser(kind)
        add_field_flags(parser, InferenceWorkload, INFERENCE_FLAGS)
        for name, info in Traffic.model_fields.items():
            flag = "--" + name.replace("_", "-")
            if info.annotation is bool:  # --spot-only, as bare as --include-stale
                add_switch(parser, flag, name, info.description)
            else:
                parser.add_argument(flag, dest=name, help=help_text(field_help(info.description, info.default)))
        add_hf_config_flag(parser, "train and serve" if kind == "lifecycle" else "rank")
        if kind == "lifecycle":
            add_field_flags(parser, TrainingWorkload, TRAINING_FLAGS, prefix=TRAINING_PREFIX)
            steps = f"optimizer steps, instead of --train-total-tokens: {CONVENIENCES['steps']}"
            parser.add_argument("--train-steps", dest="train_steps", help=help_text(steps))
            parser.add_argument("--months", type=int, default=12, help="months of serving")
        if kind == "serving":
            add_limit_flag(parser, "dedicated options")
        else:
            add_limit_flag(parser, "combinations", json_default="10, as the API")
        parser.add_argument("--json", action="store_true", help="print the plan API's JSON")
        add_refused_flags(parser, REFUSED[kind], f"gpumatch plan {kind}")
        parser.set_defaults(func=cmd_plan)
