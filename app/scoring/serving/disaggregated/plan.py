"""Aggregated or disaggregated? Price both for a traffic and say which is cheaper, pool by pool.

Aggregated is the ranking's latency-bound operating point (continuous batching: every step also carries
its share of prompts, so prefill interferes with decode), priced as the /plan page prices it. Disaggregated
is a prefill pool and a decode pool (pairing.py); the P:D ratio is what the traffic needs of each pool,
hour by hour: the fewest prefill instances whose queue keeps TTFT inside its limit and the fewest decode
instances whose TPOT-bound batches carry the requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.engine_support import runs_on
from app.scoring.hardware.machines import Machine, machine_of
from app.scoring.inference.bands.latency_bands import BandRegime
from app.scoring.inference.estimates.configurations import single_node_layouts
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.offers import snapshot_offers
from app.scoring.pricing.price_terms import INTERRUPTIBLE
from app.scoring.serving.disaggregated.pairing import PoolOffer, pairings
from app.scoring.serving.disaggregated.pools import (
    DecodeInstance,
    PrefillInstance,
    decode_instance,
    layout_regime,
    prefill_instance,
    slow_end_multiples,
)
from app.scoring.serving.disaggregated.pricing import DisaggregatedPlan, price_pairing, served_usd_per_million
from app.scoring.serving.plans.options import ServingOption, may_stand_alone, price_options
from app.scoring.serving.traffic.week import WEEKS_PER_MONTH, Traffic
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.workload import InferenceWorkload

PRICED_PAIRINGS = 40  # pairings priced hour by hour, cheapest first by their fractional cost at the mean rate
SHOWN_PLANS = 5


@dataclass(frozen=True, slots=True)
class PoolsFound:
    """What the disaggregated search had to pair: why no plan came out, when none did."""

    prefill_instances: int
    decode_instances: int
    fastest_prefill_ms: float | None  # one prompt to its first token on the fastest prefill instance
    fastest_prefill: str  # that instance's GPUs, e.g. "8×B200"
    fastest_prefill_ttft_multiple: float = 1.0  # its TTFT band's high ratio at limits_at band_high (1: the estimate)


@dataclass(frozen=True, slots=True)
class Comparison:
    model_id: str
    peak_requests_per_s: float
    requests_per_month: float
    aggregated: ServingOption | None
    aggregated_usd_per_million_output_tokens_at_traffic: float | None  # served_usd_per_million, as the plans'
    aggregated_decode_only: DecodeInstance | None  # the aggregated hardware decoding with no prefill in its steps
    plans: list[DisaggregatedPlan]  # cheapest first, at most SHOWN_PLANS
    pairings_considered: int
    offers_through_filters: int  # the offers the question's filters allow
    offers_standing_alone: int  # of those, the ones a whole deployment may run on (spot only where spot_only)
    notes: list[str] = field(default_factory=list)
    pools: PoolsFound | None = None
    aggregated_regime: BandRegime | None = None  # what the aggregated layout's bands are looked up by, as a pool's

    @property
    def best(self) -> DisaggregatedPlan | None:
        return self.plans[0] if self.plans else None


def standing_offers(offers: Sequence[Offer], traffic: Traffic) -> list[Offer]:
    """The offers a whole deployment may run on: spot (interruptible) ones only where the traffic says spot_only."""
    return [o for o in offers if traffic.spot_only or o.price_type not in INTERRUPTIBLE]


def pool_offers(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec, traffic: Traffic, eff: InferenceEfficiency
) -> tuple[list[PoolOffer], list[PoolOffer]]:
    """Prefill and decode instances on every offer the filters allow, in the layouts a ranking tries inside
    one node (TP, or TP x PP); GPUs the engine does not run on are left out."""
    prefills, decodes = [], []
    made: dict[tuple, tuple] = {}
    for offer in standing_offers(snapshot_offers(snapshot, workload), traffic):
        gpu = snapshot.gpus[offer.gpu_id]
        if not runs_on(workload.engine, gpu.vendor):  # engine_support: e.g. TensorRT-LLM on an MI300X
            continue
        machine = machine_of(offer, gpu)
        for _, tp, pp in single_node_layouts(machine, workload.max_gpus, model.layers):
            key = (offer.gpu_id, machine, tp, pp)
            if key not in made:
                made[key] = (
                    prefill_instance(gpu, machine, model, workload, tp, pp, eff),
                    decode_instance(gpu, machine, model, workload, tp, pp, eff),
                )
            p, d = made[key]
            if p is not None:
                prefills.append(PoolOffer(offer, machine, p))
            if d is not None:
                decodes.append(PoolOffer(offer, machine, d))
    return prefills, decodes


def aggregated_option(
    workload: InferenceWorkload, traffic: Traffic, snapshot: CatalogSnapshot, model: ModelSpec
) -> ServingOption | None:
    """The cheapest autoscaled aggregated option that may stand alone, as the /plan page prices it."""
    sized = workload.model_copy(update={"peak_requests_per_s": traffic.peak_rate_per_s()})  # whole fleets, as /plan
    ranking = rank_inference(sized, snapshot, model)
    options = [ranking.options[i] for i in range(ranking.feasible_count)]
    priced = price_options(options, traffic, workload.output_len)
    return next((s for s in priced if may_stand_alone(s.option, traffic)), None)


def compare(
    workload: InferenceWorkload,
    traffic: Traffic,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    eff: InferenceEfficiency = DEFAULT_EFFICIENCY,
) -> Comparison:
    """Aggregated against the cheapest disaggregated plans for the same workload, filters and traffic.
    Both are latency-bound: the traffic, not a fixed batch or concurrency, decides how busy they are."""
    workload = workload.model_copy(update={"scenario": "latency_bound", "peak_requests_per_s": None})
    prefills, decodes = pool_offers(workload, snapshot, model, traffic, eff)
    allowed = snapshot_offers(snapshot, workload)
    found = pairings(prefills, decodes, model, workload, eff)
    mean_rate = traffic.daily_requests() / 86_400
    ordered = sorted(found, key=lambda x: x.mean_usd_per_s(mean_rate))[:PRICED_PAIRINGS]
    plans = sorted((price_pairing(x, workload, traffic) for x in ordered), key=_plan_order)
    aggregated = aggregated_option(workload, traffic, snapshot, model)
    requests = sum(traffic.hourly_requests_per_s()) * 3600 * WEEKS_PER_MONTH
    agg_per_m = None
    if aggregated is not None and requests:
        agg_per_m = served_usd_per_million(aggregated.cost.monthly_usd_autoscaled, requests * workload.output_len)
    return Comparison(
        model_id=model.id,
        peak_requests_per_s=traffic.peak_rate_per_s(),
        requests_per_month=requests,
        aggregated=aggregated,
        aggregated_usd_per_million_output_tokens_at_traffic=agg_per_m,
        aggregated_decode_only=_decode_only(aggregated, workload, snapshot, model, eff),
        plans=_distinct(plans)[:SHOWN_PLANS],
        pairings_considered=len(found),
        offers_through_filters=len(allowed),
        offers_standing_alone=len(standing_offers(allowed, traffic)),
        pools=_pools_found(prefills, decodes, workload),
        aggregated_regime=_regime(aggregated, workload, snapshot, model),
    )


def _pools_found(
    prefills: Sequence[PoolOffer], decodes: Sequence[PoolOffer], workload: InferenceWorkload
) -> PoolsFound:
    def one_prompt_ms(p: PoolOffer) -> float:
        assert isinstance(p.instance, PrefillInstance)
        return p.instance.passes[0].first_token_ms  # passes start at one prompt

    fastest = min(prefills, key=one_prompt_ms, default=None)
    return PoolsFound(
        prefill_instances=len(prefills),
        decode_instances=len(decodes),
        fastest_prefill_ms=one_prompt_ms(fastest) if fastest else None,
        fastest_prefill=f"{fastest.instance.gpu_count}×{fastest.offer.gpu_id}" if fastest else "",
        fastest_prefill_ttft_multiple=slow_end_multiples(fastest.instance, workload)[0] if fastest else 1.0,
    )


def _decode_only(
    aggregated: ServingOption | None,
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    eff: InferenceEfficiency,
) -> DecodeInstance | None:
    """What the aggregated option's own hardware would batch if its steps carried no prefill. Only a layout inside
    one scale-up unit (a node, or an NVL72 rack's NVLink domain of several 4-GPU nodes) is timed as the pools time
    theirs; one spanning units over a fabric is not (None: unknown)."""
    hardware = _hardware(aggregated, snapshot)
    if aggregated is None or hardware is None:
        return None
    o, (gpu, machine) = aggregated.option, hardware
    if o.gpu_count > machine.gpus_per_node:  # not o.nodes: an NVLink domain's layout spans physical nodes
        return None
    return decode_instance(gpu, machine, model, workload, o.tensor_parallel, o.pipeline_parallel, eff)


def _hardware(aggregated: ServingOption | None, snapshot: CatalogSnapshot) -> tuple[GpuSpec, Machine] | None:
    """The aggregated option's GPU and machine, as its offer supplies them (None: no option, or not in the
    snapshot)."""
    if aggregated is None:
        return None
    o = aggregated.option
    offer = next((x for x in snapshot.offers if x.offer_id == o.offer_id), None)
    gpu = snapshot.gpus.get(o.gpu_id)
    return (gpu, machine_of(offer, gpu)) if offer is not None and gpu is not None else None


def _regime(
    aggregated: ServingOption | None, workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> BandRegime | None:
    """The aggregated layout's band regime, looked up as a pool's (pools.layout_regime)."""
    hardware = _hardware(aggregated, snapshot)
    if aggregated is None or hardware is None:
        return None
    o = aggregated.option
    return layout_regime(*hardware, model, workload, o.tensor_parallel, o.pipeline_parallel)


def _plan_order(plan: DisaggregatedPlan) -> tuple:
    p, d = plan.pairing.prefill, plan.pairing.decode
    return (plan.monthly_usd, p.offer.provider_id, p.offer.gpu_id, d.offer.gpu_id, plan.pairing.path)


def _distinct(plans: Sequence[DisaggregatedPlan]) -> list[DisaggregatedPlan]:
    """One plan per (provider, GPUs, TPs, path): the same hardware at another region's price adds nothing."""
    seen, out = set(), []
    for plan in plans:
        p, d = plan.pairing.prefill, plan.pairing.decode
        layouts = (p.instance.tensor_parallel, p.instance.pipeline_parallel, d.instance.tensor_parallel)
        key = (
            p.offer.provider_id,
            p.offer.gpu_id,
            d.offer.gpu_id,
            layouts,
            d.instance.pipeline_parallel,
            plan.pairing.path,
        )
        if key not in seen:
            seen.add(key)
            out.append(plan)
    return out
