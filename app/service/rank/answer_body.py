"""The body of a ranking's answer around its rows: the workload, model, counts and notes every answer gives, and what a
phase adds: for training the scale-out frontier, the batch and a link at enough GPUs; for inference the weights
ranked, the lowest p99 a load allows, a batch job's price through serverless APIs and, where one replica takes a
load at twice the cost or more, a link to replicas sized to the limits."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import fixed, significant, usd_shown
from app.scoring.inference.ranking.nearest_miss import NearestMiss
from app.scoring.inference.ranking.options import idle_gpus_words
from app.scoring.inference.ranking.release_precision import Weights
from app.scoring.pricing.offers import left_out_note, matching_offers
from app.scoring.pricing.price_terms import HOURS_PER_MONTH
from app.scoring.specs import PRICE_TYPES, CatalogSnapshot, ModelSpec
from app.scoring.training.run.batch_size import global_batch
from app.scoring.workload import Filters, InferenceWorkload, TrainingWorkload
from app.service.query.canonical import canonical_query
from app.service.rank.model_spec import Workload
from app.service.rank.plain import plain


def answer_body(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    ranking: Any,
    rows: list[dict[str, Any]],
    share_url: str,
    weights: Weights | None = None,
) -> dict[str, Any]:
    extra: dict[str, Any] = {} if weights is None else {"weights": weights_body(weights)}
    if phase == "training":  # what scaling out buys: days and total cost per GPU count of the leading machines
        extra["deadline_days"] = getattr(workload, "max_days", None)
        extra["frontier"] = plain(getattr(ranking, "frontier", []))
        assert isinstance(workload, TrainingWorkload)
        extra["global_batch"] = _global_batch(workload, model)
        wider = getattr(ranking, "deadline_max_gpus", None)
        if wider:  # nothing on time, and Max GPUs is what stops the nearest run: the same question at enough GPUs
            at_wider = workload.model_copy(update={"max_gpus": wider})
            extra["deadline_max_gpus"] = {"max_gpus": wider, "url": "/?" + canonical_query("training", at_wider)}
    else:
        extra["rank_by"] = getattr(ranking, "rank_by", "output_tokens")
        extra["over_limits_options"] = getattr(ranking, "over_limits_count", 0)  # the last feasible ones
        if getattr(ranking, "lowest_p99", None):  # every feasible option is over the limits: what this load allows
            extra["lowest_p99"] = plain(ranking.lowest_p99)
        nearest = getattr(ranking, "nearest_miss", None)
        if nearest is not None and isinstance(workload, InferenceWorkload):  # nothing feasible: what would admit one
            extra["nearest_option"] = nearest_option_body(nearest, workload)
        if isinstance(workload, InferenceWorkload) and workload.job_requests:
            extra["serverless_job"], extra["serverless_job_left_out"] = serverless_job(workload, snapshot, model)
        sized = replicas_workload(workload) if isinstance(workload, InferenceWorkload) else None
        if sized is not None:  # the link the results page always gives beside a load one replica takes whole
            extra["replicas_url"] = "/?" + canonical_query("inference", sized)
        cheaper = (
            cheaper_on_replicas(workload, snapshot, model, ranking) if isinstance(workload, InferenceWorkload) else None
        )
        if cheaper is not None:
            extra["replicas"] = cheaper
        behind = overloaded_replicas(workload, ranking) if isinstance(workload, InferenceWorkload) else None
        if behind is not None:
            extra["overloaded"] = behind
    return {
        "phase": phase,
        "workload": workload.model_dump(mode="json", exclude_none=True),
        "model": plain(model),
        "options": rows,
        "total_options": len(ranking.options),
        "feasible_options": ranking.feasible_count,
        "notes": list(getattr(ranking, "notes", []))
        + left_out_notes(bool(ranking.feasible_count), snapshot, workload)
        + unoffered_gpus_notes(snapshot, workload)
        + ([weights.note] if weights else [])
        + ([extra["replicas"]["note"]] if "replicas" in extra else [])
        + ([extra["nearest_option"]["note"]] if "nearest_option" in extra else []),
        "catalog_version": snapshot.version,
        "share_url": share_url,
        **extra,
    }


def nearest_option_body(nearest: NearestMiss, workload: InferenceWorkload) -> dict[str, Any]:
    """An inference answer's `nearest_option`: the refusal nearest the limits, and the question at the limits named."""
    at_limits = workload.model_copy(update={"ttft_ms": nearest.ttft_ms, "tpot_ms": nearest.tpot_ms})
    return {**nearest._asdict(), "url": "/?" + canonical_query("inference", at_limits)}


def weights_body(weights: Weights) -> dict[str, Any]:
    """An inference answer's `weights`: the dtype it ranked, whether that is the model's release precision, and why."""
    release = weights.release
    return {
        "weight_dtype": weights.dtype,
        "from_release": weights.from_release,
        "release_precision": release.precision,
        "release_assumed": release.assumed,
        "release_source": release.source,
        "note": weights.note,
    }


# One replica taking a load whole costs at least this many times the cheapest per token of replicas sized to meet the
# limits: then the answer points at the replicas (twice is well outside the ±25 % the estimates' bands span).
REPLICAS_NOTE_RATIO = 2.0


def replicas_workload(workload: InferenceWorkload) -> InferenceWorkload | None:
    """For a load one replica takes whole (a request rate, or clients in flight): the same question as latency_bound
    with that load as its peak, so replicas sized to meet the limits carry it (None for any other question)."""
    if workload.scenario == "request_rate" and workload.requests_per_s:
        peak = max(workload.peak_requests_per_s or 0.0, workload.requests_per_s)
        update: dict[str, object] = {"requests_per_s": None, "peak_requests_per_s": peak, "peak_concurrency": None}
    elif workload.scenario == "concurrency" and workload.concurrency and not workload.peak_requests_per_s:
        clients = max(workload.peak_concurrency or 0, workload.concurrency)
        update = {"concurrency": None, "peak_concurrency": clients}
    else:
        return None
    return workload.model_copy(update={"scenario": "latency_bound", **update})


def cheaper_on_replicas(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec, ranking: Any
) -> dict[str, Any] | None:
    """Where the best row takes a load on one replica at REPLICAS_NOTE_RATIO or more times the $ per million output
    tokens that replicas sized to meet the limits cost at the same traffic (an 8B model at 512 clients, seeded
    catalog: 4 B200s in one TP2 x PP2 replica, Lambda's 4-GPU instance, at $0.699/M, 3.2x the $0.218/M of five 1-GPU
    H100 replicas), the note saying so and the link to that
    question (replicas_workload). The replicas are the linked question's cheapest fleet, billed whole at the traffic
    (fleet_usd_per_million_at_traffic): a replica's $ per token at full load would count a fleet of one half-idle
    replica at the price of a full one. The best row is billed alike: every GPU of the instances its copies rent
    (pricing.one_replica_load)."""
    sized = replicas_workload(workload)
    best = ranking.options[0] if ranking.feasible_count else None
    if sized is None or best is None or not best.usd_per_million_output_tokens:
        return None
    from app.scoring.inference.ranking.fleet_leader import fleet_leader

    best_usd = best.usd_per_million_output_tokens
    sized_by_fleet = sized.model_copy(update={"rank_by": "fleet"})
    fleet = fleet_leader(sized_by_fleet, snapshot, model, lambda month: _could_be_noted(workload, best_usd, month))
    fleet_usd = fleet_usd_per_million_at_traffic(workload, fleet) if fleet is not None else None
    if fleet is None or not fleet_usd:
        return None
    ratio = best_usd / fleet_usd
    assert fleet.usd_per_month_at_peak is not None  # ranked by fleet: each option's month at the peak
    if ratio < REPLICAS_NOTE_RATIO:
        return None
    load = f"{workload.concurrency:,} clients" if workload.scenario == "concurrency" else "this request rate"
    replicas = f"{fleet.replicas} replica{'s' if fleet.replicas != 1 else ''}"
    times = fixed(ratio, 1 if ratio < 10 else 0)  # "2.3×": a buyer divides the two prices (qa31)
    idle = ", " + idle_gpus_words(best.idle_gpus, best.instances, best.instance_gpus) if best.idle_gpus else ""
    taking = "One replica taking all"
    if best.copies_sharing_load > 1:  # a fixed load spread over the copies of its billed instance (spread_load.py)
        taking = f"{best.copies_sharing_load} copies on one rented instance sharing"
        idle = f", {best.idle_gpus} GPU{'s' if best.idle_gpus != 1 else ''} idle" if best.idle_gpus else ""
    note = (
        f"{taking} {load} costs {usd_shown(best.usd_per_million_output_tokens, 3)} per million "
        f"output tokens at best ({best.gpu_count}×{best.gpu_id}, TP{best.tensor_parallel}×"
        f"PP{best.pipeline_parallel}{idle}), {times}× the {usd_shown(fleet_usd, 3)} of replicas sized "
        f"to meet the limits ({fleet.gpu_count}×{fleet.gpu_id} each, {replicas}, "
        f"${fixed(fleet.usd_per_month_at_peak, 0)} a month; both $ per million are the bill over the tokens this load "
        "makes, where the peak ranking's $/M is each replica's at full load): rank the same load as a peak"
    )
    return {
        "note": note,
        "url": "/?" + canonical_query("inference", sized),
        "usd_per_million_output_tokens": round(fleet_usd, 6),
        "ratio": round(ratio, 3),
    }


def overloaded_replicas(workload: InferenceWorkload, ranking: Any) -> dict[str, Any] | None:
    """Where nothing runs because one replica falls behind the load on every offer that holds the model (an open loop
    above capacity: refusals.overload_reason), the same load on replicas sized to meet the limits, as the results page
    links it: its words and its link (replicas_workload), so the JSON, the CSV's reader and the CLI get it too."""
    sized = replicas_workload(workload)
    if sized is None or ranking.feasible_count:
        return None
    keys = ranking.row_keys[0 : len(ranking.options)]
    if not any(key.reason.startswith("overloaded") for key in keys):
        return None
    load = (
        f"{workload.concurrency:,} clients"
        if workload.scenario == "concurrency"
        else f"{significant(workload.requests_per_s or 0.0)} requests/s"
    )
    return {
        "note": f"The copies one rented instance holds fall behind {load} on every offer that holds the model "
        "(overloaded): rank the same "
        "load as a peak, spread over replicas sized to meet the limits",
        "url": "/?" + canonical_query("inference", sized),
    }


def _could_be_noted(workload: InferenceWorkload, best_usd: float, fleet_usd_per_month: float) -> bool:
    """Whether a fleet at this month could be noted: at a request rate the traffic is the workload's, so its $ per
    million tokens (fleet_usd_per_million_at_traffic's sum) must leave the ratio at REPLICAS_NOTE_RATIO or more; a
    closed loop's traffic is the fleet's own (any fleet could be)."""
    if workload.scenario != "request_rate":
        return True
    fleet_usd = usd_per_million_at(fleet_usd_per_month, (workload.requests_per_s or 0.0) * workload.output_len)
    return not fleet_usd or best_usd / fleet_usd >= REPLICAS_NOTE_RATIO


def usd_per_million_at(usd_per_month: float, tokens_per_s: float) -> float | None:
    """$ per million output tokens of a monthly bill at `tokens_per_s` around the clock (None: no traffic)."""
    if tokens_per_s <= 0:
        return None
    return usd_per_month / HOURS_PER_MONTH / (tokens_per_s * 3600 / 1e6)


def fleet_usd_per_million_at_traffic(workload: InferenceWorkload, fleet: Any) -> float | None:
    """$ per million output tokens of a fleet ranked at a peak (its monthly bill, whole replicas always on) at the
    traffic of a live-traffic question: a request rate's requests x output tokens a second, or each of its clients
    served as a replica at the limits serves one of its batch (the requests/s it sustains, Little's law, per slot)."""
    if not fleet.usd_per_month_at_peak or not fleet.batch:
        return None
    if workload.scenario == "request_rate":
        tokens_per_s = (workload.requests_per_s or 0.0) * workload.output_len
    else:
        tokens_per_s = (workload.concurrency or 0) * (fleet.requests_per_s or 0.0) * workload.output_len / fleet.batch
    return usd_per_million_at(fleet.usd_per_month_at_peak, tokens_per_s)


def _global_batch(workload: TrainingWorkload, model: ModelSpec) -> dict[str, Any]:
    """The batch the ranking used and why; for pretraining far below a published batch, a link to the same
    question at that batch (the same token budget, fewer steps)."""
    batch = global_batch(model, workload)
    body: dict[str, Any] = plain(batch)
    if batch.typical is not None:
        at_typical = workload.model_copy(update={"global_batch_seqs": batch.typical.sequences})
        body["typical"]["url"] = "/?" + canonical_query("training", at_typical)
    return body


def left_out_notes(answered: bool, snapshot: CatalogSnapshot, filters: Filters) -> list[str]:
    """Where an answer has nothing feasible (a ranking, /precision, /mix, /disagg, /plan): the offers the filters'
    price terms or staleness left out, if that is why, in the ranking's words on every face."""
    if answered:
        return []
    note = left_out_note(snapshot.offers, snapshot.gpus, filters)
    return [note] if note else []


def unoffered_gpus_notes(snapshot: CatalogSnapshot, filters: Filters) -> list[str]:
    """The GPUs a `gpus` filter names that no offer matches on any price terms, stale or not: a known GPU nobody here
    rents is no error (catalog_ids), but a ranking silently without it read as though it had lost (found by qa44:
    RTX-3090 and RTX-6000-ADA asked beside L40S and H100 left no trace in the JSON or the page)."""
    if not filters.gpus:
        return []
    loose = filters.model_copy(update={"price_types": list(PRICE_TYPES), "include_stale": True})
    offered = {o.gpu_id.lower() for o in matching_offers(snapshot.offers, snapshot.gpus, loose)}
    missing = [g for g in filters.gpus if g.lower() not in offered]
    if not missing:
        return []
    names = f"{', '.join(missing[:-1])} or {missing[-1]}" if len(missing) > 1 else missing[0]
    return [f"No offer of {names} matches the filters on any price terms, stale or not, so the ranking has none."]


SERVERLESS_JOB_QUOTES = 3  # the cheapest per-token API prices a batch job is set beside


def serverless_job(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The same batch job through the cheapest per-token APIs that list the model (or a comparable listed model,
    marked substitute): requests x each request's price at the list prices (no batch-API discount is in the
    reference prices). Only current, verified prices are compared (stale ones too with include_stale); the
    second list holds the labelled prices left out that would have cost less than the first compared one."""
    from app.scoring.serving.serverless.quotes import cheapest_comparable, serverless_quotes

    requests = workload.job_requests or 0
    quotes = serverless_quotes(
        model,
        snapshot.token_prices,
        snapshot.models,
        0.0,
        workload.input_len,
        workload.output_len,
        workload.prefix_cache_hit or 0.0,
        include_stale=workload.include_stale,
    )

    def row(quote: Any) -> dict[str, Any]:
        shown = {k: v for k, v in plain(quote).items() if k != "monthly_usd"}
        return {**shown, "job_usd": round(quote.usd_per_request * requests, 6)}

    best = cheapest_comparable(quotes)
    used = [row(q) for q in quotes if q.comparable][:SERVERLESS_JOB_QUOTES]
    left_out = [
        row(q) for q in quotes if not q.comparable and (best is None or q.usd_per_request < best.usd_per_request)
    ][:SERVERLESS_JOB_QUOTES]
    return used, left_out
