"""The bridge from plan requests to the economics engine and back to JSON-ready dicts.

Shared by the plan API, the /plan page and its .json twin, and `gpumatch plan`.
"""

from __future__ import annotations

from typing import Any

from app.scoring.explain import significant
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.input_checks.messages import FieldError
from app.scoring.serving.plans.lifecycle import LifecyclePlan, plan_lifecycle
from app.scoring.serving.plans.options import ServingOption, fleet_spare_words, peak_spread_at
from app.scoring.serving.plans.plan import SERVERLESS_LATENCY, ServingPlan, plan_serving
from app.scoring.serving.traffic import week as units
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.catalog_ids import unknown_id_errors
from app.service.charts import plan_cost
from app.service.query.plan import LATENCY_BOUND, PEAK_FROM_TRAFFIC, trains_another_model
from app.service.rank.answer_body import left_out_notes, weights_body
from app.service.rank.model_spec import UnknownId, model_spec_for
from app.service.rank.plain import plain


class PlanFieldError(FieldError):
    """An input the engine cannot use, with the request field it came from."""


def traffic_sets_the_peak(workload: InferenceWorkload, prefix: str = "") -> None:
    """A plan's, lifecycle's or disaggregation's replicas follow its traffic: clients at the peak (the rank page's
    peak_concurrency) would be a second peak it ignores, so it is a field error at `prefix` + peak_concurrency."""
    if workload.peak_concurrency is not None:
        raise PlanFieldError(prefix + "peak_concurrency", PEAK_FROM_TRAFFIC)


def latency_bound_only(workload: InferenceWorkload, prefix: str = "") -> None:
    """A plan's or disaggregation's replicas meet the latency limits at its traffic: another scenario (max_throughput
    runs over them) would be answered as if asked, so it is a field error at `prefix` + scenario."""
    if workload.scenario != "latency_bound":
        raise PlanFieldError(
            prefix + "scenario", f"{LATENCY_BOUND}: leave scenario at latency_bound, not {workload.scenario}"
        )


def resolve_model(
    workload: InferenceWorkload | TrainingWorkload, snapshot: CatalogSnapshot, prefix: str = ""
) -> ModelSpec:
    """The workload's model, or a field error at `prefix` + each field that failed (model or hf_config, and
    filters naming unknown ids)."""
    try:
        return model_spec_for(workload, snapshot)
    except UnknownId as exc:
        raise PlanFieldError(prefix + exc.field, str(exc), {prefix + k: v for k, v in exc.errors.items()}) from None


def served_model(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, prefix: str, refused: dict[str, str] | None = None
) -> ModelSpec:
    """A plan's served workload's model, or one PlanFieldError naming every field a plan refuses at once: a second
    peak, another scenario, `refused` (the caller's own: /disagg's one-token output) and the model's (resolve_model).
    Before, `scenario` beside an unknown model named the scenario, and the model only once it was fixed."""
    errors = dict(refused or {})
    for check in (traffic_sets_the_peak, latency_bound_only):
        try:
            check(workload, prefix)
        except PlanFieldError as exc:
            errors.update(exc.errors)
    try:
        model = resolve_model(workload, snapshot, prefix)
    except PlanFieldError as exc:
        errors.update({k: v for k, v in exc.errors.items() if k not in errors})
    if errors:
        field, message = next(iter(errors.items()))
        raise PlanFieldError(field, message, errors)
    return model


def kept_run_errors(training: TrainingWorkload | None, months: int | None, snapshot: CatalogSnapshot) -> dict[str, str]:
    """{training.field: message} for each catalog id a run kept without months names that the catalog lacks: no run
    is priced to read them (the page's lifecycle_skipped), but a typo in a kept field is said as in a priced one."""
    if training is None or months is not None:
        return {}
    return {f"training.{field}": message for field, message in unknown_id_errors(training, snapshot).items()}


SERVERLESS_BASIS = (
    "the cheapest current, verified per-token price: unverified and deprecated prices are listed, labelled, and "
    "never compared with; stale ones only when stale prices are included (include_stale)"
)


DEFAULT_TIMEOUT = ", by default the cold start"


def assumptions(traffic: Traffic) -> dict[str, Any]:
    return {
        "hours_per_month": units.HOURS_PER_MONTH,
        "days_per_month": round(units.DAYS_PER_MONTH, 4),
        "time_buckets": "one repeating week of 168 hourly buckets; bursts inside an hour are not modelled",
        "profile": traffic.profile,
        "peak_to_mean": round(max(traffic.multipliers()), 4),
        "autoscaled_floor_replicas": max(1, traffic.min_replicas),
        "scale_to_zero": f"a replica bills the time it is up: from the request that wakes it until "
        f"{significant(traffic.idle_timeout())} s (the idle "
        f"timeout{DEFAULT_TIMEOUT if traffic.idle_timeout_s is None else ''}) "
        f"pass without one, requests arriving at random at each hour's rate; each start from zero bills the "
        f"{significant(traffic.cold_start_s)} s cold start, and the request that woke it waits that long",
        "replica_throughput": "output tokens/s of one replica at the latency targets (the rank API's estimate)",
        "serverless_latency": SERVERLESS_LATENCY,
    }


def _option_row(s: ServingOption, include_terms: bool) -> dict[str, Any]:
    """The ranked option with its fleet and costs at the traffic: replicas are copies of the layout and instances
    the rentals holding them, whichever of the two the cost scales (ServingCost.units_at_peak is not emitted)."""
    row = plain(s.option)
    if include_terms:  # with the terms of the row's own price, as the ranking's rows (plain_row)
        row["terms"] = [*row["terms"], *plain(s.option.priced_terms())]
    else:
        row.pop("terms", None)
    cost = plain(s.cost)
    del cost["units_at_peak"]
    row.update(
        {
            "replicas_at_peak": s.replicas_at_peak,
            "instances_at_peak": s.instances_at_peak,
            **cost,
            "idle_gpus_at_peak": s.idle_gpus_at_peak,
            "fleet_note": fleet_spare_words(s),
        }
    )
    if peak_spread_at(s) is None:  # the ranked row's peak spread, kept where this fleet rents the instances it was on
        row.update(copies_at_peak_if_spread=None, spread_ttft_p99_ms=None, spread_tpot_p99_ms=None)
    return row


def serving_body(
    plan: ServingPlan, traffic: Traffic, limit: int | None = None, include_terms: bool = True
) -> dict[str, Any]:
    options = plan.options if limit is None else plan.options[:limit]
    even = plain(plan.break_even)
    return {
        "traffic": {
            **traffic.model_dump(mode="json", exclude_none=True),
            "requests_per_day": round(plan.requests_per_day, 6),
            "peak_requests_per_s": round(plan.peak_requests_per_s, 6),
        },
        "options": [_option_row(s, include_terms) for s in options],
        "total_options": len(plan.options),
        "serverless": plain(plan.serverless),
        "cheapest_serverless": plain(plan.cheapest_serverless),
        "serverless_basis": SERVERLESS_BASIS,
        "substitute_model": plan.substitute_model,
        "substitute_reason": plan.substitute_reason,
        "break_even_requests_per_day": even["requests_per_day"],
        "break_even": even,
        "break_even_scale_to_zero": plain(plan.break_even_scale_to_zero),
        "verdict": plain(plan.verdict),
        "infeasible": plain(plan.infeasible),
        "assumptions": assumptions(traffic),
        "notes": plan.notes,
    }


def serving_payload(
    workload: InferenceWorkload,
    traffic: Traffic,
    snapshot: CatalogSnapshot,
    share_url: str,
    limit: int | None = None,
    include_terms: bool = True,
    charts: bool = True,
) -> dict[str, Any]:
    """POST /api/v1/plan/serving's body (raises PlanFieldError), with the plan page's chart in numbers (`charts`)
    unless `charts` is false (the page, which draws the chart, adds them from the same computation)."""
    model = served_model(workload, snapshot, "workload.")
    workload, weights = release_weights(workload, model, snapshot.quality)
    plan = plan_serving(workload, traffic, snapshot, model)
    body = serving_body(plan, traffic, limit, include_terms)
    payload = {
        "workload": workload.model_dump(mode="json", exclude_none=True),
        "model": plain(model),
        "weights": weights_body(weights),
        **body,
        "notes": [*body["notes"], *left_out_notes(bool(plan.options), snapshot, workload), weights.note],
        "catalog_version": snapshot.version,
        "share_url": share_url,
    }
    if charts:
        payload["charts"] = plan_cost.chart_tables(payload, traffic, workload.output_len)
    return payload


def lifecycle_body(plan: LifecyclePlan, limit: int = 10) -> dict[str, Any]:
    return {
        "months": plan.months,
        "combinations": plain(plan.combinations[:limit]),
        "total_combinations": len(plan.combinations),
        "training_feasible": plan.training_feasible,
        "basis": "training total $ + months × monthly serving $ (dedicated autoscaled, or serverless)",
        "notes": plan.notes,
    }


def lifecycle_payload(
    training: TrainingWorkload,
    inference: InferenceWorkload,
    traffic: Traffic,
    months: int,
    snapshot: CatalogSnapshot,
    share_url: str,
    limit: int = 10,
) -> dict[str, Any]:
    """POST /api/v1/plan/lifecycle's body (raises PlanFieldError, naming both workloads' fields at once)."""
    other = trains_another_model(training, inference)
    errors = {"training.model": other} if other is not None else {}
    models = {}
    try:
        models["inference."] = served_model(inference, snapshot, "inference.")
    except PlanFieldError as exc:
        errors.update(exc.errors)
    try:
        models["training."] = resolve_model(training, snapshot, "training.")
    except PlanFieldError as exc:
        errors.update({k: v for k, v in exc.errors.items() if k not in errors})
    if errors:
        field, message = next(iter(errors.items()))
        raise PlanFieldError(field, message, errors)
    inference, weights = release_weights(inference, models["inference."], snapshot.quality)
    plan = plan_lifecycle(training, inference, traffic, months, snapshot, models["training."], models["inference."])
    body = lifecycle_body(plan, limit)
    return {
        "training": training.model_dump(mode="json", exclude_none=True),
        "inference": inference.model_dump(mode="json", exclude_none=True),
        "weights": weights_body(weights),
        **body,
        "notes": [*body["notes"], weights.note],
        "serving": serving_body(plan.serving, traffic, limit=15, include_terms=False),
        "catalog_version": snapshot.version,
        "share_url": share_url,
    }
