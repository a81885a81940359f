"""Aggregated against disaggregated prefill/decode serving, for the /disagg page, its .json twin, the API
and `gpumatch disagg`.

The query is the /plan page's without a training run: the inference workload (rank-page names) and the
traffic (Traffic's names), so a plan link opens here with the same question.
"""

from __future__ import annotations

from typing import Any

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import percent, significant
from app.scoring.hardware.machines import shared_rack_caveat
from app.scoring.inference.bands.limits import at_band_high
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.pricing.price_terms import price_provenance
from app.scoring.serving.disaggregated.bands import (
    BORROWED_BANDS,
    LATENCY_BANDS_NOTE,
    PoolBands,
    aggregated_latency_bands,
    band_terms,
    pool_bands,
)
from app.scoring.serving.disaggregated.close_call import CLOSE_CALL_RULE, aggregated_cost_band, plan_cost_band
from app.scoring.serving.disaggregated.lines import unit_words
from app.scoring.serving.disaggregated.plan import Comparison, compare
from app.scoring.serving.disaggregated.pricing import DisaggregatedPlan, PoolCost
from app.scoring.serving.disaggregated.reasons import verdict
from app.scoring.serving.disaggregated.terms import aggregated_terms, plan_terms
from app.scoring.serving.plans.options import ServingOption, fleet_spare_words, peak_spread_at
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload
from app.service.charts import disagg_cost
from app.service.plan import PlanFieldError, served_model
from app.service.query.plan import TRAIN_PREFIX, PlanQuery, canonical_plan_query, parse_plan, serving_query_fields
from app.service.rank.answer_body import left_out_notes, weights_body
from app.service.rank.plain import mean_latencies, plain

NOTES = (
    "Both layouts are held to the limits the ranking uses: the mean TTFT under load within the p99 TTFT limit "
    f"÷ {significant(DEFAULT_EFFICIENCY.p99_ttft_over_mean)}, and the mean step within "
    f"{percent(DEFAULT_EFFICIENCY.slo_tpot_utilisation)} of the p99 TPOT limit (the share the ranking's TPOT check "
    "allows).",
    "KV cache moves only between offers of one provider joined by an inter-node fabric, or inside one node or one "
    "NVLink domain (a rack of nodes, as GB200 NVL72) that holds both roles; each instance runs inside one node or "
    "NVLink domain (tensor, or tensor × pipeline, parallel), as the ranking tries.",
    "Monthly costs are autoscaled hour by hour over the traffic's week, each pool on its own (where one node or "
    "NVLink domain holds both roles, its group of instances scales whole), above the traffic's replica floor: the "
    "/plan page's basis.",
    "Each decode instance generates every output token, as aggregated serving's throughput counts them.",
    "$ per million tokens here is at this traffic: the month's autoscaled cost ÷ the tokens served in it, idle "
    "capacity included. The ranking and /plan quote $ per million output tokens at full load (a replica's $/hour ÷ "
    "what it serves an hour), lower unless the fleet is always busy; the aggregated row gives both.",
    LATENCY_BANDS_NOTE,
    f"Close call: the verdict compares the two monthly costs' bands. {CLOSE_CALL_RULE}",
)


ONE_TOKEN_OUTPUT = (
    "must be at least 2 to disaggregate: a one-token output comes whole from the prefill pass, leaving a decode pool "
    "nothing to do (rank it on / instead)"
)
DISAGG_FIELDS = serving_query_fields()  # the plan's question without its training run


def canonical_disagg_query(workload: InferenceWorkload, traffic: Traffic) -> str:
    return canonical_plan_query(workload, traffic, None, None)


def parse_disagg(items: list[tuple[str, str]]) -> PlanQuery:
    """The plan query without `months` and the train_* fields (a plan link opens here, its training run left out
    of the redirect); any other parameter its question does not take is an error naming it."""
    kept = [(k, v) for k, v in items if k != "months" and not k.startswith(TRAIN_PREFIX)]
    query = parse_plan(kept, DISAGG_FIELDS)
    if query.workload is not None and query.traffic is not None:
        query.canonical = canonical_disagg_query(query.workload, query.traffic)
    return query


def _rack_caveat(pool: PoolCost, plan: DisaggregatedPlan) -> str:
    """What the pool assumes of a rack-scale offer: its instance spans rented instances, or (node path) one unit holds
    both roles' instances across rented instances of one rack (machines.shared_rack_caveat)."""
    x = plan.pairing
    gpus = x.node_gpus_used if x.path == "node" else pool.offer.instance.gpu_count
    return shared_rack_caveat(pool.offer.machine, gpus)


def _pool(pool: PoolCost, plan: DisaggregatedPlan, bands: PoolBands | None, high: bool) -> dict[str, Any]:
    i, o = pool.offer.instance, pool.offer.offer
    prefill = pool.role == "prefill"
    load, decoder = plan.pairing.load, plan.pairing.decode_instance
    return {
        "role": pool.role,
        "gpu_id": o.gpu_id,
        "gpu_count": i.gpu_count,
        "tensor_parallel": i.tensor_parallel,
        "pipeline_parallel": i.pipeline_parallel,
        "attention_parallel": "dp" if i.attention_dp > 1 else "tp",
        "provider": o.provider_id,
        "provider_name": o.provider_name,
        "price_type": o.price_type,
        "usd_per_gpu_hour": o.usd_per_gpu_hour,
        "as_of": o.as_of,
        **price_provenance(o.price_note, o.source_url, o.stale, _rack_caveat(pool, plan)),
        "machine": pool.offer.machine.describe(),
        "batch": load.prompts if prefill else decoder.batch,
        "step_ms": load.pass_ms if prefill else decoder.step_ms,
        "capacity_requests_per_s": load.capacity_rps if prefill else decoder.capacity_rps,
        "replicas_at_peak": pool.replicas_at_peak,
        "copies_per_rental": pool.copies_per_rental,
        "rentals_at_peak": pool.rentals_at_peak,
        "gpus_at_peak": pool.gpus_at_peak,
        "copies_needed_at_peak": pool.copies_needed_at_peak,
        "idle_gpus_at_peak": pool.idle_gpus_at_peak,
        "fleet_note": pool.fleet_note,
        "utilisation_at_peak": pool.utilisation_at_peak,
        "busy_share_at_peak": pool.utilisation_at_peak * (load.utilisation if prefill else 1.0),
        "monthly_usd": pool.monthly_usd,
        "usd_per_million_tokens_at_traffic": pool.usd_per_million_tokens_at_traffic,
        "usd_per_million_tokens": pool.usd_per_million_tokens_at_traffic,  # deprecated name (schemas.py)
        "tokens": "prompt" if prefill else "output",
        **_latency_band(prefill, bands, high),
    }


def _latency_band(prefill: bool, bands: PoolBands | None, high: bool) -> dict[str, Any]:
    """The borrowed band of the latency the pool is sized for (prefill: the plan's mean TTFT, its KV transfer on the
    estimate; decode: the mean TPOT); at limits_at band_high (`high`) also the band's high ratio it was sized with."""
    if bands is None:
        return {}
    band, ratio = bands.ttft_mean_ms, bands.ttft_high_ratio
    if not prefill:
        band, ratio = bands.tpot_mean_ms, bands.tpot_high_ratio
    return {"latency_band_ms": band, **({"latency_band_high_ratio": ratio} if high else {})}


def _plan(plan: DisaggregatedPlan, model: ModelSpec, workload: InferenceWorkload) -> dict[str, Any]:
    x, bands, high = plan.pairing, pool_bands(plan), at_band_high(workload)
    return {
        "ratio": plan.ratio,
        "path": x.path,
        "prefill_per_node": x.prefill_per_unit if x.path == "node" else None,
        "decode_per_node": x.decode_per_unit if x.path == "node" else None,
        "nodes_at_peak": plan.units_at_peak if x.path == "node" else None,
        "node_unit": x.prefill.machine.unit_name,
        "unit_label": unit_words(x)[0] if x.path == "node" else None,
        "idle_gpus_at_peak": plan.idle_gpus_at_peak,
        "kv_transfer_ms": x.transfer_ms,
        "kv_transfer_gbs": x.transfer_gbs,
        **mean_latencies(plan.ttft_ms, plan.tpot_ms),
        "monthly_usd": plan.monthly_usd,
        "usd_per_million_output_tokens_at_traffic": plan.usd_per_million_output_tokens_at_traffic,
        "usd_per_million_tokens_at_traffic": plan.usd_per_million_tokens_at_traffic,
        "usd_per_million_output_tokens": plan.usd_per_million_output_tokens_at_traffic,  # deprecated names
        "usd_per_million_tokens": plan.usd_per_million_tokens_at_traffic,
        "monthly_usd_band": plan_cost_band(plan),
        "prefill": _pool(plan.prefill, plan, bands, high),
        "decode": _pool(plan.decode, plan, bands, high),
        "terms": plan_terms(plan, model, workload) + band_terms(bands, workload),
    }


def _aggregated(c: Comparison, workload: InferenceWorkload) -> dict[str, Any] | None:
    s = c.aggregated
    if s is None:
        return None
    o = s.option
    latency = aggregated_latency_bands(o)
    return {
        "gpu_id": o.gpu_id,
        "gpu_count": o.gpu_count,
        "rented_gpus": o.rented_gpus,  # per replica: an instance holding several copies is rented whole
        "copies_per_instance": o.copies_per_instance,
        "tensor_parallel": o.tensor_parallel,
        "pipeline_parallel": o.pipeline_parallel,
        "attention_parallel": o.attention_parallel,
        "provider": o.provider,
        "provider_name": o.provider_name,
        "price_type": o.price_type,
        "usd_per_gpu_hour": o.usd_per_gpu_hour,
        "as_of": o.as_of,
        "price_note": o.price_note,
        "price_caveats": o.price_caveats,  # the ranked row's: its layout's assumption included
        "price_source_url": o.price_source_url,
        "stale": o.stale,
        "batch": o.batch,
        "requests_in_flight": o.requests_in_flight,  # below one in flight: the mean that meets the limits
        "decode_only_batch": c.aggregated_decode_only.batch if c.aggregated_decode_only else None,
        **mean_latencies(o.ttft_ms, o.tpot_ms),
        "ttft_p99_ms": o.ttft_p99_ms,  # what the ranking checks the limits against; a plan's pools have means only
        "tpot_p99_ms": o.tpot_p99_ms,
        "ttft_mean_band_ms": latency[0] if latency else None,
        "tpot_mean_band_ms": latency[1] if latency else None,
        "output_tokens_per_s": o.output_tokens_per_s,
        "replicas_at_peak": s.replicas_at_peak,
        "instances_at_peak": s.instances_at_peak,
        "gpus_at_peak": s.units_at_peak * o.rented_gpus,
        "monthly_usd": s.cost.monthly_usd_autoscaled,
        "monthly_usd_band": aggregated_cost_band(s, c.aggregated_regime),
        "usd_per_million_output_tokens_at_traffic": c.aggregated_usd_per_million_output_tokens_at_traffic,
        "usd_per_million_output_tokens_full_load": o.usd_per_million_output_tokens,  # the ranking's and /plan's
        "usd_per_million_output_tokens": c.aggregated_usd_per_million_output_tokens_at_traffic,  # deprecated name
        "terms": aggregated_terms(c, workload),
        "idle_gpus_at_peak": s.idle_gpus_at_peak,
        "fleet_note": fleet_spare_words(s),
        "copies_at_peak_if_spread": _spread_copies(s),
    }


def _spread_copies(s: ServingOption) -> int | None:
    """The copies fleet_note says the spare GPUs would run (found by left34: the page's hover text says it too)."""
    spread = peak_spread_at(s)
    return spread[0] if spread is not None and s.idle_gpus_at_peak else None


def _borrowed_bands(workload: InferenceWorkload) -> dict[str, str]:
    """At limits_at band_high, where the pools' limits hold and whose bands those are (the answer's
    `limits_at_bands`); on the estimate, nothing."""
    return {"limits_at_bands": BORROWED_BANDS} if at_band_high(workload) else {}


def disagg_payload(
    workload: InferenceWorkload, traffic: Traffic, snapshot: CatalogSnapshot, share_url: str, charts: bool = True
) -> dict[str, Any]:
    """POST /api/v1/disagg's body (raises PlanFieldError for an unknown model), with the /disagg page's chart in
    numbers (`charts`, empty where no layout serves) unless `charts` is false (the page adds them as it draws)."""
    # a one-token output's only token comes from the prefill pass: there is nothing to decode apart
    one_token = {"workload.output_len": ONE_TOKEN_OUTPUT} if workload.output_len < 2 else {}
    model = served_model(workload, snapshot, "workload.", one_token)
    workload, weights = release_weights(workload, model, snapshot.quality)
    comparison = compare(workload, traffic, snapshot, model)
    answer = verdict(comparison, model, workload)
    payload: dict[str, Any] = plain(
        {
            "workload": workload.model_dump(mode="json", exclude_none=True),
            "traffic": {
                **traffic.model_dump(mode="json", exclude_none=True),
                "requests_per_day": traffic.daily_requests(),
                "peak_requests_per_s": comparison.peak_requests_per_s,
            },
            "model": {"id": model.id, "name": model.name, "params_b": model.params_b},
            "weights": weights_body(weights),
            "verdict": {
                "winner": answer.winner,
                "headline": answer.headline,
                "saving_usd_per_month": answer.saving_usd_per_month,
                "saving_share": answer.saving_share,
                "why": answer.why,
                "close_call": bool(answer.close_call and answer.close_call.close),
                "close_call_reason": answer.close_call.words if answer.close_call else None,
            },
            "aggregated": _aggregated(comparison, workload),
            "disaggregated": [_plan(p, model, workload) for p in comparison.plans],
            "pairings_considered": comparison.pairings_considered,
            **_borrowed_bands(workload),
            "notes": [
                *left_out_notes(comparison.aggregated is not None or bool(comparison.plans), snapshot, workload),
                *NOTES,
                weights.note,
                *traffic.reading_notes(),
            ],
            "catalog_version": snapshot.version,
            "share_url": share_url,
        }
    )
    if charts:
        payload["charts"] = disagg_cost.chart_tables(payload)
    return payload


__all__ = ["PlanFieldError", "canonical_disagg_query", "disagg_payload", "parse_disagg"]
