"""Train-then-serve plans: the top training options x the top serving options of a serving plan, totalled.

Pure: the catalog snapshot and model specs are passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from app.scoring.explain import fixed
from app.scoring.pricing.price_terms import terms_text
from app.scoring.serving.plans.options import dependable, option_label
from app.scoring.serving.plans.plan import ServingPlan, plan_serving
from app.scoring.serving.serverless.notes import label_tags
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.ranking.rank import rank_training
from app.scoring.training.ranking.results import TrainingOption, TrainingRanking
from app.scoring.workload import InferenceWorkload, TrainingWorkload

LIFECYCLE_TOP_K = 5  # training options x serving options combined; the best totals come first


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
    # What a buyer must know about each price, as the labels say it: a dedicated offer's price_caveats, a serverless
    # price's doubts (token_prices.DOUBTS)
    training_price_caveats: tuple[str, ...] = ()
    serving_price_caveats: tuple[str, ...] = ()
    training_billed_hours: float = 0.0  # training_hours rounded up to the billing unit, at least a committed term
    # the training run's layout as its ranking row gives it: in words (TrainingOption.layout) and as fields
    training_layout: str = ""
    training_layout_detail: Layout | None = None
    # When and where each price was read, as the rankings give it: a price without its date is not one to act on
    training_as_of: date | None = None
    training_price_source_url: str = ""
    serving_as_of: date | None = None
    serving_as_of_label: str = "undated"  # the date as its source gives it: 2026-09-20, ≤2026-12-01, ~2025, undated
    serving_price_source_url: str = ""
    # What the training ranking's row labels beside its price (TrainingOption's fields, '' where none): the node count
    # the run assumes of an offer that states none, and a deadline or budget its band's slow end misses
    training_cluster_caveat: str = ""
    training_deadline_at_risk: str = ""


@dataclass(frozen=True, slots=True)
class LifecyclePlan:
    months: int
    combinations: list[LifecycleCombination]  # cheapest total first
    serving: ServingPlan
    training_feasible: int
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ServingCandidate:
    label: str
    kind: str  # dedicated | serverless
    usd_per_month: float
    price_caveats: tuple[str, ...] = ()
    as_of: date | None = None
    as_of_label: str = "undated"
    source_url: str = ""


def _dated(as_of: date | None) -> str:
    return as_of.isoformat() if as_of else "undated"


def _serving_candidates(plan: ServingPlan, traffic: Traffic, k: int) -> list[ServingCandidate]:
    """Top k dedicated options a plan may stand on (autoscaled monthly $) and the cheapest serverless price, if any."""
    chosen = {id(o) for o in dependable([s.option for s in plan.options], traffic)}
    picked = [s for s in plan.options if id(s.option) in chosen][:k]
    labels = distinct_labels([option_label(s.option) for s in picked], [s.option for s in picked])
    found = [
        ServingCandidate(
            label,
            "dedicated",
            s.cost.monthly_usd_autoscaled,
            s.option.price_caveats,
            s.option.as_of,
            _dated(s.option.as_of),
            s.option.price_source_url,
        )
        for label, s in zip(labels, picked, strict=True)
    ]
    if (q := plan.cheapest_serverless) is not None:
        tag = f"{q.provider_name} serverless ({q.priced_name}{', substitute' if q.substitute else ''}{label_tags(q)})"
        doubts = tuple(d.replace("_", " ") for d in q.doubts)
        label = q.as_of_label or _dated(q.as_of)
        found.append(ServingCandidate(tag, "serverless", q.monthly_usd, doubts, q.as_of, label, q.source_url))
    return found


class _Priced(Protocol):
    usd_per_gpu_hour: float
    machine: str


def distinct_labels(labels: list[str], options: Sequence[_Priced]) -> list[str]:
    """Labels like "4×B200 at Lambda (on demand)"; two offers that would read alike also name their price (and,
    at one price, their machine), so a table never shows two different rows under one name."""
    for detail in (lambda o: f"${fixed(o.usd_per_gpu_hour, 2)}/GPU-h", lambda o: o.machine):
        seen = Counter(labels)
        labels = [
            label if seen[label] == 1 or not detail(o) else f"{label[:-1]}, {detail(o)})"
            for label, o in zip(labels, options, strict=True)
        ]
    return labels


CLUSTER_LABEL = "node count unstated"  # the ranked tables' badge for a row's cluster_caveat


def training_caveats(t: TrainingOption) -> tuple[str, ...]:
    """A training price's caveats as a plan's label says them: the offer's, then the ranked row's "node count
    unstated" badge where the run spans more nodes than the offer says it supplies (found by qa44: /plan dropped it)."""
    return (*t.price_caveats, *((CLUSTER_LABEL,) if t.cluster_caveat else ()))


def training_labels(training: Sequence[TrainingOption]) -> list[str]:
    base = [
        f"{t.gpu_count}×{t.gpu_id} at {t.provider_name} "
        f"({terms_text(t.price_type, training_caveats(t), t.interruptible, t.stale)})"
        for t in training
    ]
    return distinct_labels(base, training)


def combine(
    training: Sequence[TrainingOption], serving: Sequence[ServingCandidate], months: int
) -> list[LifecycleCombination]:
    """Every training option x serving candidate: total = training $ + months x monthly serving $."""
    rows = []
    for t, train_label in zip(training, training_labels(training), strict=True):
        for candidate in serving:
            train_usd, monthly = t.total_usd or 0.0, candidate.usd_per_month
            total = train_usd + months * monthly
            rows.append(
                LifecycleCombination(
                    train_label,
                    candidate.label,
                    candidate.kind,
                    train_usd,
                    t.total_hours or 0.0,
                    monthly,
                    months,
                    total,
                    train_usd / total if total else 0.0,
                    months * monthly / total if total else 0.0,
                    training_caveats(t),
                    candidate.price_caveats,
                    t.billed_hours or t.total_hours or 0.0,
                    t.layout,
                    t.layout_detail,
                    t.as_of,
                    t.price_source_url,
                    candidate.as_of,
                    candidate.as_of_label,
                    candidate.source_url,
                    t.cluster_caveat,
                    t.deadline_at_risk,
                )
            )
    return sorted(rows, key=lambda r: (r.total_usd, r.training, r.serving))


def nothing_trained_note(ranking: TrainingRanking) -> str:
    """Why no training run is feasible, as the training ranking says it: its deadline or budget note, else the
    nearest run's reason (does not fit), else that no offer matches the filters."""
    deadline = [n for n in ranking.notes if n.startswith("No option finishes")]
    if deadline:
        return f"No training option is feasible for this run. {deadline[0]}"
    if not ranking.options:
        return "No training option is feasible for this run: no offer matches the training filters."
    nearest = ranking.options[0]
    return (
        f"No training option is feasible for this run: the nearest, {nearest.gpu_count:,}×{nearest.gpu_id} at "
        f"{nearest.provider_name}, {nearest.reason}."
    )


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
    ranking = rank_training(training_workload, snapshot, train_model)
    trained = [o for o in ranking.options if o.feasible]
    serving = plan_serving(inference_workload, traffic, snapshot, serve_model, trained_with=training_workload.method)
    rows = combine(trained[:top_k], _serving_candidates(serving, traffic, top_k), months)
    notes = [] if trained else [nothing_trained_note(ranking)]
    return LifecyclePlan(months, rows, serving, len(trained), notes + serving.notes)
