"""Aggregated or disaggregated? Price both for a traffic and say which is cheaper, pool by pool.

Aggregated is the ranking's latency-bound operating point (continuous batching: every step also carries
its share of prompts, so prefill interferes with decode), priced as the /plan page prices it. Disaggregated
is a prefill pool and a decode pool (pairing.py); the P:D ratio is what the traffic needs of each pool,
hour by hour: the fewest prefill instances whose queue keeps TTFT inside its limit and the fewest decode
instances whose TPOT-bound batches carry the requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.engine_support import runs_on
from app.scoring.hardware.machines import machine_of
from app.scoring.inference.estimates.configurations import single_node_layouts
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.offers import snapshot_offers
from app.scoring.pricing.price_terms import COMMITTED, INTERRUPTIBLE
from app.scoring.serving.disaggregated.pairing import Pairing, PoolOffer, pairings
from app.scoring.serving.disaggregated.pools import (
    DecodeInstance,
    PrefillInstance,
    decode_instance,
    md1_wait_ms,
    prefill_instance,
    slow_end_multiples,
)
from app.scoring.serving.plans import ServingOption, may_stand_alone, price_options
from app.scoring.serving.traffic import WEEKS_PER_MONTH, Traffic, replicas_needed, serving_cost
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload

PRICED_PAIRINGS = 40  # pairings priced hour by hour, cheapest first by their fractional cost at the mean rate
SHOWN_PLANS = 5


AT_TRAFFIC = "served at this traffic"  # how a served_usd_per_million figure is said


def served_usd_per_million(monthly_usd: float, tokens_per_month: float) -> float:
    """$ per million tokens at the traffic: the month's cost over the tokens served in it, the autoscaled fleet's
    idle capacity included. Not the ranking's $ per million at full load (a replica's $/hour over what it can serve
    an hour), which a fleet reaches only when always busy."""
    return monthly_usd / tokens_per_month * 1e6 if tokens_per_month else 0.0


@dataclass(frozen=True, slots=True)
class PoolCost:
    """One pool of a disaggregated plan at the traffic."""

    role: str  # prefill | decode
    offer: PoolOffer
    replicas_at_peak: int  # instances of the role running at the peak hour (every copy the rentals hold)
    gpus_at_peak: int  # GPUs billed for them
    monthly_usd: float  # autoscaled, the plan page's basis
    usd_per_million_tokens_at_traffic: float  # served_usd_per_million: prefill per prompt token, decode per output
    utilisation_at_peak: float
    copies_per_rental: int = 1  # fabric path: instances of the role one rented instance of the offer holds
    rentals_at_peak: int | None = None  # fabric path: the offer's rented instances holding them


@dataclass(frozen=True, slots=True)
class DisaggregatedPlan:
    pairing: Pairing
    prefill: PoolCost
    decode: PoolCost
    ttft_ms: float  # at the peak hour's utilisation
    tpot_ms: float  # mean decode step at the chosen batch
    monthly_usd: float
    usd_per_million_output_tokens_at_traffic: float  # served_usd_per_million of the output tokens
    usd_per_million_tokens_at_traffic: float  # prompt and output tokens together
    units_at_peak: int = 0  # node path: nodes at the peak hour
    idle_gpus_at_peak: int = 0  # node path: GPUs of the rented whole instances that no instance uses

    @property
    def ratio(self) -> str:
        return f"{self.prefill.replicas_at_peak}P:{self.decode.replicas_at_peak}D"


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
    notes: list[str] = field(default_factory=list)
    pools: PoolsFound | None = None

    @property
    def best(self) -> DisaggregatedPlan | None:
        return self.plans[0] if self.plans else None


def pool_offers(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec, traffic: Traffic, eff: InferenceEfficiency
) -> tuple[list[PoolOffer], list[PoolOffer]]:
    """Prefill and decode instances on every offer the filters allow, in the layouts a ranking tries inside
    one node (TP, or TP x PP); GPUs the engine does not run on are left out."""
    prefills, decodes = [], []
    made: dict[tuple, tuple] = {}
    for offer in snapshot_offers(snapshot, workload):
        if offer.price_type in INTERRUPTIBLE and not traffic.spot_only:
            continue
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


def _pool(
    role: str, pool: PoolOffer, monthly_usd: float, replicas: int, capacity_rps: float, peak: float, tokens: float
) -> PoolCost:
    """`replicas` instances of the role, each serving `capacity_rps`, on the GPUs they use (the node path)."""
    return PoolCost(
        role=role,
        offer=pool,
        replicas_at_peak=replicas,
        gpus_at_peak=replicas * pool.instance.gpu_count,
        monthly_usd=monthly_usd,
        usd_per_million_tokens_at_traffic=served_usd_per_million(monthly_usd, tokens),
        utilisation_at_peak=peak / (replicas * capacity_rps) if replicas else 0.0,
    )


def _rented_pool(
    role: str, pool: PoolOffer, monthly_usd: float, rentals: int, capacity_rps: float, peak: float, tokens: float
) -> PoolCost:
    """The fabric path: `rentals` whole rented units of the offer (one instance of the role, or several copies of it
    on one rented instance), each copy serving `capacity_rps`."""
    gpus, copies = _rented(pool)
    cost = _pool(role, pool, monthly_usd, rentals * copies, capacity_rps, peak, tokens)
    instances = rentals * gpus // max(pool.machine.instance_gpus, 1)
    return replace(cost, gpus_at_peak=rentals * gpus, copies_per_rental=copies, rentals_at_peak=instances)


def _rented(pool: PoolOffer) -> tuple[int, int]:
    """GPUs one rental of the pool's offer bills, and the copies of its instance type it holds."""
    count = pool.instance.gpu_count
    return pool.machine.rented_gpus(count), pool.machine.copies(count)


def price_pairing(pairing: Pairing, workload: InferenceWorkload, traffic: Traffic) -> DisaggregatedPlan:
    """Both pools autoscaled hour by hour above the traffic's floor (a node path scales whole nodes)."""
    rates, peak = traffic.hourly_requests_per_s(), traffic.peak_rate_per_s()
    requests = sum(rates) * 3600 * WEEKS_PER_MONTH
    p, d, load, decoder = pairing.prefill, pairing.decode, pairing.load, pairing.decode_instance

    def monthly(capacity_rps: float, gpus: int, pool: PoolOffer) -> float:
        committed = pool.offer.price_type in COMMITTED
        usd = pool.offer.usd_per_gpu_hour
        cost = serving_cost(rates, 1, capacity_rps, gpus, usd, traffic.min_replicas, traffic.cold_start_s, committed)
        return cost.monthly_usd_autoscaled

    prompt_tokens, output_tokens = requests * workload.input_len, requests * workload.output_len
    units = idle = 0
    if pairing.path == "node":  # the node scales: its cost splits between the roles by GPUs
        gpus_p = pairing.prefill_per_unit * p.instance.gpu_count
        gpus_d = pairing.decode_per_unit * d.instance.gpu_count
        unit_rps = min(pairing.prefill_per_unit * load.capacity_rps, pairing.decode_per_unit * decoder.capacity_rps)
        both = monthly(unit_rps, pairing.node_gpus_billed, p)  # a whole instance's idle GPUs split like the used
        units = replicas_needed(peak, 1, unit_rps)
        idle = units * (pairing.node_gpus_billed - pairing.node_gpus_used)
        share = gpus_p / (gpus_p + gpus_d)
        n_p, n_d = units * pairing.prefill_per_unit, units * pairing.decode_per_unit
        prefill = _pool("prefill", p, both * share, n_p, load.capacity_rps, peak, prompt_tokens)
        decode = _pool("decode", d, both * (1 - share), n_d, decoder.capacity_rps, peak, output_tokens)
    else:  # each pool rents whole instances: one holding several copies of its instance type scales whole
        (gpus_p, copies_p), (gpus_d, copies_d) = _rented(p), _rented(d)
        rps_p, rps_d = load.capacity_rps * copies_p, decoder.capacity_rps * copies_d
        n_p, n_d = replicas_needed(peak, 1, rps_p), replicas_needed(peak, 1, rps_d)
        prefill_usd, decode_usd = monthly(rps_p, gpus_p, p), monthly(rps_d, gpus_d, d)
        prefill = _rented_pool("prefill", p, prefill_usd, n_p, load.capacity_rps, peak, prompt_tokens)
        decode = _rented_pool("decode", d, decode_usd, n_d, decoder.capacity_rps, peak, output_tokens)
    # capacity_rps is at the TTFT-bound utilisation: the peak hour's rho is that share of it
    rho = prefill.utilisation_at_peak * load.utilisation
    ttft = load.first_token_ms + md1_wait_ms(load.pass_ms, rho) + pairing.transfer_ms
    total = prefill.monthly_usd + decode.monthly_usd
    return DisaggregatedPlan(
        pairing=pairing,
        prefill=prefill,
        decode=decode,
        ttft_ms=ttft,
        tpot_ms=decoder.step_ms,
        monthly_usd=total,
        usd_per_million_output_tokens_at_traffic=served_usd_per_million(total, output_tokens),
        usd_per_million_tokens_at_traffic=served_usd_per_million(total, prompt_tokens + output_tokens),
        units_at_peak=units,
        idle_gpus_at_peak=idle,
    )


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
        pools=_pools_found(prefills, decodes, workload),
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
    if aggregated is None:
        return None
    o = aggregated.option
    offer = next((x for x in snapshot.offers if x.offer_id == o.offer_id), None)
    gpu = snapshot.gpus.get(o.gpu_id)
    if offer is None or gpu is None:
        return None
    machine = machine_of(offer, gpu)
    if o.gpu_count > machine.gpus_per_node:  # not o.nodes: an NVLink domain's layout spans physical nodes
        return None
    return decode_instance(gpu, machine, model, workload, o.tensor_parallel, o.pipeline_parallel, eff)


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
