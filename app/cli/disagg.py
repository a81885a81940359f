"""`gpumatch disagg`: aggregated serving against disaggregated prefill/decode pools at a traffic."""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import ValidationError

from app.cli.tables.writer import rounded
from app.scoring.explain import fixed, significant
from app.scoring.serving.traffic.week import Traffic
from app.scoring.workload import InferenceWorkload
from app.service.query.plan import SERVING_WORKLOAD_FIELDS

# The page's serving question: model, dtypes, lengths, limits, engine settings, serving techniques and the offer filters
WORKLOAD_FLAGS = SERVING_WORKLOAD_FIELDS
AT_TRAFFIC_COLUMN = "$/M out at traffic"  # monthly ÷ output tokens served: not the ranking's full-load $/M
LIMITS_AT_HELP = (
    "estimate (or unset): the pools meet the limits as estimated; band_high: each pool's latency meets its limit even "
    "at the slow end of its band (aggregated serving's band in the same regime, borrowed; the KV transfer as estimated)"
)
TRAFFIC_FLAGS = ("requests_per_day", "peak_requests_per_s", "profile", "peak_factor", "min_replicas", "spot_only")


def _pool(p: dict[str, Any]) -> str:
    layout = f"TP{p['tensor_parallel']}" + (f"×PP{p['pipeline_parallel']}" if p["pipeline_parallel"] > 1 else "")
    return f"{p['replicas_at_peak']} × {p['gpu_count']}×{p['gpu_id']} {layout}"


def _pools(plan: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return plan["prefill"], plan["decode"]


# A plan's pools are sized on means held under targets the p99 limits give: no p99 is estimated for a plan.
MEANS_ONLY = "none: sized on means"


def _with_band(value: float, band: dict[str, float] | None, digits: int) -> str:
    """A mean latency with its band, as the page shows it: '130 (94–465)'."""
    shown = f"{value:,.{digits}f}"
    return f"{shown} ({band['low']:,.{digits}f}–{band['high']:,.{digits}f})" if band else shown


def _path(plan: dict[str, Any]) -> str:
    """Where the plan's KV cache moves: inside a node or an NVLink domain of nodes, or over the fabric."""
    return f"KV inside {plan['node_unit']}" if plan["path"] == "node" else "KV over fabric"


def _print(body: dict[str, Any]) -> None:
    from app.cli.tables.price_lines import offer_prices
    from app.cli.tables.writer import table

    w, t = body["workload"], body["traffic"]
    print(
        f"{body['model']['name']}: {fixed(w['input_len'], 0)} in / {fixed(w['output_len'], 0)} out, "
        f"TTFT ≤ {significant(w['ttft_ms'])} ms, "
        f"TPOT ≤ {significant(w['tpot_ms'])} ms, {fixed(t['requests_per_day'], 0)} requests a day"
    )
    if body.get("limits_at_bands"):  # limits_at band_high: whose bands the pools were sized at
        print(body["limits_at_bands"])
    print(body["verdict"]["headline"])
    if body["verdict"]["close_call_reason"]:  # whether the cost gap is inside the two bands
        print(body["verdict"]["close_call_reason"])
    for line in body["verdict"]["why"]:
        print(f"  - {line}")
    rows = []
    a = body["aggregated"]
    if a:
        layout = f"{a['replicas_at_peak']} × {a['gpu_count']}×{a['gpu_id']}"
        latency = [_with_band(a["ttft_mean_ms"], a["ttft_mean_band_ms"], 0)]
        latency.append(_with_band(a["tpot_mean_ms"], a["tpot_mean_band_ms"], 1))
        latency.append(f"{a['ttft_p99_ms']:,.0f} / {a['tpot_p99_ms']:,.1f}")
        batch = "<1" if a.get("requests_in_flight") is not None else a["batch"]  # below one request in flight
        rows.append(["aggregated", a["provider_name"], layout, batch, *latency])
        rows[-1] += [rounded(a["monthly_usd"]), rounded(a["usd_per_million_output_tokens_at_traffic"] or 0, 2)]
    for d in body["disaggregated"]:
        p, q = d["prefill"], d["decode"]
        rows.append(
            [
                f"{d['ratio']} ({_path(d)})",
                p["provider_name"],
                f"P {_pool(p)} + D {_pool(q)}",
                f"{p['batch']} / {q['batch']}",
                _with_band(d["ttft_mean_ms"], p.get("latency_band_ms"), 0),
                _with_band(d["tpot_mean_ms"], q.get("latency_band_ms"), 1),
                MEANS_ONLY,
                rounded(d["monthly_usd"]),
                rounded(d["usd_per_million_output_tokens_at_traffic"], 2),
            ]
        )
    print()
    headers = [
        "layout",
        "provider",
        "instances at peak",
        "batch",
        "mean TTFT ms (band)",
        "mean TPOT ms (band)",
        "p99 TTFT / TPOT ms",
        "$ a month",
        AT_TRAFFIC_COLUMN,
    ]
    print(table(headers, rows))
    idle = [f"{d['ratio']} {p['role']} {_pool(p)}: {p['fleet_note']}" for d in body["disaggregated"] for p in _pools(d)]
    idle = list(dict.fromkeys(line for line in idle if not line.endswith(": ")))  # each noted pool once
    if idle:  # a fabric pool whose rentals hold more copies than the peak needs (fleet_note)
        print("\n" + "\n".join(idle))
    pools = [pool for d in body["disaggregated"] for pool in (d["prefill"], d["decode"])]
    if a or pools:
        print("\n" + offer_prices([*([a] if a else []), *pools]) + "\n")
    for note in body["notes"]:
        print(note)


def cmd_disagg(args: argparse.Namespace) -> int:
    from app.cli.common import (
        also_refused,
        emit,
        flag_values,
        load_snapshot,
        print_field_errors,
        print_flag_errors,
        read_hf_config,
    )
    from app.service import disagg

    values = flag_values(args, WORKLOAD_FLAGS)
    if not read_hf_config(values, args.hf_config):
        return also_refused(values, InferenceWorkload, {"hf_config"}) or 2
    try:
        workload = InferenceWorkload.model_validate(values)
        traffic = Traffic.model_validate(flag_values(args, TRAFFIC_FLAGS))
        share = "/disagg?" + disagg.canonical_disagg_query(workload, traffic)
        body = disagg.disagg_payload(workload, traffic, load_snapshot(), share, charts=args.json)
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values)
    except disagg.PlanFieldError as exc:
        return print_field_errors(exc, lambda field: field.rpartition(".")[2])  # workload.model: --model
    return emit(body, args.json, _print)


def add_disagg_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from app.cli.common import add_field_flags, add_flags, add_hf_config_flag, field_help

    parser = sub.add_parser("disagg", help="aggregated serving or prefill/decode pools: cost at a traffic, and why")
    add_field_flags(parser, InferenceWorkload, [name for name in WORKLOAD_FLAGS if name != "limits_at"])
    switches = [name for name in TRAFFIC_FLAGS if Traffic.model_fields[name].annotation is bool]  # --spot-only
    traffic = {
        name: Traffic.model_fields[name].description
        if name in switches
        else field_help(Traffic.model_fields[name].description, Traffic.model_fields[name].default)
        for name in TRAFFIC_FLAGS
    }
    helps: dict[str, str | None] = {**traffic, "limits_at": LIMITS_AT_HELP}
    add_flags(parser, helps, "disagg", cmd_disagg, switches)
    add_hf_config_flag(parser)
