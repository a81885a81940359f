"""Precision side by side, for the /precision page, its .json twin, the API and `gpumatch precision`.

The query is the rank page's inference query without phase, weight_dtype and kv_dtype (each row sets
its own), so a ranking's link opens here with the same workload.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from app.scoring.inference.ranking.options import RANK_METRIC_FIELDS, RANK_UNITS
from app.scoring.inference.ranking.precision import PrecisionRow, compare_precisions
from app.scoring.inference.ranking.release_precision import stated_baseline
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service.charts import precision_cost
from app.service.plan import PlanFieldError, resolve_model
from app.service.query.canonical import canonical_pairs, canonical_query
from app.service.query.custom_model import ARCH_PREFIX, RAW_MODEL_FIELDS
from app.service.query.fields import query_fields
from app.service.query.phase import serving_phase_only
from app.service.query.plan import NOT_SERVING_FIELDS
from app.service.query.question import ParsedQuery, parse
from app.service.rank.answer_body import left_out_notes
from app.service.rank.plain import mean_latencies, plain

IGNORED = ("phase", "weight_dtype", "kv_dtype")  # every row sets its own dtypes: read (a bad one errs), unused
# The ranking's inference question: every workload field (a custom model through the form's fields), its conveniences.
PRECISION_FIELDS = query_fields(
    (
        *IGNORED,
        *(name for name in InferenceWorkload.model_fields if name not in RAW_MODEL_FIELDS),
        "hf_config_json",
        "tokens_per_s_per_user",
    ),
    prefixes=(ARCH_PREFIX,),
    reasons={name: NOT_SERVING_FIELDS[name] for name in RAW_MODEL_FIELDS},
)


def canonical_precision_query(workload: InferenceWorkload) -> str:
    pairs = [(k, v) for k, v in canonical_pairs("inference", workload) if k not in IGNORED]
    return urlencode(pairs, safe=",")


def parse_precision(items: list[tuple[str, str]]) -> ParsedQuery:
    """The ranking's inference question; a parameter it does not take (another phase among them) is an error
    naming it, never read."""
    phase_errors: dict[str, str] = {}
    served = serving_phase_only(items, phase_errors)
    unknown = PRECISION_FIELDS.errors(k for k, _ in served)
    query = parse([(k, v) for k, v in served if PRECISION_FIELDS.takes(k)], "inference")
    if unknown or phase_errors:
        return ParsedQuery("inference", None, query.values, {**phase_errors, **unknown, **query.errors})
    if query.workload is not None:
        assert isinstance(query.workload, InferenceWorkload)
        query.workload = query.workload.model_copy(update={"weight_dtype": "bf16", "kv_dtype": None})
        query.canonical = canonical_precision_query(query.workload)
    return query


def _row(row: PrecisionRow, rank_by: str) -> dict[str, Any]:
    best = row.best
    chosen = None
    if best is not None:
        chosen = {
            "gpu_id": best.gpu_id,
            "gpu_count": best.gpu_count,
            "tensor_parallel": best.tensor_parallel,
            "provider": best.provider,
            "provider_name": best.provider_name,
            "price_type": best.price_type,
            "price_note": best.price_note,
            "price_caveats": best.price_caveats,
            "price_source_url": best.price_source_url,
            "usd_per_gpu_hour": best.usd_per_gpu_hour,
            "as_of": best.as_of,
            "stale": best.stale,
            "interruptible": best.interruptible,
            "nodes": best.nodes,
            "instance_gpus": best.instance_gpus,
            "copies_per_instance": best.copies_per_instance,
            "instances": best.instances,
            "idle_gpus": best.idle_gpus,  # a fixed load bills its copies' whole instance, idle GPUs too
            "copies_sharing_load": best.copies_sharing_load,  # a fixed load spread over the copies it holds
            "spread_note": best.spread_note,
            "cluster_caveat": best.cluster_caveat,
            **mean_latencies(best.ttft_ms, best.tpot_ms),
            "ttft_p99_ms": best.ttft_p99_ms,  # what the limits are checked against, beside the means
            "tpot_p99_ms": best.tpot_p99_ms,
            "batch": best.batch,
            "requests_in_flight": best.requests_in_flight,  # below one in flight: the mean that meets the limits
            "output_tokens_per_s": best.output_tokens_per_s,
            "usd_per_million_output_tokens": best.usd_per_million_output_tokens,
            "usd_per_million_tokens": best.usd_per_million_tokens,
            "usd_per_thousand_requests": best.usd_per_thousand_requests,
            "ranked_cost": getattr(best, RANK_METRIC_FIELDS[rank_by]),
            "memory_gb_per_gpu": best.memory_gb,
            "replica_memory_gb": row.replica_memory_gb,
            "band": best.band,
            "replicas": best.replicas,
            "job_hours": best.job_hours,
            "job_usd": best.job_usd,
            "over_limits": best.over_limits,
        }
    return plain(
        {
            "key": row.key,
            "label": row.label,
            "weight_dtype": row.weight_dtype,
            "kv_dtype": row.kv_dtype,
            "runs_on": row.runs_on,
            "weights_gb": row.weights_gb,
            "kv_mb_per_1k_tokens": row.kv_mb_per_1k_tokens,
            "feasible_options": row.feasible_options,
            "best": chosen,
            "reason": row.reason,
            "quality": [{**plain(q), "baseline": stated_baseline(q)} for q in row.quality],
            "quality_note": row.quality_note,
            "role": row.role,
            "rank_url": f"/?{canonical_query('inference', row.workload)}" if row.workload is not None else None,
        }
    )


def precision_payload(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, share_url: str, charts: bool = True
) -> dict[str, Any]:
    """POST /api/v1/precision's body (raises PlanFieldError for an unknown model), with the /precision page's chart
    in numbers (`charts`) unless `charts` is false (the page, which draws it, adds them itself)."""
    model = resolve_model(workload, snapshot)
    comparison = compare_precisions(workload, snapshot, model)
    payload = {
        "workload": workload.model_dump(mode="json", exclude_none=True, exclude=set(IGNORED)),
        "model": {"id": model.id, "name": model.name, "params_b": model.params_b},
        "rank_by": comparison.rank_by,
        "ranked_unit": RANK_UNITS[comparison.rank_by],
        "rows": [_row(r, comparison.rank_by) for r in comparison.rows],
        "release": {**plain(comparison.release), "row": comparison.release.precision},
        "notes": [
            *comparison.notes,
            *left_out_notes(any(r.best is not None for r in comparison.rows), snapshot, workload),
        ],
        "catalog_version": snapshot.version,
        "share_url": share_url,
    }
    if charts:
        payload["charts"] = precision_cost.chart_tables(payload)
    return payload


__all__ = ["PlanFieldError", "canonical_precision_query", "parse_precision", "precision_payload"]
