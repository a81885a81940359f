"""One disaggregated plan priced for a traffic: its prefill pool and decode pool, autoscaled hour by hour.

A pairing (pairing.py) becomes a plan: each pool's monthly cost above the traffic's floor, its instances and GPUs
at the peak hour, and $ per million tokens at the traffic (the month's cost over the tokens served in it). A node
path scales whole nodes and splits their cost between the roles by GPUs; a fabric path rents each pool's whole
instances on its own. TTFT adds the prefill queue's wait at the peak hour and the KV transfer. Pure: no web or
database imports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.scoring.pricing.price_terms import COMMITTED
from app.scoring.serving.disaggregated.pairing import Pairing, PoolOffer
from app.scoring.serving.disaggregated.pools import (
    md1_wait_ms,
)
from app.scoring.serving.traffic.week import WEEKS_PER_MONTH, Traffic, replicas_needed, serving_cost
from app.scoring.workload import InferenceWorkload

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
    copies_needed_at_peak: int | None = None  # fabric path: copies the peak alone would need (≤ replicas_at_peak)

    @property
    def idle_gpus_at_peak(self) -> int:
        """Fabric path: GPUs the peak hour's rentals bill that no copy runs on (gpus_at_peak − replicas_at_peak ×
        gpu_count, 0 where the copies fill their rentals), already in monthly_usd; 0 on the node path (the plan's
        own). Every copy a rental holds serves a share of the peak: utilisation_at_peak and the TTFT's queue wait
        spread the peak over replicas_at_peak, so those GPUs are busy, not idle."""
        if self.copies_needed_at_peak is None:
            return 0
        return max(0, self.gpus_at_peak - self.replicas_at_peak * self.offer.instance.gpu_count)

    @property
    def fleet_note(self) -> str:
        """Fabric path, where the rentals hold more copies than the peak needs or bill GPUs no copy runs on: '4
        copies on a rented 8-GPU instance share the peak hour's requests (1 would serve them)'; '' otherwise."""
        needed = self.copies_needed_at_peak
        if needed is None or (needed >= self.replicas_at_peak and not self.idle_gpus_at_peak):
            return ""
        size = self.offer.machine.instance_gpus
        return pool_copies_words(self.replicas_at_peak, needed, self.rentals_at_peak, size, self.idle_gpus_at_peak)


def pool_copies_words(copies: int, needed: int, rentals: int | None, instance_gpus: int, idle_gpus: int) -> str:
    """A fabric pool's copies at the peak in words: the copies its rentals hold all serve (the count the pool's
    instances, utilisation and TTFT use), how many the peak alone would need, and GPUs no copy runs on."""
    running = "one copy" if copies == 1 else f"{copies} copies"
    rented = "a rented" if (rentals or 1) == 1 else f"{rentals} rented"
    words = f"{running} on {rented} {instance_gpus}-GPU instance{'' if (rentals or 1) == 1 else 's'}"
    if needed < copies:  # several copies: one alone always serves what needs any
        words += f" share the peak hour's requests ({needed} would serve them)"
    if idle_gpus:
        words += f", {idle_gpus} GPU{'s' if idle_gpus != 1 else ''} idle at peak"
    return words


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
    requests_per_month: float = 0.0  # the traffic's requests in a month: what $ per million tokens divides by

    @property
    def ratio(self) -> str:
        return f"{self.prefill.replicas_at_peak}P:{self.decode.replicas_at_peak}D"


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
    needed = min(replicas_needed(peak, 1, capacity_rps), rentals * copies)  # the rentals' other copies share it too
    return replace(
        cost,
        gpus_at_peak=rentals * gpus,
        copies_per_rental=copies,
        rentals_at_peak=instances,
        copies_needed_at_peak=needed,
    )


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
        requests_per_month=requests,
    )
