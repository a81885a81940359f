"""The cheapest GPU mix for a request-length distribution, for /mix, its .json twin, the API and `gpumatch mix`.

The query string is the MixQuestion's fields by name, the distribution as one text field
(`mix=chat:0.4,rag:0.4,1000x200:0.2`); model, traffic and mix are always written, other defaults left out.
A custom model is the rank page's: `model=custom` and arch_* fields, or a pasted config.json (hf_config_json).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlencode

from pydantic import ValidationError

from app.scoring.inference.ranking.release_precision import Weights, release_precision, weights_for
from app.scoring.input_checks.messages import error_location, error_message
from app.scoring.pricing.price_terms import price_provenance
from app.scoring.serving.mix.candidates import ReplicaType
from app.scoring.serving.mix.plan import Fleet, MixPlan, plan_mix
from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.mix.request_shapes import SHAPES
from app.scoring.serving.mix.spread import RowSpread
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload
from app.service.charts import mix_cost
from app.service.mix_context import beyond_context_message, typed_mix_beyond_context
from app.service.plan import PlanFieldError, resolve_model
from app.service.query.canonical import EXPLICIT_FIELDS
from app.service.query.custom_model import (
    ARCH_PREFIX,
    RAW_MODEL_FIELDS,
    architecture_pairs,
    custom_model_fields,
    form_field,
)
from app.service.query.fields import query_fields
from app.service.query.phase import QuestionKind, serving_phase_only
from app.service.query.plan import NOT_SERVING_FIELDS
from app.service.query.values import (
    LIST_FIELDS,
    collect_values,
    format_value,
    non_default_fields,
    query_shape_errors,
    read_numbers,
)
from app.service.rank.answer_body import left_out_notes, weights_body
from app.service.rank.model_spec import LENGTHS, model_of
from app.service.rank.plain import mean_latencies, plain

ALWAYS = ("model", "mix", "requests_per_day")  # a link always says what is served, to whom, how much
SINGLE_TYPES_SHOWN = 8
# The question's fields by name, a custom model as the form gives it (arch_* fields, a pasted config.json).
MIX_FIELDS = query_fields(
    (*(name for name in MixQuestion.model_fields if name not in RAW_MODEL_FIELDS), "hf_config_json"),
    prefixes=(ARCH_PREFIX,),
    reasons={name: NOT_SERVING_FIELDS[name] for name in RAW_MODEL_FIELDS},
)


@dataclass
class MixQuery:
    kind: ClassVar[QuestionKind] = "mix"
    question: MixQuestion | None
    values: dict[str, Any]  # what was typed, to refill the form
    errors: dict[str, str] = field(default_factory=dict)
    canonical: str = ""


def _text(name: str, value: Any) -> str:
    if name in LIST_FIELDS:
        return ",".join(value)
    return format_value(value)


def canonical_mix_query(question: MixQuestion) -> str:
    """The question's link: a custom model (given field by field or as a config.json) as `model=custom` and its
    arch_* fields, as the rank page's link writes it."""
    pairs = [
        ("model", question.model or "custom"),
        ("mix", question.distribution_text),
        ("requests_per_day", format_value(question.requests_per_day)),
    ]
    given = EXPLICIT_FIELDS.intersection(question.model_fields_set)
    skip = (*ALWAYS, *RAW_MODEL_FIELDS)
    pairs += [(k, _text(k, v)) for k, v in non_default_fields(question, given=given) if k not in skip]
    pairs += architecture_pairs(question) or []
    return urlencode(pairs, safe=",:")


def _message(error: Any) -> tuple[str, str]:
    loc = list(error_location(error)) or ["mix"]
    message = error_message(error)
    if loc[0] == "mix" and len(loc) > 1:  # a bucket of the list: say which
        where = f"bucket {int(loc[1]) + 1}" if loc[1].isdigit() else loc[1]
        message = f"{where}{', ' + loc[2] if len(loc) > 2 else ''}: {message}"
        return "mix", message
    return form_field(loc), message


def question_errors(exc: ValidationError) -> dict[str, str]:
    errors: dict[str, str] = {}
    for error in exc.errors():
        name, message = _message(error)
        errors.setdefault(name, message)
    return errors


def parse_mix(items: list[tuple[str, str]]) -> MixQuery:
    phase_errors: dict[str, str] = {}
    items = serving_phase_only(items, phase_errors)
    typed = collect_values(items)
    values = read_numbers(typed)
    errors = {**phase_errors, **query_shape_errors(items)}
    errors.update(MIX_FIELDS.errors(k for k, _ in items))
    data = custom_model_fields({k: v for k, v in values.items() if MIX_FIELDS.takes(k)}, errors)
    try:
        question = MixQuestion.model_validate(data)
    except ValidationError as exc:
        return MixQuery(None, typed, {**errors, **question_errors(exc)})
    if errors:
        return MixQuery(None, typed, errors)
    return MixQuery(question, typed, canonical=canonical_mix_query(question))


def _replica(r: ReplicaType, bucket_names: list[str]) -> dict[str, Any]:
    return {
        "key": r.key,
        "label": r.label,
        "gpu_id": r.gpu_id,
        "gpu_count": r.gpu_count,
        "rented_gpus": r.rented_gpus or r.gpu_count,  # one replica: a whole instance holding `copies` copies
        "copies": r.copies,
        "tensor_parallel": r.tensor_parallel,
        "pipeline_parallel": r.pipeline_parallel,
        "provider": r.provider,
        "provider_name": r.provider_name,
        "price_type": r.price_type,
        "usd_per_gpu_hour": r.usd_per_gpu_hour,
        "as_of": r.as_of.isoformat() if r.as_of else None,
        **price_provenance(r.price_note, r.price_source_url, r.stale, r.layout_caveat),
        "machine": r.machine,
        "usd_per_replica_month": round(r.usd_per_replica_month, 2),
        "cheapest_for": list(r.cheapest_for),
        "fits": [
            {"bucket": name, **plain(f), **plain(mean_latencies(f.ttft_ms, f.tpot_ms))}
            for name, f in zip(bucket_names, r.fits, strict=True)
        ],
    }


def _fleet(fleet: Fleet | None, bucket_names: list[str]) -> dict[str, Any] | None:
    if fleet is None:
        return None
    rows = []
    for row in fleet.rows:
        r, spread = row.replica, row.spread
        rows.append(
            {
                "replica": r.key,
                "label": r.label,
                "gpu_id": r.gpu_id,
                "gpu_count": r.gpu_count,
                "rented_gpus": r.rented_gpus or r.gpu_count,
                "copies": r.copies,
                "provider_name": r.provider_name,
                "price_type": r.price_type,
                "usd_per_gpu_hour": r.usd_per_gpu_hour,
                "as_of": r.as_of.isoformat() if r.as_of else None,
                **price_provenance(r.price_note, r.price_source_url, r.stale, r.layout_caveat),
                "replicas": row.replicas,
                "load_replicas": round(row.load_replicas, 6),
                "shares": {n: round(s, 6) for n, s in zip(bucket_names, row.shares, strict=True)},
                "serves": [n for n, s in zip(bucket_names, row.shares, strict=True) if s > 1e-9],
                "usd_per_month": round(row.usd_per_month, 2),
                "terms": plain(row.terms),
                "copies_at_peak": row.copies_at_peak,
                "idle_gpus_at_peak": row.idle_gpus_at_peak,
                "fleet_note": spread.note,
                **_spread_fields(spread),
            }
        )
    return {
        "label": fleet.label,
        "usd_per_month": round(fleet.usd_per_month, 2),
        "gpu_types": list(fleet.gpu_types),
        "rows": rows,
    }


def _spread_fields(spread: RowSpread) -> dict[str, Any]:
    """A row's load, what one copy sustains, and its load over every copy its instances hold (mix/spread.py)."""
    p99: list[float | None] = [round(ms, 6) for ms in spread.p99_ms] or [None, None]
    return {
        "requests_per_s_at_peak": round(spread.requests_per_s, 6),
        "one_copy_requests_per_s": round(spread.one_copy_requests_per_s, 6),
        "copies_at_peak_if_spread": spread.copies or None,
        "spread_requests_per_s": None if spread.requests_per_s_each is None else round(spread.requests_per_s_each, 6),
        "spread_ttft_p99_ms": p99[0],
        "spread_tpot_p99_ms": p99[1],
    }


def mix_body(plan: MixPlan) -> dict[str, Any]:
    names = [b.name for b in plan.buckets]
    return {
        "requests_per_day": plan.requests_per_day,
        "peak_requests_per_s": round(plan.peak_requests_per_s, 6),
        "buckets": plain(plan.buckets),
        "mix": _fleet(plan.mix, names),
        "best_single": _fleet(plan.singles[0] if plan.singles else None, names),
        "singles": [_fleet(f, names) for f in plan.singles[:SINGLE_TYPES_SHOWN]],
        "single_types_feasible": len(plan.singles),
        "saving_usd_per_month": None if plan.saving_usd_per_month is None else round(plan.saving_usd_per_month, 2),
        "saving_pct": None if plan.saving_pct is None else round(plan.saving_pct, 3),
        "replica_types": [_replica(r, names) for r in plan.replica_types],
        "gpu_types_considered": plan.gpu_types_considered,
        "offers_considered": plan.offers_considered,
        "terms": plain(plan.terms),
        "notes": plan.notes,
    }


def mix_payload(
    question: MixQuestion, snapshot: CatalogSnapshot, share_url: str, charts: bool = True
) -> dict[str, Any]:
    """POST /api/v1/mix's body (raises PlanFieldError for an unknown model), with the /mix page's chart in numbers
    (`charts`) unless `charts` is false (the page, which draws the chart, adds them from the same computation)."""
    for bucket in question.buckets():  # every bucket's requests must fit the model's context, not only the first's
        try:
            model = resolve_model(question.workload(bucket), snapshot)
        except PlanFieldError as exc:  # a bucket too long for the context is the mix's error; the rest are theirs
            if not exc.errors.keys() & LENGTHS:
                raise
            others = {k: v for k, v in exc.errors.items() if k not in LENGTHS}
            fits = question.workload(bucket).model_copy(update={"input_len": 1, "output_len": 1})
            too_long = beyond_context_message(bucket, model_of(fits, snapshot))  # read: its context was checked
            raise PlanFieldError("mix", too_long, others) from None
    question, weights = _release_weights(question, model, snapshot)
    plan = plan_mix(question, snapshot, model)
    body = mix_body(plan)
    payload = {
        "question": {
            **question.model_dump(mode="json"),
            "mix_text": question.distribution_text,
            "shares_add_up_to": round(question.share_total, 6),
            "mix_normalised_text": question.normalised_text,
        },
        "model": {"id": model.id, "name": model.name, "params_b": model.params_b},
        "weights": weights_body(weights),
        **body,
        "notes": [*body["notes"], *left_out_notes(plan.mix is not None, snapshot, question), weights.note],
        "shapes": [plain(s) for s in SHAPES.values()],
        "catalog_version": snapshot.version,
        "share_url": share_url,
    }
    if charts:
        payload["charts"] = mix_cost.chart_tables(payload)
    return payload


def _release_weights(question: MixQuestion, model: ModelSpec, snapshot: CatalogSnapshot) -> tuple[MixQuestion, Weights]:
    """The question at the weight dtype it ranks: its own, else the model's release precision's (as rank's)."""
    asked = question.weight_dtype if "weight_dtype" in question.model_fields_set else None
    weights = weights_for(release_precision(model, snapshot.quality), question.engine, asked)
    if weights.given:
        return question, weights
    return question.model_copy(update={"weight_dtype": weights.dtype}), weights


def query_from_plan(workload: InferenceWorkload, traffic: Traffic, snapshot: CatalogSnapshot) -> str | None:
    """The /mix question for a plan's model (a custom one too), limits and traffic at the default distribution (None:
    a question the mix cannot ask, such as a default bucket beyond the model's context: RAG's 7,590-token prompts
    on a 2,048-token BLOOM linked /plan to a 422, found by qa37)."""
    if typed_mix_beyond_context(None, model_of(workload, snapshot)) is not None:
        return None
    try:
        given = {"weight_dtype": workload.weight_dtype} if "weight_dtype" in workload.model_fields_set else {}
        question = MixQuestion(
            model=workload.model,
            custom_model=workload.custom_model,
            hf_config=workload.hf_config,
            **given,
            kv_dtype=workload.kv_dtype,
            ttft_ms=workload.ttft_ms,
            tpot_ms=workload.tpot_ms,
            engine=workload.engine,
            max_gpus=workload.max_gpus,
            requests_per_day=traffic.daily_requests(),
            profile=traffic.profile,
            peak_factor=traffic.peak_factor,
        )
    except ValidationError:
        return None
    return canonical_mix_query(question)


__all__ = ["MixQuery", "PlanFieldError", "canonical_mix_query", "mix_payload", "parse_mix"]
