"""The #1 row of a ranking by fleet (rank_by="fleet": a peak's monthly bill) without estimating every slot.

A fleet's month is its offer's price x the GPUs its whole instances hold x 730 h, so no slot's fleet costs less than
its cheapest offer's price x one instance's GPUs x 730 h (its floor). Slots are estimated cheapest floor first and the
rest are skipped once a floor passes the cheapest fleet that meets the limits (it cannot come first) or once the
caller says no fleet that dear could matter (`could_matter`, which must never turn True again at a higher cost).
The replicas note of a fixed-load answer (app.service.rank.answer_body.cheaper_on_replicas) reads only this row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.scoring.inference.estimates.configurations import Explained, Solved
from app.scoring.inference.ranking.offer_order import PricedRow, slot_runs
from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.inference.ranking.pricing import ConfigurationPricing
from app.scoring.inference.ranking.rank import cached_configuration, estimate_workload_key, rank_inference
from app.scoring.pricing.offers import offer_slots, snapshot_offers
from app.scoring.pricing.price_terms import HOURS_PER_MONTH
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, kw_only=True)
class FleetLeader:
    """The fields of a fleet ranking's #1 option (InferenceOption's) that the replicas note reads."""

    gpu_id: str
    gpu_count: int
    replicas: int | None
    batch: int | None
    requests_per_s: float | None
    usd_per_month_at_peak: float | None


def fleet_leader(
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    could_matter: Callable[[float], bool] = lambda usd_per_month: True,
) -> FleetLeader | None:
    """rank_inference(workload, snapshot, model).options[0] of a peak ranked by fleet where it is feasible and
    could_matter(its $ a month), else None. A batch job bills hours, not floors: its full ranking gives the row."""
    if workload.ranked_by != "fleet" or not (workload.peak_requests_per_s or workload.peak_concurrency):
        raise ValueError("fleet_leader reads a peak ranked by fleet")
    if workload.job_requests:
        return _leader_of_full_ranking(workload, snapshot, model, could_matter)
    offers = snapshot_offers(snapshot, workload)
    _, slots = offer_slots(snapshot, workload)
    cheapest = [run[0] for run in slot_runs(snapshot, workload).by_price]  # a slot's first row is its cheapest offer
    floors = [
        offers[cheapest[s]].usd_per_gpu_hour * (slots[s][1].instance_gpus * HOURS_PER_MONTH) for s in range(len(slots))
    ]
    key = estimate_workload_key(workload)
    solved: Solved = {}
    explained: Explained = {}
    priced: dict[int, ConfigurationPricing] = {}
    within: list[PricedRow] = []  # each priced slot's first row, as priced_order's cost_run makes it
    over: list[PricedRow] = []

    def price(slot: int) -> None:
        gpu_id, machine = slots[slot]
        est = cached_configuration(snapshot.gpus[gpu_id], machine, model, workload, key, solved, explained)
        p = priced[slot] = ConfigurationPricing.of(est, machine, workload)
        if est.feasible:
            offer = offers[cheapest[slot]]
            row = PricedRow(offer.usd_per_gpu_hour * p.fleet_factor, gpu_id, offer.provider_id, cheapest[slot])
            (over if est.over_limits else within).append(row)

    order = sorted(range(len(slots)), key=lambda s: (floors[s], s))
    stop = len(order)
    for position, slot in enumerate(order):
        # no fleet of this slot or a later one costs less than its floor: first neither, nor of any consequence
        if (within and floors[slot] > min(within).cost_usd) or not could_matter(floors[slot]):
            stop = position
            break
        price(slot)
    if not within and stop < len(order) and any(could_matter(row.cost_usd) for row in over):
        for slot in order[stop:]:  # a skipped slot that meets the limits would come before every row over them
            price(slot)
    top = min(within or over, default=None)
    if top is None or not could_matter(top.cost_usd):
        return None
    p = priced[next(s for s in priced if cheapest[s] == top.offer_index)]
    return FleetLeader(
        gpu_id=offers[top.offer_index].gpu_id,
        gpu_count=p.est.gpu_count,
        replicas=p.replicas,
        batch=p.est.batch,
        requests_per_s=p.est.requests_per_s,
        usd_per_month_at_peak=top.cost_usd if p.fleet_factor else None,
    )


def _leader_of_full_ranking(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec, could_matter: Callable[[float], bool]
) -> FleetLeader | None:
    ranking = rank_inference(workload, snapshot, model)
    if not ranking.feasible_count:
        return None
    top = ranking.options[0]
    if not could_matter(top.usd_per_month_at_peak or 0.0):
        return None
    return leader_of(top)


def leader_of(option: InferenceOption) -> FleetLeader:
    """A ranked option's FleetLeader fields."""
    return FleetLeader(
        gpu_id=option.gpu_id,
        gpu_count=option.gpu_count,
        replicas=option.replicas,
        batch=option.batch,
        requests_per_s=option.requests_per_s,
        usd_per_month_at_peak=option.usd_per_month_at_peak,
    )
