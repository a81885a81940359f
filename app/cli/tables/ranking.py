"""Text for a ranking on the command line: the ranked table (as the page's columns and flags), why nothing
could run, per-token price labels and the serverless job line, and the training rows' notes."""

from __future__ import annotations

from typing import Any

from app.cli.tables.writer import table
from app.scoring.explain import (
    duration_text,
    fixed,
    money_places,
    range_places,
    shown_as_close_call,
    usd_amount,
    usd_per_mtok,
    usd_places,
)
from app.scoring.inference.explanation.tpot_floor import NEAR_FLOOR_LEAD
from app.scoring.inference.ranking.options import RANK_HEADERS, RANK_METRIC_FIELDS, idle_gpus_words
from app.scoring.training.run.limit_words import days_text, interruptions_text

# Places the ranked table's measures are shown with, as the results page's cells show them (templates/_results.html),
# so a row reads the same on both faces (tests/test_ranked_row_faces.py): 780 tok/s, 14.47 s a step, 44% MFU.
TOKENS_PER_S_PLACES = 0
STEP_TIME_S_PLACES = 2
MFU_PERCENT_PLACES = 0
JOB_BILLED_SHOWN_ABOVE = 1.001  # billed hours over the job's by more than rounding: said beside its cost, as the page


def _measure(value: float | None, places: int, suffix: str = "") -> str:
    return "–" if value is None else fixed(value, places) + suffix


def _times_copies(option: dict[str, Any]) -> str:
    """' ×2 copies' where a fixed load is spread over copies: batch and tok/s are one copy's, the bill all of theirs."""
    copies = option.get("copies_sharing_load") or 1
    return f" ×{copies} copies" if copies > 1 else ""


def _money(value: float | None, digits: int) -> str:
    """Dollars to the digits the pages show them with (a ranking's prices line up and do not lose cents)."""
    return "–" if value is None else fixed(value, money_places(value, digits))


def _band(band: dict[str, float] | None, most: int) -> str:
    """A ranked cost's band after it, as the page's cell writes it: both ends at the places the cost itself is
    shown with ($12.01 (5.91–18.36), not 5.912–18.360), 'fixed' where both ends bill the same."""
    if not band:
        return ""
    low, high = band["low"], band["high"]
    if low == high:
        return " (fixed)"
    places = range_places(low, high, money_places(high, most))
    return f" ({fixed(low, places)}–{fixed(high, places)})"


def _run_time(option: dict[str, Any]) -> str:
    """A training run's length as the page's Run time cell says it, with spot's expected interruptions:
    `1.3 days`, `3.0 h (<0.1 int.)`."""
    if option.get("days") is None:
        return "–"
    interruptions = option.get("expected_interruptions")
    return days_text(option["days"]) + (f" ({interruptions_text(interruptions)} int.)" if interruptions else "")


def _run_total_text(option: dict[str, Any]) -> str:
    """What a training run bills and its band, as the page's Total $ cell: whole dollars from $10, cents below."""
    places = usd_places(option["total_usd"]) if option["total_usd"] is not None else 2
    return _money(option["total_usd"], places) + _band(option.get("band"), places)


def _job_billed(option: dict[str, Any]) -> str:
    """A batch job's billed time beside its cost where the terms bill more than the job runs, as the page's Job $
    cell says it: a committed term paid whole (`949 (billed 30 days)`), spot's interruptions, the billing unit."""
    billed, hours = option.get("job_billed_hours"), option.get("job_hours")
    if billed is None or hours is None or billed <= hours * JOB_BILLED_SHOWN_ABOVE:
        return ""
    return f" (billed {duration_text(billed * 3600)})"


def infeasible_reasons(payload: dict[str, Any], limit: int) -> str:
    """Why the configurations that cannot run the workload cannot, one line per (GPU, count, reason), as the page's
    list gives them: what a ranking with nothing feasible has to say."""
    seen: dict[tuple[str, int, str], None] = {}
    for o in payload["options"]:
        if not o["feasible"]:
            seen.setdefault((o["gpu_id"], o["gpu_count"], o["reason"]), None)
    lines = [f"{count}×{gpu}: {reason}" for gpu, count, reason in list(seen)[:limit]]
    more = len(seen) - len(lines)
    return "\n".join(lines + ([f"… and {more} more (--limit)"] if more > 0 else []))


def _in_out(quote: dict[str, Any], which: str) -> str:
    """`which` ('listed', 'disputed') input/output per-million-token prices: $0.74/$0.90."""
    return f"{usd_per_mtok(quote[f'{which}_input_usd_per_mtok'])}/{usd_per_mtok(quote[f'{which}_output_usd_per_mtok'])}"


def token_flags_text(quote: dict[str, Any]) -> str:
    """A per-token price's labels as the CLI prints them: `unverified`, `availability unconfirmed`, `disputed (the
    other figure $0.74/$0.90; priced at the higher)`."""
    said = []
    for flag in quote.get("flags") or ():
        if flag == "disputed" and quote.get("disputed_input_usd_per_mtok") is not None:
            other = _in_out(quote, "disputed")
            listed = _in_out(quote, "listed")
            said.append(f"disputed: listed {listed}, other source {other}; priced at the higher")
        else:
            said.append(flag.replace("_", " "))
    return ", ".join(said)


def serverless_job_line(quotes: list[dict[str, Any]], left_out: list[dict[str, Any]] | None = None) -> str:
    """The batch job through the cheapest per-token APIs, as the page words it: the compared (current, verified)
    prices, then the cheaper listed ones left out with their labels, each with its date; then where each was read."""

    def each(q: dict[str, Any]) -> str:
        flags = f" [{token_flags_text(q)}]" if q.get("flags") else ""
        substitute = f" (for {q['model_name']}, a substitute)" if q["substitute"] else ""
        return f"{q['provider_name']} {usd_amount(q['job_usd'])} ({q['as_of_label']}){flags}{substitute}"

    line = (
        f"the same job through a per-token API (list prices): {', '.join(each(q) for q in quotes)}"
        if quotes
        else "the same job through a per-token API: no current, verified per-token price"
    )
    if left_out:
        line += f"; left out, though cheaper: {', '.join(each(q) for q in left_out)}"
    sources = [f"{q['provider_name']} {q['source_url'] or '(no source stated)'}" for q in [*quotes, *(left_out or [])]]
    return line + (f"\nper-token price sources: {'; '.join(sources)}" if sources else "")


def price_terms_cell(option: dict[str, Any]) -> str:
    """A row's price terms as the page's cell says them: the terms, their caveats, STALE, and the price's date
    (`undated` where its source gives none), so no price is shown without when it was read."""
    o = option
    return (
        o["price_type"]
        + (f" ({'; '.join(o['price_caveats'])})" if o.get("price_caveats") else "")
        + (" interruptible" if o.get("interruptible") else "")
        + (" STALE" if o.get("stale") else "")
        + f" {o.get('as_of') or 'undated'}"
    )


def price_sources(options: list[dict[str, Any]]) -> str:
    """Where each shown row's price was read (the page links each row's date there), one line per source with the
    ranks it prices: `#1, #4: https://lambda.ai/instances`."""
    ranks: dict[str, list[str]] = {}
    for position, o in enumerate(options, start=1):
        ranks.setdefault(o.get("price_source_url") or "(no source stated)", []).append(f"#{o.get('rank', position)}")
    lines = [f"{', '.join(where)}: {url}" for url, where in ranks.items()]
    return "price sources:\n" + "\n".join(lines) if lines else ""


def _close(option: dict[str, Any], rank: int) -> bool:
    return shown_as_close_call(bool(option["close_call"]), rank)


def _flags(option: dict[str, Any], rank: int) -> str:
    """An inference row's flags: over the latency limits (ranked after the rows that meet them), a close call, a
    replica over more nodes than the offer says it supplies."""
    flags = (
        ("OVER LIMITS", option.get("over_limits")),
        ("close", _close(option, rank)),
        ("NODES?", option.get("cluster_caveat")),
    )
    return " ".join(flag for flag, on in flags if on)


def layout_cell(option: dict[str, Any], inference: bool) -> str:
    """A row's parallel layout, as the page's count cell says it: `TP8 PP2, 2 nodes`, `TP1, 4 per 4-GPU instance`,
    `TP4 FSDP ×8, no recompute, 4 nodes` (nodes: physical ones, several inside one NVL72 rack's NVLink domain)."""
    o = option
    if inference:
        text = f"TP{o['tensor_parallel']}" + (f" PP{o['pipeline_parallel']}" if o["pipeline_parallel"] > 1 else "")
        text += (" DP-attn" if o.get("attention_parallel") == "dp" else "") + (
            " EP" if o.get("expert_parallel") == "ep" else ""
        )
    else:
        text = o["layout"]
    if o.get("nodes", 1) > 1:
        text += f", {o['nodes']} nodes"
    instance = instance_words(o)
    return text + (f", {instance}" if instance else "")


def instance_words(option: dict[str, Any]) -> str:
    """What a serving row rents beyond its layout, as the page's instance note: at a fixed load the copies that share
    it (or its one copy and the idle GPUs billed with it), else the copies one whole instance holds ('4 per 8-GPU
    instance'); '' for neither."""
    o = option
    if o.get("spread_note"):  # a fixed load spread over the copies its billed instance holds
        return o["spread_note"]
    if o.get("idle_gpus"):  # a fixed load on one copy, its instance billed whole
        return idle_gpus_words(o["idle_gpus"], o.get("instances"), o["instance_gpus"])
    if o.get("copies_per_instance", 1) > 1:
        copies = f"{o['copies_per_instance']} per {o['instance_gpus']}-GPU instance"
        if o.get("usd_per_month_at_peak") is None:
            return copies
        spare = o.get("fleet_note")  # the spare GPUs, or the peak's p99s spread over every copy (spread2)
        return f"{copies}; {spare}" if spare else copies
    return ""


def fit_count_words(payload: dict[str, Any]) -> str:
    """The header's count, as the page's caption says it: '48 feasible of 60 offers', or where every feasible one is
    over the latency limits '48 of 60 offers fit, none meeting the latency limits' ("feasible" there read as "meets
    them", found by tidy)."""
    feasible, total = payload["feasible_options"], payload["total_options"]
    if feasible and payload.get("over_limits_options") == feasible:
        return f"{feasible} of {total} offers fit, none meeting the latency limits"
    return f"{feasible} feasible of {total} offers"


def ranking_table(payload: dict[str, Any], limit: int) -> str:
    """The feasible options as a text table, in the payload's order; # is each one's rank (a sorted payload's
    options carry it)."""
    inference = payload["phase"] == "inference"
    job = inference and bool(payload["workload"].get("job_requests"))
    rank_by: str = payload["rank_by"] if payload.get("rank_by") in RANK_METRIC_FIELDS else "output_tokens"
    places = 0 if rank_by == "fleet" else 3  # the ranked cost's most places, as the page's (results_view.ranked_metric)
    rows = []
    feasible = [o for o in payload["options"] if o["feasible"]][:limit]
    for position, o in enumerate(feasible, start=1):
        i = o.get("rank", position)
        config = f"{o['gpu_count']}×{o['gpu_id']}"
        terms = price_terms_cell(o)
        common = [i, config, layout_cell(o, inference), o["provider_name"], terms, _money(o["usd_per_gpu_hour"], 2)]
        if inference:
            rows.append(
                [
                    *common,
                    _money(o[RANK_METRIC_FIELDS[rank_by]], places) + _band(o.get("band"), places),
                    *([o["replicas"], _money(o["usd_per_million_output_tokens"], 3)] if rank_by == "fleet" else []),
                    f"{fixed(o['ttft_mean_ms'], 0)} ({fixed(o['ttft_p99_ms'], 0)})",
                    f"{fixed(o['tpot_mean_ms'], 1)} ({fixed(o['tpot_p99_ms'], 1)})",
                    ("<1" if o.get("requests_in_flight") is not None else str(o["batch"])) + _times_copies(o),
                    _measure(o["output_tokens_per_s"], TOKENS_PER_S_PLACES, _times_copies(o)),
                    *(
                        [
                            o["replicas"],
                            duration_text(o["job_hours"] * 3600),
                            _money(o["job_usd"], usd_places(o["job_usd"])) + _job_billed(o),
                        ]
                        if job
                        else []
                    ),
                    _flags(o, i),
                ]
            )
        else:
            rows.append(
                [
                    *common,
                    _money(o["usd_per_step"], 4),
                    _measure(o["step_time_s"], STEP_TIME_S_PLACES),
                    _measure(o["tokens_per_s_per_gpu"], TOKENS_PER_S_PLACES),
                    _measure(o["mfu"] * 100 if o.get("mfu") is not None else None, MFU_PERCENT_PLACES, "%"),
                    _run_time(o),
                    _measure(o.get("billed_hours"), 0 if (o.get("billed_hours") or 0) >= 10 else 1),
                    _run_total_text(o),
                    " ".join(f for f, on in (("close", _close(o, i)), ("NODES?", o.get("cluster_caveat"))) if on),
                ]
            )
    head = ["#", "config", "layout", "provider", "price terms, as of", "$/GPU-h"]
    head += (
        [
            f"{RANK_HEADERS[rank_by]} (band)",
            *(["replicas", "$/M out tok"] if rank_by == "fleet" else []),
            "TTFT ms mean (p99)",
            "TPOT ms mean (p99)",
            "batch",
            "tok/s",
        ]
        + [*(["replicas", "job time", "job $"] if job else []), ""]
        if inference
        else ["$/step", "step s", "tok/s/GPU", "MFU", "run time", "billed h", "total $ (band)", ""]
    )
    return table(head, rows)


def best_at_risk(payload: dict[str, Any]) -> str:
    """The label the results page gives the best row whose limits (inference) or deadline (training) hold on its
    estimate but not at its band's slow end, with the JSON's words and the flag that plans for the slow end; '' where
    the best is not at risk or nothing runs."""
    best = next((o for o in payload["options"] if o["feasible"] and o.get("rank", 1) == 1), None)
    if best is None:
        return ""
    if best.get("limits_at_risk"):
        return (
            f"#1 limits at risk: it meets the limits on its estimate, but {best['limits_at_risk']}; "
            "--limits-at band_high meets them even at the slow end of the bands"
        )
    if best.get("deadline_at_risk"):
        return (
            f"#1 deadline at risk: it finishes in time on its estimate, but {best['deadline_at_risk']}; "
            "--limits-at band_high meets the deadline even at the slow end of the band"
        )
    return ""


def best_near_tpot_floor(payload: dict[str, Any]) -> str:
    """The best row's note that its batch is held near the TPOT floor, as its assumptions say it on the page; ''
    where it has none (found by qa36: the CLI showed batch 5 at 40 ms and 18 at 50 ms with no reason)."""
    best = next((o for o in payload["options"] if o["feasible"] and o.get("rank", 1) == 1), None)
    said = [a for a in (best or {}).get("assumptions") or [] if a.startswith(NEAR_FLOOR_LEAD)]
    return f"#1 {said[0]}" if said else ""


def row_notes(payload: dict[str, Any], limit: int) -> str:
    """What the table's rows rest on beyond their figures, each said once with the ranks it applies to:
    `#1, #3: billed 730 h = max(29.8 h of use, 1-month minimum, ...)` (training), `#1: NODES? 16 nodes of 8 GPUs: ...`
    (a training run's or an inference replica's), `#2: one copy on a rented 8-GPU instance, 7 GPUs idle at peak` (a
    plan's fleet)."""
    ranks: dict[str, list[str]] = {}
    feasible = [o for o in payload["options"] if o["feasible"]][:limit]
    for position, o in enumerate(feasible, start=1):
        nodes = o.get("cluster_caveat") and f"NODES? {o['cluster_caveat']}"
        for text in (o.get("billing_note"), nodes, o.get("fleet_note")):
            if text:
                ranks.setdefault(text, []).append(f"#{o.get('rank', position)}")
    return "\n".join(f"{', '.join(where)}: {text}" for text, where in ranks.items())
