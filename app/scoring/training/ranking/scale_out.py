"""What more GPUs would buy a training ranking: the days and cost at every count the leading machines supply (the
cost-time chart's frontier) and, where nothing finishes in time, the fewest GPUs above Max GPUs at which one of the
machines nearest the deadline would (wider_run, for the note)."""

from __future__ import annotations

from collections.abc import Iterable

from app.scoring.hardware.machines import nodes_for
from app.scoring.pricing.price_terms import INTERRUPTIBLE
from app.scoring.specs import Offer
from app.scoring.training.ranking.count_search import (
    count_grid,
    deadline_hours_ratio,
    min_fitting_count,
    steps_of,
    timed_count,
)
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.results import FrontierPoint
from app.scoring.training.ranking.slot_search import SharedTerms, SlotSearch
from app.scoring.training.run.offer_terms import run_terms, run_total_usd
from app.scoring.workload import TrainingWorkload

WIDER_RUN_MACHINES = 5  # late machines, nearest the deadline first, tried at counts above Max GPUs


def wider_run(
    offers: list[Offer], slots: list[int], searches: dict[int, SlotSearch], late: Iterable[int]
) -> tuple[int, Offer] | None:
    """Where nothing finishes in time: the fewest GPUs above Max GPUs at which one of the machines nearest the
    deadline (not on spot) finishes in time, and its offer; None where no such machine is bound by Max GPUs."""
    found: tuple[int, Offer] | None = None
    tried: set[int] = set()
    for index in late:
        slot, offer = slots[index], offers[index]
        if slot in tried or offer.price_type in INTERRUPTIBLE or searches[slot].limit_reason is not None:
            continue
        tried.add(slot)
        count = searches[slot].count_meeting_deadline()
        if count is not None and (found is None or count < found[0]):
            found = (count, offer)
        if len(tried) >= WIDER_RUN_MACHINES:
            break
    return found


FRONTIER_MACHINES = 3  # the leading distinct (GPU, machine) pairs drawn on the cost-time chart


def frontier_points(
    w: TrainingWorkload,
    offers: list[Offer],
    slots: list[int],
    searches: dict[int, SlotSearch],
    shared: dict[int, SharedTerms | None],
    leading: Iterable[int],
) -> list[FrontierPoint]:
    """Days and total cost at every GPU count the leading machines supply (from the fewest that fit),
    each at the cheapest offer of that machine among the leaders: what scaling out buys. Each point is its count's run
    under the offer's terms as a row has it (offer_terms.run_terms): its wall time (start-up, and on spot the
    interruptions and restarts), its billed hours (billing unit, minimum term) and its deadline verdict, so a spot
    point sits where its row's run ends and is on time exactly when its row is."""
    chosen: dict[int, Offer] = {}
    for index in leading:
        slot = slots[index]
        drawn = {id(searches[c]) for c in chosen}  # a spot slot (rank.spot_slot) shares its machine's search
        if slot not in chosen and shared[slot] is not None and id(searches[slot]) not in drawn:
            chosen[slot] = offers[index]
        if len(chosen) >= FRONTIER_MACHINES:
            break
    steps = steps_of(w)
    points = []
    for slot, offer in chosen.items():
        search = searches[slot]
        slow = deadline_hours_ratio(search.gpu, w)  # where on_time is checked (limits_at)
        timer = GpuTimer(search.search, search.gpu)
        fewest = min_fitting_count(search.gpu, search.search, search.allowed) or 1
        for n in count_grid(search.search.workload.max_gpus, search.gpu.scaleup_domain_gpus):
            if n < fewest or not search.allowed(n):
                continue
            timed = timed_count(timer, search.gpu.id, n, search.memo)
            cost, layout = timed.step_x_count, timed.layout
            if layout is None:
                continue
            run_hours = steps * cost / n / 3600
            nodes = nodes_for(search.machine, n)
            terms = run_terms(offer.price_type, offer.provider_id, offer.min_term_hours, nodes, run_hours, w, slow)
            points.append(
                FrontierPoint(
                    gpu_id=offer.gpu_id,
                    gpu_count=n,
                    provider=offer.provider_id,
                    provider_name=offer.provider_name,
                    price_type=offer.price_type,
                    days=terms.wall_hours / 24,
                    total_usd=run_total_usd(terms, n, offer.usd_per_gpu_hour),
                    on_time=not terms.reason,
                )
            )
    return points
