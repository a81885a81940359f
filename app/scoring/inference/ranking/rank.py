"""Rank GPU offers for serving one model: estimate each (GPU, machine) once, then price every offer.

An offer supplies only what its machine can (app.scoring.machines): up to a node's GPUs, tensor
parallel inside the node, several nodes only across a real fabric. A configuration of n GPUs on a
bigger node is charged for n GPUs (the rest of the node can serve another replica); across nodes
it takes whole nodes. Rows name their price terms; spot replicas are marked interruptible.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import NamedTuple

from app.scoring.explain import Band, Term, close_calls
from app.scoring.inference.estimates.configurations import best_on_machine
from app.scoring.inference.estimates.results import InferenceEstimate, LowestP99, P99Reach
from app.scoring.machines import Machine, nodes_for, rented_gpus, shared_rack_assumption, shared_rack_caveat
from app.scoring.offers import (
    ROW_OFFER_FIELDS,
    Chained,
    Computed,
    LazyOptions,
    MergedOrder,
    RowKey,
    filter_key,
    offer_fields,
    offer_slots,
    snapshot_offers,
    with_assumption,
)
from app.scoring.price_terms import (
    HOURS_PER_MONTH,
    ROUNDED_BAND_FLOOR,
    billed_band_ratios,
    billed_job_hours,
    billing_unit_hours,
    job_wall_hours,
    min_term_hours,
    usd_per_million_tokens,
)
from app.scoring.snapshot_memo import MemoKind
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.workload import InferenceWorkload

RANK_UNITS = {
    "output_tokens": "$ per million output tokens",
    "all_tokens": "$ per million tokens in and out",
    "requests": "$ per thousand requests",
    "fleet": "$ a month for the replicas the peak needs",
}
# Each rank_by's metric as a table's column heads it (the pages and the CLI).
RANK_HEADERS = {
    "output_tokens": "$/M out tok",
    "all_tokens": "$/M tok in+out",
    "requests": "$/1k req",
    "fleet": "$/mo at peak",
}
# The option field that holds each rank_by's metric (and whose band the option carries).
RANK_METRIC_FIELDS = {
    "output_tokens": "usd_per_million_output_tokens",
    "all_tokens": "usd_per_million_tokens",
    "requests": "usd_per_thousand_requests",
    "fleet": "usd_per_month_at_peak",
}


@dataclass(slots=True)  # not frozen: a frozen init costs several µs per offer, and rankings build many
class InferenceOption:
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool
    reason: str
    close_call: bool = False  # another configuration whose band overlaps the winner's (the winner: one exists)
    terms: list[Term] = field(default_factory=list)
    # The estimate's measures: None on an infeasible option (it runs at no latency and serves no tokens)
    ttft_ms: float | None = None  # mean (deprecated name of ttft_mean_ms)
    tpot_ms: float | None = None  # mean (deprecated name of tpot_mean_ms)
    ttft_median_ms: float | None = None
    ttft_p99_ms: float | None = None  # what the request's ttft_ms limit is checked against
    tpot_p99_ms: float | None = None  # what the request's tpot_ms limit is checked against
    batch: int | None = None
    output_tokens_per_s: float | None = None
    usd_per_million_output_tokens: float | None = None
    usd_per_million_tokens: float | None = None  # input and output tokens together
    usd_per_thousand_requests: float | None = None
    memory_gb: dict[str, float] = field(default_factory=dict)
    band: Band | None = None  # low/high of the ranked metric (workload.rank_by)
    replicas: int | None = None  # None on an infeasible option
    pipeline_parallel: int = 1
    nodes: int = 1
    machine: str = ""  # the offer's machine as the ranking read it
    price_note: str = ""
    price_caveats: tuple[str, ...] = ()  # price_terms.price_caveats of the note: labels a row shows
    price_source_url: str = ""  # where the price was read (the offer's source_url)
    stale: bool = False
    interruptible: bool = False  # spot: may be taken back at short notice
    min_term_hours: float = 0.0  # reserved / capacity block: paid for at least this long
    offer_id: int | None = None
    attention_parallel: str = "tp"  # "dp": data-parallel attention over the TP group (estimate.solve_inference)
    expert_parallel: str = "tp"  # "ep": MoE experts placed whole over the TP group
    job_hours: float | None = None  # a batch job (workload.job_requests): its time, on `replicas` replicas
    job_billed_hours: float | None = None  # rounded up to the provider's billing unit, a committed term paid whole
    job_usd: float | None = None  # what the job is billed: replicas x GPUs x price x billed hours
    over_limits: str = ""  # at a live-traffic load, the latency limits it misses (ranked after those meeting them)
    assumptions: list[str] = field(default_factory=list)  # what the estimate assumes, its band's evidence last
    instance_gpus: int = 1  # GPUs one rental of the offer bills (an 8-GPU VM is rented whole)
    copies_per_instance: int = 1  # copies of this layout one rented instance runs (an 8-GPU VM holds four TP2)
    instances: int | None = None  # rented instances the `replicas` need (None on an infeasible option)
    usd_per_month_at_peak: float | None = None  # with a peak: its rented fleet (whole instances) x price x 730 h
    # Added after the fields above (a payload's and a CSV's new keys come last): explicit names of the means, and the
    # field the band is on (RANK_METRIC_FIELDS of rank_by)
    ttft_mean_ms: float | None = None
    tpot_mean_ms: float | None = None
    band_metric: str | None = None
    ttft_p99_band: Band | None = None  # ms: the p99 TTFT's band (latency_bands), None on an infeasible option
    tpot_p99_band: Band | None = None  # ms
    limits_at_risk: str = ""  # the limits a p99 at its band's slow end would pass (limits.limits_at_risk)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def rented_gpus(self) -> int:
        """GPUs one rented unit bills: the whole instance (with every copy it holds), or the layout's own."""
        return rented_gpus(self.instance_gpus, self.gpu_count)

    @property
    def rented_tokens_per_s(self) -> float:
        """Output tokens/s one rented unit serves: every copy it holds."""
        return (self.output_tokens_per_s or 0.0) * self.copies_per_instance  # an infeasible option serves none


@dataclass(frozen=True, slots=True)
class InferenceRanking:
    model_id: str
    options: Sequence[InferenceOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    feasible_count: int = 0  # the first feasible_count options are the feasible ones
    rank_by: str = "output_tokens"
    row_keys: Sequence[RowKey] = ()  # per option, its (GPU, count, reason) without building the option
    leaders: Callable[[], list[InferenceOption]] = list  # the best feasible row of each configuration, best first
    over_limits_count: int = 0  # the last of the feasible options are over a latency limit (limits.py)
    # Where every feasible option is over the limits: the lowest p99 TTFT and TPOT any of them reaches at this load,
    # and on what ({"ttft_p99_ms": {"value", "gpu_id", "gpu_count"}, "tpot_p99_ms": {...}}); else empty
    lowest_p99: dict[str, dict[str, object]] = field(default_factory=dict)
    # A feasible option's field by position, read without building the option where its estimate, offer or cost
    # holds it (a view sorted by a column reads one field of every feasible option)
    sort_value: Callable[[int, str], object] | None = None

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [o.to_dict() for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
        }


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

    @classmethod
    def of(cls, est: InferenceEstimate, machine: Machine, workload: InferenceWorkload) -> ConfigurationPricing:
        if not est.feasible:
            return cls(est=est, machine=machine)
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
        billed = machine.billed_gpus(est.gpu_count)  # per copy: the layout's GPUs, or its share of an instance
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
        )

    def job_billed_hours(self, offer: Offer) -> float | None:
        """A batch job's hours as `offer` bills them: on spot its expected wall time with interruptions (each loses the
        requests in flight and a restart), rounded up to the provider's billing unit, a committed term paid whole."""
        hours = self.job_hours
        if not hours:
            return None
        spot = (nodes_for(self.machine, self.est.gpu_count), self.request_life_hours)
        return billed_job_hours(hours, offer.price_type, offer.min_term_hours, offer.provider_id, spot)

    def band_ratios(self, offer: Offer) -> tuple[float, float]:
        """The band of `offer`'s cost as ratios to it. A batch job is billed hours: its band is the job at the
        estimate's fastest and slowest, each end billed as the job is (price_terms.billed_band_ratios), so a job
        that stays inside a committed minimum term costs that term whatever its speed. Else the band's own ratios."""
        if not self.job_hours:
            return self.band_low, self.band_high
        spot = (nodes_for(self.machine, self.est.gpu_count), self.request_life_hours)
        wall = job_wall_hours(self.job_hours, offer.price_type, offer.provider_id, spot)
        unit = billing_unit_hours(offer.price_type, offer.provider_id)
        term = min_term_hours(offer.price_type, offer.min_term_hours)
        return billed_band_ratios(wall, self.band_low, self.band_high, unit, term)

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
    ends): requests/s x output tokens over a replica's tokens/s, or clients over its batch (closed loop: a client
    holds one running sequence)."""
    if workload.peak_requests_per_s:
        tokens_per_s = est.output_tokens_per_s * capacity_ratio
        return max(1, math.ceil(workload.peak_requests_per_s * workload.output_len / tokens_per_s))
    return max(1, math.ceil((workload.peak_concurrency or 1) / (est.batch * capacity_ratio)))


def _feasible_option(offer: Offer, p: ConfigurationPricing, rank_by: str, close: bool) -> InferenceOption:
    est, price = p.est, p.billed_price(offer)
    copies = p.machine.copies(est.gpu_count)
    cost = price * p.factor(rank_by)
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        pipeline_parallel=est.pipeline_parallel,
        attention_parallel=est.attention_parallel,
        expert_parallel=est.expert_parallel,
        nodes=nodes_for(p.machine, est.gpu_count),
        machine=p.machine.describe(),
        **offer_fields(offer, shared_rack_caveat(p.machine, est.gpu_count)),
        min_term_hours=min_term_hours(offer.price_type, offer.min_term_hours),
        feasible=True,
        reason=est.reason,
        close_call=close,
        terms=est.terms,
        assumptions=with_assumption(est.assumptions, shared_rack_assumption(p.machine, est.gpu_count)),
        ttft_ms=est.ttft_ms,
        tpot_ms=est.tpot_ms,
        ttft_median_ms=est.ttft_median_ms,
        ttft_p99_ms=est.ttft_p99_ms,
        tpot_p99_ms=est.tpot_p99_ms,
        batch=est.batch,
        output_tokens_per_s=est.output_tokens_per_s,
        usd_per_million_output_tokens=price * p.output_factor,
        usd_per_million_tokens=price * p.all_tokens_factor,
        usd_per_thousand_requests=price * p.requests_factor,
        memory_gb=est.memory_gb,
        band=_band(cost, p, offer),
        replicas=p.replicas,
        job_hours=p.job_hours,
        job_billed_hours=p.job_billed_hours(offer),
        job_usd=price * p.machine.billed_gpus(est.gpu_count) * p.job_hours * p.replicas if p.job_hours else None,
        over_limits=est.over_limits,
        instance_gpus=p.machine.instance_gpus,
        copies_per_instance=copies,
        instances=p.machine.instances(est.gpu_count, p.replicas),
        usd_per_month_at_peak=price * p.fleet_factor if p.fleet_factor else None,
        ttft_mean_ms=est.ttft_ms,
        tpot_mean_ms=est.tpot_ms,
        band_metric=RANK_METRIC_FIELDS[rank_by],
        ttft_p99_band=est.ttft_p99_band,
        tpot_p99_band=est.tpot_p99_band,
        limits_at_risk=est.limits_at_risk,
    )


def _infeasible_option(offer: Offer, p: ConfigurationPricing) -> InferenceOption:
    est = p.est
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        pipeline_parallel=est.pipeline_parallel,
        machine=p.machine.describe(),
        **offer_fields(offer),
        min_term_hours=min_term_hours(offer.price_type, offer.min_term_hours),
        feasible=False,
        reason=est.reason,
        memory_gb=est.memory_gb,
    )


# Option fields that are their estimate's own (_feasible_option copies them unchanged).
_ESTIMATE_FIELDS = frozenset({"ttft_ms", "tpot_ms", "batch", "output_tokens_per_s"})

_CACHE: dict[tuple, InferenceEstimate] = {}
_CACHE_LIMIT = 20_000
# Fields that choose or price offers but never change an estimate.
_FILTER_FIELDS = {
    "providers",
    "price_types",
    "gpus",
    "vendors",
    "peak_requests_per_s",
    "peak_concurrency",
    "include_stale",
    "rank_by",
}


def cached_configuration(
    gpu: GpuSpec, machine: Machine, model: ModelSpec, workload: InferenceWorkload, key: str
) -> InferenceEstimate:
    """Memoised best_on_machine: estimates depend on hardware x model x workload, never on prices."""
    cache_key = (gpu, machine, model, key)
    est = _CACHE.get(cache_key)
    if est is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        est = _CACHE[cache_key] = best_on_machine(gpu, machine, model, workload)
    return est


def estimate_key(est: InferenceEstimate) -> tuple[object, ...]:
    """Rows with equal keys rest on one estimate (the same GPU, count, layout and operating point), whatever their
    providers and prices: the estimate's error is theirs together, so they are never a close call to each other."""
    return (
        est.gpu_id,
        est.gpu_count,
        est.tensor_parallel,
        est.pipeline_parallel,
        est.attention_parallel,
        est.expert_parallel,
        est.batch,
        est.output_tokens_per_s,
    )


class PricedRow(NamedTuple):
    """A feasible offer's place in a ranking tier, compared field by field: cheapest first, then by GPU id,
    provider id and offer order."""

    cost_usd: float  # the ranked metric, in its unit (RANK_UNITS of rank_by)
    gpu_id: str
    provider_id: str
    offer_index: int  # into snapshot_offers


class LeaderRow(NamedTuple):
    """A configuration's best row as leaders() orders them: rows meeting the latency limits first, then by row."""

    over_limits: bool
    row: PricedRow


def rank_inference(workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> InferenceRanking:
    """Cheapest first by the workload's metric (ties: GPU id, provider id, offer order); one row per
    (GPU, provider, price terms, configuration); rows over a latency limit at a live-traffic load after every row
    that meets them (limits.py); infeasible options last, in offer order, with reasons.

    Each (GPU, machine) slot is estimated once; an offer is then a price times its slot's factor, so the
    per-offer work is a multiplication, a sort and a set lookup (slots are memoised per snapshot)."""
    offers = snapshot_offers(snapshot, workload)
    slot_of, slots = offer_slots(snapshot, workload)
    key = workload.model_dump_json(exclude=_FILTER_FIELDS)
    rank_by = workload.ranked_by
    by_slot = [
        ConfigurationPricing.of(
            cached_configuration(snapshot.gpus[gpu_id], machine, model, workload, key), machine, workload
        )
        for gpu_id, machine in slots
    ]
    runs = slot_runs(snapshot, workload)
    # Over a latency limit at a live-traffic load (limits.py): ranked after every row that meets the limits.
    within = [s for s, p in enumerate(by_slot) if p.est.feasible and not p.est.over_limits]
    over = [s for s, p in enumerate(by_slot) if p.est.feasible and p.est.over_limits]
    tiers = [_priced_order(offers, slot_of, slots, by_slot, runs, rank_by, tier) for tier in (within, over)]
    order = Chained(*tiers)
    infeasible = _infeasible_order(offers, slot_of, by_slot, runs)
    top = order[0] if order else None  # the winning row
    keys = [estimate_key(p.est) for p in by_slot]
    winner_over = not tiers[0]  # a row over the limits is no rival to a winner that meets them, nor one to it

    def row_band(row: PricedRow) -> Band:
        return _band(row.cost_usd, by_slot[slot_of[row.offer_index]], offers[row.offer_index])

    lowest = min((p.lowest_band_ratio for p in by_slot if p.est.feasible), default=1.0)
    calls = close_calls(
        tiers[winner_over], lambda row: row.cost_usd, row_band, lambda row: keys[slot_of[row.offer_index]], lowest
    )

    def priced(row: PricedRow, first: bool) -> InferenceOption:
        index = row.offer_index
        slot = slot_of[index]
        p = by_slot[slot]
        rival = bool(p.est.over_limits) == winner_over
        close = calls.flag(_band(row.cost_usd, p, offers[index]), keys[slot], first, rival)
        return _feasible_option(offers[index], p, rank_by, close)

    def build(position: int) -> InferenceOption:
        if position >= len(order):
            index = infeasible[position - len(order)]
            return _infeasible_option(offers[index], by_slot[slot_of[index]])
        return priced(order[position], position == 0)

    def sort_value(position: int, name: str) -> object:
        row = order[position]
        index = row.offer_index
        p = by_slot[slot_of[index]]
        if name in _ESTIMATE_FIELDS:
            return getattr(p.est, name)
        if name in ROW_OFFER_FIELDS:
            return getattr(offers[index], name)
        if name == RANK_METRIC_FIELDS[rank_by]:
            return row.cost_usd
        if name == "replicas":
            return p.replicas
        if name == "job_hours":
            return p.job_hours
        return getattr(build(position), name)

    def leaders() -> list[InferenceOption]:
        """A slot's cheapest offer is its best row, so each configuration's best row is its slots' best."""
        best: dict[tuple[str, int], LeaderRow] = {}
        for slot, p in enumerate(by_slot):
            if p.est.feasible:
                row = next(
                    _cost_run(offers, _billed_run(offers, runs.by_price[slot], p)[:1], p, rank_by, slots[slot][0])
                )
                configuration = (slots[slot][0], p.est.gpu_count)
                leader = LeaderRow(bool(p.est.over_limits), row)
                if configuration not in best or leader < best[configuration]:
                    best[configuration] = leader
        return [priced(leader.row, leader.row == top) for leader in sorted(best.values())]

    # Every offer of a slot has the same key: (GPU, the slot's GPU count, the slot's reason).
    slot_keys = [RowKey(gpu_id, p.est.gpu_count, p.est.reason) for (gpu_id, _), p in zip(slots, by_slot, strict=True)]
    feasible_count = len(order)

    def row_key(position: int) -> RowKey:
        index = order[position].offer_index if position < feasible_count else infeasible[position - feasible_count]
        return slot_keys[slot_of[index]]

    def row_keys(positions: range) -> list[RowKey]:
        head = range(positions.start, min(positions.stop, feasible_count))
        tail = range(max(positions.start, feasible_count) - feasible_count, positions.stop - feasible_count)
        feasible_keys = [slot_keys[slot_of[order[p].offer_index]] for p in head]
        return feasible_keys + [slot_keys[slot_of[infeasible[p]]] for p in tail]

    total = len(order) + len(infeasible)
    return InferenceRanking(
        model.id,
        LazyOptions(total, build),
        len(by_slot),
        feasible_count=len(order),
        rank_by=rank_by,
        row_keys=Computed(total, row_key, row_keys),
        leaders=leaders,
        over_limits_count=len(tiers[1]),
        lowest_p99=_lowest_p99([by_slot[s].est for s in over]) if over and not within else {},
        sort_value=sort_value,
    )


class SlotRuns(NamedTuple):
    """Per (GPU, machine) slot: its offers by (price, provider id, offer order), by offer order, and its
    sellers as (provider id, price type). Depends on the catalog and the filters only."""

    by_price: list[list[int]]
    in_order: list[list[int]]
    sellers: list[frozenset[tuple[str, str]]]


SLOT_RUNS: MemoKind[SlotRuns] = MemoKind("slot_runs")  # slot_runs per filter key


def slot_runs(snapshot: CatalogSnapshot, filters: InferenceWorkload) -> SlotRuns:
    """SlotRuns of snapshot_offers(snapshot, filters), memoised per snapshot and filter set."""

    def build() -> SlotRuns:
        offers = snapshot_offers(snapshot, filters)
        slot_of, slots = offer_slots(snapshot, filters)
        in_order: list[list[int]] = [[] for _ in slots]
        for index, slot in enumerate(slot_of):
            in_order[slot].append(index)
        by_price = [
            sorted(run, key=lambda i: (offers[i].usd_per_gpu_hour, offers[i].provider_id, i)) for run in in_order
        ]
        sellers = [frozenset((offers[i].provider_id, offers[i].price_type) for i in run) for run in in_order]
        return SlotRuns(by_price, in_order, sellers)

    return snapshot.memo.get(SLOT_RUNS, filter_key(filters), build)


def _distinct_sellers(groups: dict[tuple, list[int]], sellers: list[frozenset[tuple[str, str]]]) -> int:
    """How many distinct (provider, price type) each group of slots has, summed over the groups."""
    total = 0
    for members in groups.values():
        total += (
            len(sellers[members[0]]) if len(members) == 1 else len(frozenset().union(*(sellers[s] for s in members)))
        )
    return total


def _cost_run(
    offers: list[Offer], members: list[int], p: ConfigurationPricing, rank_by: str, gpu_id: str
) -> Iterator[PricedRow]:
    factor = p.factor(rank_by)
    if p.job_hours:
        return (PricedRow(p.billed_price(offers[i]) * factor, gpu_id, offers[i].provider_id, i) for i in members)
    return (PricedRow(offers[i].usd_per_gpu_hour * factor, gpu_id, offers[i].provider_id, i) for i in members)


def _billed_run(offers: list[Offer], by_price: list[int], p: ConfigurationPricing) -> list[int]:
    """A slot's offers cheapest first as they bill the work: by price, except that a batch job pays a committed
    offer's whole minimum term and a provider's whole billing unit, which can put them behind dearer offers."""
    if not p.job_hours:
        return by_price
    return sorted(by_price, key=lambda i: (p.billed_price(offers[i]), offers[i].provider_id, i))


def _priced_order(
    offers: list[Offer],
    slot_of: list[int],
    slots: list[tuple[str, Machine]],
    by_slot: list[ConfigurationPricing],
    runs: SlotRuns,
    rank_by: str,
    feasible: list[int],
) -> MergedOrder[PricedRow]:
    """PricedRows of the offers of the `feasible` slots, cheapest first, the cheapest
    offer per (GPU, provider, price type, configuration) only: one provider's bigger instances add no row for the
    same layout. A lazy merge of the slots' price runs (within a slot, cost is price times one factor)."""
    layout = [(p.est.gpu_count, p.est.tensor_parallel, p.est.pipeline_parallel) for p in by_slot]
    groups: dict[tuple, list[int]] = {}
    for s in feasible:
        groups.setdefault((slots[s][0], layout[s]), []).append(s)
    cost_runs = [
        _cost_run(offers, _billed_run(offers, runs.by_price[s], by_slot[s]), by_slot[s], rank_by, slots[s][0])
        for s in feasible
    ]

    def same(row: PricedRow) -> tuple:
        offer = offers[row.offer_index]
        return (offer.gpu_id, offer.provider_id, offer.price_type, layout[slot_of[row.offer_index]])

    return MergedOrder(cost_runs, _distinct_sellers(groups, runs.sellers), same)


def _infeasible_order(
    offers: list[Offer],
    slot_of: list[int],
    by_slot: list[ConfigurationPricing],
    runs: SlotRuns,
) -> list[int]:
    """Offers that cannot serve the model, in offer order, one per (GPU, provider, price type, reason).
    Only the offers of the slots that cannot serve it are read (a merge of their runs in offer order)."""
    unfit = [s for s, p in enumerate(by_slot) if not p.est.feasible]
    seen: set[tuple[str, str, str, str]] = set()
    kept = []
    for index in heapq.merge(*(runs.in_order[s] for s in unfit)):
        offer = offers[index]
        same = (offer.gpu_id, offer.provider_id, offer.price_type, by_slot[slot_of[index]].est.reason)
        if same not in seen:
            seen.add(same)
            kept.append(index)
    return kept


def _lowest_p99(estimates: list[InferenceEstimate]) -> dict[str, dict[str, object]]:
    """The lowest p99 TTFT and TPOT any configuration reaches at this load (each machine's layouts, not only the one
    it is ranked with: best_on_machine), with the GPU and layout that reach it: what limits this load can meet at
    all, when no configuration meets the workload's."""
    lowest: dict[str, dict[str, object]] = {}
    for name in LowestP99._fields:  # ttft_p99_ms, tpot_p99_ms
        reached: list[tuple[P99Reach, str]] = [
            (getattr(e.lowest_p99, name), e.gpu_id) for e in estimates if e.lowest_p99 is not None
        ]
        if not reached:
            continue
        reach, gpu_id = min(reached)  # the lowest latency, then the fewest GPUs, then the GPU id
        lowest[name] = {
            "value": reach.p99_ms,
            "gpu_id": gpu_id,
            "gpu_count": reach.gpu_count,
            "tensor_parallel": reach.tensor_parallel,
            "pipeline_parallel": reach.pipeline_parallel,
        }
    return lowest


def _band(cost: float, p: ConfigurationPricing, offer: Offer) -> Band:
    low, high = p.band_ratios(offer)
    return Band(cost * low, cost * high)
