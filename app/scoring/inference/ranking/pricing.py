"""Pricing one (GPU, machine) configuration: what every offer of it shares.

`ConfigurationPricing` holds the configuration's estimate and the factors that turn $/GPU-hour into each ranked
metric (cost ∝ price × GPUs / throughput), the band ratios, the replicas a peak needs (`peak_replicas`) and a batch
job's hours as each offer bills them. An offer's cost is then its price times one factor, and `cost_band` its band.

A copy's GPUs are billed as its share of an instance where the other copies it holds earn theirs: at full use (a
capacity question), a peak's replicas or a batch job. At a fixed load (`one_replica_load`) the row bills every GPU of
the instances its layout rents, and the load is spread over every copy they hold (estimates.spread_load), each at its
share: the copies together serve the load, at the same bill, and GPUs no copy runs on (one stream, fewer clients than
copies) are idle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.scoring.explain import Band
from app.scoring.hardware.machines import Machine, nodes_for
from app.scoring.inference.bands.limits import one_replica_load
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.estimates.spread_load import served_share
from app.scoring.pricing.billed_terms import BillingTerms, billing_terms_key
from app.scoring.pricing.price_terms import (
    HOURS_PER_MONTH,
    ROUNDED_BAND_FLOOR,
    STARTUP_HOURS,
    billed_band_ratios,
    billed_job_hours,
    billing_unit_hours,
    job_wall_hours,
    min_term_hours,
    usd_per_million_tokens,
)
from app.scoring.specs import Offer
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
class ConfigurationPricing:
    """What every offer of one (GPU, machine) shares: the estimate and the factors that turn $/GPU-hour
    into each metric (cost ∝ price × GPUs / throughput), the band ratios and the replicas needed."""

    est: InferenceEstimate
    machine: Machine
    output_factor: float = 0.0  # $/M output tokens per $/GPU-hour
    all_tokens_factor: float = 0.0  # $/M tokens in and out per $/GPU-hour
    requests_factor: float = 0.0  # $/1k requests per $/GPU-hour
    band_low: float = 1.0  # band ratios applied to the cost
    band_high: float = 1.0
    replicas: int = 1
    request_life_hours: float = 0.0  # a batch job on spot loses the requests in flight: half of one life each time
    fleet_factor: float = 0.0  # with a peak: $ a month per $/GPU-hour, the GPUs its replicas rent x 730 h
    job_hours: float | None = None  # a batch job's wall time on `replicas` (every copy a rented instance holds)
    idle_gpus: int = 0  # at a fixed load: GPUs of its rented instances no copy sharing the load runs on, billed
    peak_load: InferenceWorkload | None = None  # with a peak: the workload, whose peak a row with spare GPUs spreads
    # A batch job's billed hours by what they read of an offer (price type, stated minimum term, billing_terms_key):
    # a ranking sorts every offer of a slot by its billed price, and offers with equal keys bill the same float
    billed_by_terms: dict[tuple[str, float | None, BillingTerms], float] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def of(cls, est: InferenceEstimate, machine: Machine, workload: InferenceWorkload) -> ConfigurationPricing:
        if not est.feasible:
            return cls(est=est, machine=machine)
        fixed = one_replica_load(workload)  # its rented instances are billed whole, the load spread over their copies
        sharing = est.copies_sharing_load
        tokens_per_s = est.output_tokens_per_s
        copies = machine.copies(est.gpu_count)
        replicas, job_hours = est.job_replicas, est.job_hours  # a job's replicas meet its deadline (no peak traffic)
        life_hours = (est.ttft_ms + workload.output_len * est.tpot_ms) / 3.6e6  # one request, start to end
        spread = 1.0  # GPU-hours the job takes on every copy over those of its estimate (> 1: a short job's floor)
        if job_hours and replicas % copies:  # the instances a job rents run a copy on every share: all of them work
            whole = -(-replicas // copies) * copies
            # its requests split over every copy; no share ends before one request's life (13 requests on 8 copies)
            spread_hours = max(job_hours * replicas / whole, life_hours)
            spread = spread_hours * whole / (job_hours * replicas)
            replicas, job_hours = whole, spread_hours
        peak = bool(workload.peak_requests_per_s or workload.peak_concurrency)
        if peak:
            replicas = peak_replicas(workload, est)

        def fleet_gpus_of(replica_count: int) -> int:  # whole rented units: instances, or the layout's own GPUs
            return machine.instances(est.gpu_count, replica_count) * machine.instance_gpus

        fleet_gpus = fleet_gpus_of(replicas)
        band_low, band_high = tokens_per_s / est.band.high, tokens_per_s / est.band.low
        if peak and workload.ranked_by == "fleet":  # whole replicas and instances at the band's throughputs
            band_low = fleet_gpus_of(peak_replicas(workload, est, est.band.high / tokens_per_s)) / fleet_gpus
            band_high = fleet_gpus_of(peak_replicas(workload, est, est.band.low / tokens_per_s)) / fleet_gpus
        all_tokens_per_s = tokens_per_s * (workload.input_len + workload.output_len) / workload.output_len
        requests_per_s = tokens_per_s / workload.output_len
        if fixed:
            replicas = sharing
        # a fixed load's copy bills its share of the instances, per the load it serves: 10 clients on 8 copies run 2
        # on the busiest, the one estimated, so the copies serve 10/16 of 8 such copies' tokens (served_share)
        served = sharing * served_share(workload, sharing)
        billed = fleet_gpus_of(sharing) / served if fixed else machine.billed_gpus(est.gpu_count)
        return cls(
            est=est,
            machine=machine,
            output_factor=usd_per_million_tokens(billed, tokens_per_s) * spread,
            all_tokens_factor=usd_per_million_tokens(billed, all_tokens_per_s) * spread,
            requests_factor=billed / 3600 / requests_per_s * 1e3 * spread,
            band_low=band_low,
            band_high=band_high,
            replicas=replicas,
            request_life_hours=life_hours,
            fleet_factor=fleet_gpus * HOURS_PER_MONTH if peak else 0.0,
            job_hours=job_hours,
            idle_gpus=fleet_gpus_of(sharing) - sharing * est.gpu_count if fixed else 0,
            peak_load=workload if peak else None,
        )

    @property
    def job_total_hours(self) -> float | None:
        """A batch job's hours from the machine's start-up (STARTUP_HOURS, as a training run's) to its last request:
        what its deadline holds and its bill starts from."""
        return STARTUP_HOURS + self.job_hours if self.job_hours else None

    def job_billed_hours(self, offer: Offer) -> float | None:
        """A batch job's hours as `offer` bills them: on spot its expected wall time with interruptions (each loses the
        requests in flight and a restart) after its start-up, rounded up to the provider's billing unit, a committed
        term paid whole."""
        hours = self.job_hours
        if not hours:
            return None
        price_type, stated_term = offer.price_type, offer.min_term_hours
        terms = (price_type, stated_term, billing_terms_key(price_type, offer.provider_id))
        billed = self.billed_by_terms.get(terms)
        if billed is None:
            spot = (nodes_for(self.machine, self.est.gpu_count), self.request_life_hours)
            billed = billed_job_hours(hours, price_type, stated_term, offer.provider_id, spot)
            self.billed_by_terms[terms] = billed
        return billed

    def billed_hours_by_terms(
        self, offers: list[Offer], numbers: set[int], billing_offer: list[int]
    ) -> dict[int, float]:
        """job_billed_hours by billing terms' number (offer_order.SlotRuns.billing), read of the first offer with
        them: offers with equal terms bill the same float (billed_terms.py)."""
        billed: dict[int, float] = {}
        for number in numbers:
            hours = self.job_billed_hours(offers[billing_offer[number]])
            assert hours is not None  # a batch job's
            billed[number] = hours
        return billed

    def band_ratios(self, offer: Offer) -> tuple[float, float]:
        """The band of `offer`'s cost as ratios to it. A batch job is billed hours: its band is the job at the
        estimate's fastest and slowest after its start-up, which no speed changes, each end billed as the job is
        (price_terms.billed_band_ratios), so a job that stays inside a committed minimum term costs that term whatever
        its speed. Else the band's own ratios."""
        if not self.job_hours:
            return self.band_low, self.band_high
        spot = (nodes_for(self.machine, self.est.gpu_count), self.request_life_hours)
        wall = job_wall_hours(self.job_hours, offer.price_type, offer.provider_id, spot)
        unit = billing_unit_hours(offer.price_type, offer.provider_id)
        term = min_term_hours(offer.price_type, offer.min_term_hours)
        return billed_band_ratios(STARTUP_HOURS + wall, self.band_low, self.band_high, unit, term, STARTUP_HOURS)

    @property
    def lowest_band_ratio(self) -> float:
        """A floor under band_ratios' low end for every offer: a job's billing unit rounds both ends' hours up, which
        can leave the fast end at half the estimate's own ratio (price_terms.ROUNDED_BAND_FLOOR)."""
        return self.band_low * ROUNDED_BAND_FLOOR if self.job_hours else self.band_low

    def billed_price(self, offer: Offer) -> float:
        """$ per GPU-hour of the work: the offer's price, or for a batch job what it bills spread over the job's
        hours."""
        billed = self.job_billed_hours(offer)
        if billed is None or not self.job_hours:
            return offer.usd_per_gpu_hour
        return offer.usd_per_gpu_hour * billed / self.job_hours

    def factor(self, rank_by: str) -> float:
        if rank_by == "all_tokens":
            return self.all_tokens_factor
        if rank_by == "requests":
            return self.requests_factor
        if rank_by == "fleet":
            return self.fleet_factor
        return self.output_factor


def peak_replicas(workload: InferenceWorkload, est: InferenceEstimate, capacity_ratio: float = 1.0) -> int:
    """Replicas the workload's peak needs, each serving `capacity_ratio` x what the estimate says it serves (the band's
    ends): requests/s over the requests/s a replica sustains (est.requests_per_s: Little's law, not batch / step), or
    clients over its batch (closed loop: a client holds one running sequence)."""
    if workload.peak_requests_per_s:
        requests_per_s = est.requests_per_s * capacity_ratio
        return max(1, math.ceil(workload.peak_requests_per_s / requests_per_s - 1e-9))
    return max(1, math.ceil((workload.peak_concurrency or 1) / (est.batch * capacity_ratio)))


def cost_band(cost: float, p: ConfigurationPricing, offer: Offer) -> Band:
    low, high = p.band_ratios(offer)
    return Band(cost * low, cost * high)
