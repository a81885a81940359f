"""Serving plans (ranked options priced for a traffic, against serverless) and train-then-serve plans.

Pure: the catalog snapshot and model specs are passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.scoring.inference.rank import InferenceOption, rank_inference
from app.scoring.serving.economics import BreakEven, Replica, ServerlessQuote, break_even, serverless_quotes
from app.scoring.serving.traffic import ServingCost, Traffic, serving_cost
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.training.rank import TrainingOption, rank_training
from app.scoring.workload import InferenceWorkload, TrainingWorkload

LIFECYCLE_TOP_K = 5  # training options x serving options combined; the best totals come first


@dataclass(frozen=True, slots=True)
class ServingOption:
    option: InferenceOption
    cost: ServingCost


@dataclass(frozen=True, slots=True)
class ServingPlan:
    model_id: str
    requests_per_day: float
    peak_requests_per_s: float
    options: list[ServingOption]  # feasible only, cheapest autoscaled first
    serverless: list[ServerlessQuote]
    break_even: BreakEven
    substitute_model: str | None  # the serverless prices are for this model instead
    notes: list[str] = field(default_factory=list)


def option_label(o: InferenceOption) -> str:
    return f"{o.gpu_count}×{o.gpu_id} at {o.provider_name} ({o.price_type.replace('_', ' ')})"


def price_options(options: Sequence[InferenceOption], traffic: Traffic, output_len: int) -> list[ServingOption]:
    rates = traffic.hourly_requests_per_s()
    priced = [
        ServingOption(
            o,
            serving_cost(
                rates,
                output_len,
                o.output_tokens_per_s,
                o.gpu_count,
                o.usd_per_gpu_hour,
                traffic.min_replicas,
                traffic.cold_start_s,
            ),
        )
        for o in options
        if o.feasible and o.output_tokens_per_s > 0
    ]
    return sorted(priced, key=lambda s: (s.cost.monthly_usd_autoscaled, s.option.provider, s.option.gpu_id))


def serving_plan_from(
    model_id: str, options: Sequence[InferenceOption], quotes: list[ServerlessQuote], traffic: Traffic, output_len: int
) -> ServingPlan:
    """The pure core: price ranked options for the traffic and find the break-even."""
    priced = price_options(options, traffic, output_len)
    replicas = [
        Replica(option_label(o), o.gpu_count, o.usd_per_gpu_hour, o.output_tokens_per_s)
        for o in options
        if o.feasible and o.output_tokens_per_s > 0
    ]
    best = quotes[0] if quotes else None
    label = f"{best.provider_name} serverless ({best.model_name})" if best else None
    even = break_even(replicas, best.usd_per_request if best else None, label, traffic, output_len)
    substitute = quotes[0].model_name if quotes and quotes[0].substitute else None
    notes = []
    if substitute:
        notes.append(
            f"No provider lists {model_id} per token; serverless prices are for {substitute}, "
            "the listed model closest in parameter count."
        )
    return ServingPlan(
        model_id, traffic.daily_requests(), traffic.peak_rate_per_s(), priced, quotes, even, substitute, notes
    )


def plan_serving(
    workload: InferenceWorkload, traffic: Traffic, snapshot: CatalogSnapshot, model: ModelSpec
) -> ServingPlan:
    """Rank for the workload (replicas sized to the traffic's peak hour) and price every option."""
    sized = workload.model_copy(update={"peak_requests_per_s": traffic.peak_rate_per_s()})
    ranking = rank_inference(sized, snapshot, model)
    quotes = serverless_quotes(
        model,
        snapshot.token_prices,
        snapshot.models,
        traffic.daily_requests(),
        workload.input_len,
        workload.output_len,
        workload.prefix_cache_hit or 0.0,
    )
    return serving_plan_from(model.id, ranking.options, quotes, traffic, workload.output_len)


@dataclass(frozen=True, slots=True)
class LifecycleCombination:
    training: str
    serving: str
    serving_kind: str  # dedicated | serverless
    training_usd: float
    training_hours: float
    serving_usd_per_month: float
    months: int
    total_usd: float
    training_share: float
    serving_share: float


@dataclass(frozen=True, slots=True)
class LifecyclePlan:
    months: int
    combinations: list[LifecycleCombination]  # cheapest total first
    serving: ServingPlan
    training_feasible: int
    notes: list[str] = field(default_factory=list)


def _serving_candidates(plan: ServingPlan, k: int) -> list[tuple[str, str, float]]:
    """Top k dedicated options (autoscaled monthly $) and the cheapest serverless price, if any."""
    found = [(option_label(s.option), "dedicated", s.cost.monthly_usd_autoscaled) for s in plan.options[:k]]
    if plan.serverless:
        q = plan.serverless[0]
        tag = f"{q.provider_name} serverless ({q.model_name}{', substitute' if q.substitute else ''})"
        found.append((tag, "serverless", q.monthly_usd))
    return found


def combine(
    training: Sequence[TrainingOption], serving: Sequence[tuple[str, str, float]], months: int
) -> list[LifecycleCombination]:
    """Every training option x serving candidate: total = training $ + months x monthly serving $."""
    rows = []
    for t in training:
        train_label = f"{t.gpu_count}×{t.gpu_id} at {t.provider_name} ({t.price_type.replace('_', ' ')})"
        for label, kind, monthly in serving:
            train_usd = t.total_usd or 0.0
            total = train_usd + months * monthly
            rows.append(
                LifecycleCombination(
                    train_label,
                    label,
                    kind,
                    train_usd,
                    t.total_hours or 0.0,
                    monthly,
                    months,
                    total,
                    train_usd / total if total else 0.0,
                    months * monthly / total if total else 0.0,
                )
            )
    return sorted(rows, key=lambda r: (r.total_usd, r.training, r.serving))


def plan_lifecycle(
    training_workload: TrainingWorkload,
    inference_workload: InferenceWorkload,
    traffic: Traffic,
    months: int,
    snapshot: CatalogSnapshot,
    train_model: ModelSpec,
    serve_model: ModelSpec,
    top_k: int = LIFECYCLE_TOP_K,
) -> LifecyclePlan:
    """Top k training options (by their own metric, $ per step) x top k serving options (autoscaled)."""
    trained = [o for o in rank_training(training_workload, snapshot, train_model).options if o.feasible]
    serving = plan_serving(inference_workload, traffic, snapshot, serve_model)
    rows = combine(trained[:top_k], _serving_candidates(serving, top_k), months)
    notes = [] if trained else ["no training option is feasible for this run"]
    return LifecyclePlan(months, rows, serving, len(trained), notes + serving.notes)
