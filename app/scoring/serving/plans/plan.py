"""Serving plans: ranked options priced for a traffic, against serverless (lifecycle.py: train, then serve).

Pure: the catalog snapshot and model specs are passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.serving.plans.break_even import BreakEven, Replica, break_even
from app.scoring.serving.plans.options import (
    ServingOption,
    committed,
    dependable,
    fleet_label,
    may_stand_alone,
    option_label,
    price_options,
    request_seconds,
    sustained_tokens_per_s,
)
from app.scoring.serving.plans.trained_verdict import trained_verdict
from app.scoring.serving.plans.verdict import Priced, Verdict, plan_verdict
from app.scoring.serving.serverless.notes import chosen_doubt_note, label_tags, left_out_note, lower_figure_note
from app.scoring.serving.serverless.quotes import ServerlessQuote, cheapest_comparable, serverless_quotes
from app.scoring.serving.serverless.stand_in import no_stand_in_note
from app.scoring.serving.traffic.week import DAYS_PER_MONTH, Traffic
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload
from app.scoring.workload import Method as TrainingMethod


@dataclass(frozen=True, slots=True)
class ServingPlan:
    model_id: str
    requests_per_day: float
    peak_requests_per_s: float
    options: list[ServingOption]  # feasible only, cheapest autoscaled first
    serverless: list[ServerlessQuote]  # comparable first (cheapest first), then the labelled others
    break_even: BreakEven
    substitute_model: str | None  # the serverless prices are for this model instead
    notes: list[str] = field(default_factory=list)
    cheapest_serverless: ServerlessQuote | None = None  # the price compared with: current and verified (or stale)
    break_even_scale_to_zero: BreakEven | None = None  # the same against the cheapest option scaled to zero
    verdict: Verdict | None = None  # which is cheapest at the traffic, in the mode that costs least
    infeasible: list[InfeasibleGroup] = field(default_factory=list)  # where no option serves: why, per configuration
    substitute_reason: str | None = None  # why the substitute is comparable (serverless/stand_in.py)


@dataclass(frozen=True, slots=True)
class InfeasibleGroup:
    """Offers of one configuration that cannot serve the workload for one reason (as the ranking page groups them)."""

    gpu_id: str
    gpu_count: int
    reason: str
    offers: int


SPOT_NOT_ALONE_NOTE = (
    "Spot replicas can be taken back at short notice: they are listed (interruptible) after the other "
    "options and left out of the break-even and the train-then-serve totals, never the only capacity. "
    "Set spot_only (on the page: Spot may be the only capacity) to plan a deployment on spot alone."
)
OVER_LIMITS_NOTE = (
    "Options over the latency limits at this load (marked over limits) are listed after those that meet them and "
    "left out of the break-even and the train-then-serve totals."
)
SERVERLESS_LATENCY = (
    "serverless prices are compared as listed: their latency is not checked against the TTFT and TPOT limits (the "
    "per-token APIs in the reference publish no latency guarantee)"
)
ALL_OVER_LIMITS_NOTE = (
    "No dedicated option meets the latency limits at this load: every one is over them (marked over limits), "
    "and the break-even is against the cheapest of them."
)


def serving_plan_from(
    model_id: str,
    options: Sequence[InferenceOption],
    quotes: list[ServerlessQuote],
    traffic: Traffic,
    output_len: int,
    notes: Sequence[str] = (),
    include_stale: bool = False,
    infeasible: Sequence[InfeasibleGroup] = (),
    ttft_limit_ms: float | None = None,
) -> ServingPlan:
    """The pure core: price ranked options for the traffic and find the break-even, autoscaled and scaled to zero,
    against the cheapest comparable serverless price (never an unverified, deprecated or, unless included, stale one;
    a disputed one at its higher figure), and which is cheapest at the traffic. The notes say what was left out and
    any doubt on the price compared with; `infeasible` says why no option serves, where none does."""
    priced = price_options(options, traffic, output_len)
    chosen = dependable(options, traffic)
    replicas = [
        Replica(
            option_label(o),
            o.rented_gpus,
            o.usd_per_gpu_hour,
            sustained_tokens_per_s(o.rented_requests_per_s, output_len),
            committed(o),
            request_seconds(o.ttft_ms, o.tpot_ms, output_len),
        )
        for o in chosen
    ]
    best = cheapest_comparable(quotes)
    label = f"{best.provider_name} serverless ({best.priced_name}{label_tags(best)})" if best else None
    evens = {
        mode: break_even(replicas, best.usd_per_request if best else None, label, traffic, output_len, mode)
        for mode in ("autoscaled", "scale_to_zero")
    }
    if best is None and quotes and replicas:
        why = "no current, verified serverless price to compare with (see the listed prices)"
        evens = {mode: replace(even, reason=why) for mode, even in evens.items()}
    chosen_ids = {id(o) for o in chosen}
    standing = [s for s in priced if id(s.option) in chosen_ids]
    verdict = _verdict(standing, best, label, traffic, ttft_limit_ms)
    substitute = quotes[0].model_name if quotes and quotes[0].substitute else None
    substitute_reason = quotes[0].substitute_reason if substitute else None
    notes = [*notes, *traffic.reading_notes()]
    if (left_out := left_out_note(quotes, include_stale)) is not None:
        notes.append(left_out)
    dedicated_monthly = priced[0].cost.monthly_usd_autoscaled if priced else None  # the option the page leads with
    for note in (chosen_doubt_note(quotes, dedicated_monthly), lower_figure_note(quotes)):
        if note is not None:
            notes.append(note)
    if best is not None and best.stale:
        notes.append(
            f"The cheapest serverless price compared with, {best.provider_name}'s, is stale "
            f"({'undated' if best.as_of is None else 'as of ' + best.as_of_label}): stale prices are included on "
            "request; check it before you rely on it."
        )
    if any(not may_stand_alone(s.option, traffic) for s in priced):
        notes.append(SPOT_NOT_ALONE_NOTE)
    if any(o.over_limits for o in chosen):
        notes.append(ALL_OVER_LIMITS_NOTE)
    elif any(s.option.over_limits for s in priced):
        notes.append(OVER_LIMITS_NOTE)
    if substitute:
        notes.append(
            f"No provider lists {model_id} per token; serverless prices are for a comparable model: "
            f"{substitute_reason}."
        )
    if not priced and best is not None:  # the only price shown: say what it does not promise
        notes.append(f"No dedicated option serves this workload, and the {SERVERLESS_LATENCY}.")
    return ServingPlan(
        model_id,
        traffic.daily_requests(),
        traffic.peak_rate_per_s(),
        priced,
        quotes,
        evens["autoscaled"],
        substitute,
        notes,
        best,
        break_even_scale_to_zero=evens["scale_to_zero"],
        verdict=verdict,
        infeasible=list(infeasible) if not priced else [],
        substitute_reason=substitute_reason,
    )


def _verdict(
    standing: Sequence[ServingOption],
    quote: ServerlessQuote | None,
    label: str | None,
    traffic: Traffic,
    ttft_limit_ms: float | None,
) -> Verdict:
    """Serverless, the cheapest option autoscaled or the cheapest scaled to zero: the least at this traffic."""
    autoscaled = scaled = None
    if standing:
        lead = standing[0]  # cheapest autoscaled first
        autoscaled = Priced(fleet_label(lead), lead.cost.monthly_usd_autoscaled)
        low = min(standing, key=lambda s: s.cost.monthly_usd_scale_to_zero)
        scaled = Priced(fleet_label(low), low.cost.monthly_usd_scale_to_zero, low.cost.scale_ups_from_zero_per_month)
    serverless = Priced(label, quote.monthly_usd) if quote is not None and label else None
    requests = traffic.daily_requests() * DAYS_PER_MONTH
    return plan_verdict(autoscaled, scaled, serverless, requests, traffic.cold_start_s, ttft_limit_ms)


def infeasible_groups(ranking_keys: Sequence[tuple[str, int, str]]) -> list[InfeasibleGroup]:
    """(GPU, count, reason) of each infeasible option, counted per configuration and reason, in ranked order."""
    counts: dict[tuple[str, int, str], int] = {}
    for key in ranking_keys:
        counts[key] = counts.get(key, 0) + 1
    return [InfeasibleGroup(gpu, count, reason, offers) for (gpu, count, reason), offers in counts.items()]


# "Only Lambda" was answered "serverless is cheaper: Nebius AI Studio" with no word that the filter left the per-token
# side alone (qa43).
PROVIDERS_DEDICATED_ONLY_NOTE = (
    "The providers filter ({providers}) narrows the dedicated GPU offers only: the serverless side compares per-token "
    "prices from every provider."
)
DEDICATED_ONLY_NOTE = (
    "A model you {verb} has its own weights, which no serverless API hosts at a listed per-token price: "
    "it is planned on dedicated GPUs only (no serverless option, no substitute model)."
)
NO_ADAPTER_API_NOTE = (
    "No provider in the catalog is listed as serving LoRA adapters of {model} at its per-token price "
    "(token_prices.csv lora_serving = yes), so the adapter is planned on dedicated GPUs only."
)


def trained_model_quotes(
    method: TrainingMethod, model_id: str, quotes: list[ServerlessQuote]
) -> tuple[list[ServerlessQuote], list[str]]:
    """Serverless prices that apply to a model you trained, and why the others were dropped.

    Pretrained or fully fine-tuned weights: none (a per-token API serves its own models). A LoRA adapter:
    only the base model's own prices (never a substitute) where the provider serves adapters of that base at
    that price."""
    if method in ("pretrain", "full_ft"):
        verb = "pretrain" if method == "pretrain" else "fully fine-tune"
        return [], [DEDICATED_ONLY_NOTE.format(verb=verb)]
    usable = [q for q in quotes if not q.substitute and q.model_id == model_id and q.lora_serving == "yes"]
    return usable, [] if usable else [NO_ADAPTER_API_NOTE.format(model=model_id)]


def plan_serving(
    workload: InferenceWorkload,
    traffic: Traffic,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    trained_with: TrainingMethod | None = None,
) -> ServingPlan:
    """Rank for the workload (replicas sized to the traffic's peak hour) and price every option.
    `trained_with`: the model is one you trained that way, so only the serverless prices that can serve it
    apply (trained_model_quotes)."""
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
        include_stale=workload.include_stale,
    )
    notes: list[str] = []
    if trained_with is not None:
        quotes, notes = trained_model_quotes(trained_with, model.id, quotes)
    elif not quotes:
        notes.append(no_stand_in_note(model))
    if workload.providers and quotes:
        notes.append(PROVIDERS_DEDICATED_ONLY_NOTE.format(providers=", ".join(workload.providers)))
    infeasible = infeasible_groups(ranking.row_keys[ranking.feasible_count :]) if not ranking.feasible_count else []
    plan = serving_plan_from(
        model.id,
        ranking.options,
        quotes,
        traffic,
        workload.output_len,
        notes,
        include_stale=workload.include_stale,
        infeasible=infeasible,
        ttft_limit_ms=workload.ttft_ms,
    )
    if trained_with is None or plan.verdict is None:
        return plan
    return replace(plan, verdict=trained_verdict(plan.verdict, trained_with, model, bool(quotes)))
