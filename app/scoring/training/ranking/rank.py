"""Rank GPU offers for a training workload by what the run bills (total $ under each offer's terms).

Per (GPU, machine) slot the cheapest GPU count per step is searched once (slot_search.py, count_search.py) and only
its estimate is explained (terms, strings). Every matching offer of that slot is then priced by its price group
(price_groups.py) with a dict lookup and a multiplication; runs that finish in time and within budget rank by their
billed total (minimum terms, spot interruptions), the rest after them, and an offer's option (results.py) is built
only when a caller reads it. Pure: the catalog snapshot is passed in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from app.scoring.efficiency import training as eff
from app.scoring.explain import Band, close_calls
from app.scoring.hardware.gpu_gaps import fill_missing_peaks
from app.scoring.pricing.offers import (
    ROW_OFFER_FIELDS,
    Computed,
    LazyOptions,
    MergedOrder,
    RowKey,
    offer_slots,
    snapshot_offers,
)
from app.scoring.pricing.price_terms import INTERRUPTIBLE, billed_band_ratios, finish_hours
from app.scoring.specs import CatalogSnapshot, ModelSpec, Offer
from app.scoring.training.estimate import TrainingEstimate
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.ranking.price_groups import price_runs
from app.scoring.training.ranking.ranked_rows import (
    LateRow,
    OnTimeRow,
    UnfitRow,
    late_rows,
    on_time_count,
    on_time_rows,
)
from app.scoring.training.ranking.results import (
    TrainingOption,
    TrainingRanking,
    priced_training_option,
    unfit_training_option,
)
from app.scoring.training.ranking.scale_out import frontier_points, wider_run
from app.scoring.training.ranking.slot_search import SharedTerms, SlotSearch
from app.scoring.training.run.batch_size import global_batch
from app.scoring.training.run.cheaper_late import LateRun, cheaper_late, deadline_costs_note, within_budget_words
from app.scoring.training.run.deadline import nothing_on_time_note, nothing_within_budget_note
from app.scoring.training.run.limit_words import SLOW_END
from app.scoring.training.run.offer_terms import (
    RunCost,
    RunTerms,
    priced_run,
    run_reason,
    run_terms,
    run_total_usd,
)
from app.scoring.training.step.mfu import fp4_modelled_note, peak_tflops
from app.scoring.workload import TrainingWorkload


def estimate_key(est: TrainingEstimate) -> tuple[object, ...]:
    """Rows with equal keys rest on one estimate (the same GPU, count, layout and speed), whatever their providers,
    prices and terms: the estimate's error is theirs together, so they are never a close call to each other."""
    return (est.gpu_id, est.gpu_count, est.layout_text, est.tokens_per_s_per_gpu)


# Option fields that are their estimate's own, and those that are their run cost's (priced_training_option copies them).
_ESTIMATE_FIELDS = frozenset({"step_time_s", "tokens_per_s_per_gpu", "mfu"})
_COST_FIELDS = {"total_usd": "total_usd", "total_hours": "wall_hours"}


def rank_training(workload: TrainingWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> TrainingRanking:
    """Options that finish within the deadline (and budget) by total cost under each offer's terms,
    cheapest first; then the ones that do not, with the reason; then those that do not fit.

    Order within a tier: (total USD, GPU id, provider id, offer order). Each (GPU, machine) is searched
    once; option objects are built only as far as a caller reads."""
    w = workload
    offers = snapshot_offers(snapshot, w)
    slots, machines = offer_slots(snapshot, w)  # per offer its slot number; per slot its (GPU, machine)
    searches: dict[int, SlotSearch] = {}
    fits = LayoutSearch(model, w)  # memory fits, shared by every machine of the ranking
    shared: dict[int, SharedTerms | None] = {}
    estimates: dict[int, TrainingEstimate] = {}
    stops: dict[int, str] = {}  # per slot: the machine's limit where it stops the slot's estimate short
    notes: list[str] = [fp4_modelled_note(eff.DEFAULT_TRAINING_EFFICIENCY)] if w.precision == "fp4" else []
    if model.max_context is not None and w.seq_len > model.max_context:  # a long-context extension, not an error
        notes.append(
            f"seq_len {w.seq_len:,} extends {model.name} beyond its native context of {model.max_context:,} tokens: "
            "a long-context extension (the position encoding's scaling is yours to set; the estimate prices the tokens)"
        )
    batch_note = global_batch(model, w).note  # a pretraining batch far below published ones
    if batch_note:
        notes.append(batch_note)

    def add_estimate(number: int, est: TrainingEstimate) -> None:
        search = searches[number]
        stops[number] = stop = search.stopped_by_machine(est) or search.stopped_by_max_gpus(est, w)
        estimates[number] = replace(est, reason=f"{est.reason}; {stop}") if stop and not est.feasible else est
        shared[number] = SharedTerms.of(estimates[number], search.machine, w)

    def spot_slot(slot: int, seller: str) -> int:
        """The slot a spot price group late at its slot's count ranks with: the count the search finds when each
        count is timed with the seller's interruptions, as the group's rows add them (a slot of its own where that
        count differs; the search reuses the slot's timed layouts)."""
        if (slot, seller) not in spot_slots:
            search, s = searches[slot], shared[slot]
            est = search.best(w.max_days * 24, search.spot_wall(seller, w))
            number = slot
            if s is not None and est.feasible and est.gpu_count != s.est.gpu_count:
                number = len(machines)
                machines.append(machines[slot])
                searches[number] = search
                add_estimate(number, est)
            spot_slots[slot, seller] = number
        return spot_slots[slot, seller]

    for number, (gpu_id, machine) in enumerate(machines):  # in order of first appearance among the offers
        gpu, note = fill_missing_peaks(snapshot.gpus[gpu_id], snapshot.gpus)  # peaks only: the machine is the same
        fallback = peak_tflops(gpu, w.precision)[2].strip("; ")  # e.g. "no FP4 tensor cores: runs in FP8"
        for text in (note, fallback):
            if text and f"{gpu_id}: {text}" not in notes:
                notes.append(f"{gpu_id}: {text}")
        searches[number] = SlotSearch(gpu, machine, fits, w)
        add_estimate(number, searches[number].best(w.max_days * 24))  # each count's run after its start-up
    runs = price_runs(snapshot, w)
    slots, machines = list(slots), list(machines)  # a late spot price group may get a slot of its own (spot_slot)
    spot_slots: dict[tuple[int, str], int] = {}  # (slot, spot seller) -> the slot its rows use
    terms: list[RunTerms | None] = []  # per price group; None when its machine cannot fit the model
    ratios: list[tuple[float, float]] = []  # per price group: its billed total's band as ratios to the total
    leading: dict[tuple[str, int], OnTimeRow] = {}  # (GPU, count) -> its best on-time row
    on_runs: list[Iterator[OnTimeRow]] = []
    late_runs: list[Iterator[LateRow]] = []
    n_on, n_late = 0, 0
    cheapest_late: LateRun | None = None  # the cheapest run late for the deadline alone, within the budget
    for group, members in zip(runs.groups, runs.members, strict=True):
        slot = group.slot
        s = shared[slot]
        if s is None:
            terms.append(None)
            ratios.append((1.0, 1.0))
            continue
        slow = s.band_high if w.limits_at == "band_high" else 1.0  # where the deadline and budget must hold
        t = run_terms(group.price_type, group.seller, group.min_term_hours, s.nodes, s.work_hours, w, slow)
        # late only by the interruptions the slot's search left out (a count late without them is late on spot too)
        late_by_spot = t.reason and not t.wasteful and finish_hours(s.work_hours, slow) <= w.max_days * 24
        if group.price_type in INTERRUPTIBLE and late_by_spot and spot_slot(slot, group.seller) != slot:
            slot = spot_slot(slot, group.seller)
            s = shared[slot]
            assert s is not None
            for index in members:
                slots[index] = slot
            slow = s.band_high if w.limits_at == "band_high" else 1.0
            t = run_terms(group.price_type, group.seller, group.min_term_hours, s.nodes, s.work_hours, w, slow)
        missed = "" if t.wasteful else t.reason  # the deadline, before the machine's stop is added to it
        if t.reason and not t.wasteful and stops[slot]:  # too slow for the deadline at all the machine supplies
            t = replace(t, reason=f"{t.reason}; {stops[slot]}")
        terms.append(t)
        ratios.append(
            billed_band_ratios(t.wall_hours, s.band_low, s.band_high, t.unit_hours, t.min_term_hours, t.startup_hours)
        )
        if slow != 1.0:
            t = terms[-1] = replace(t, slow_end_usd=ratios[-1][1])
        on = on_time_count(offers, members, t, s.est.gpu_count, w)
        if on:
            on_runs.append(on_time_rows(offers, members[:on], t, s.est.gpu_count))
            best = next(on_time_rows(offers, members[:1], t, s.est.gpu_count))
            configuration = (machines[slot][0], s.est.gpu_count)
            if configuration not in leading or best < leading[configuration]:
                leading[configuration] = best
        if on < len(members):
            late_runs.append(late_rows(offers, members[on:], t, s.est.gpu_count, w))
        if missed:  # a late group's cheapest offer is its first
            total = run_total_usd(t, s.est.gpu_count, offers[members[0]].usd_per_gpu_hour)
            finish = finish_hours(t.run_hours, t.slow_end_hours)
            late_run = LateRun(offers[members[0]], s.est.gpu_count, total, missed, finish)
            cheapest_late = cheaper_late(cheapest_late, late_run, w.budget_usd, t.slow_end_usd)
        n_on, n_late = n_on + on, n_late + len(members) - on
    unfit_runs = [
        (UnfitRow(offers[i].gpu_id, offers[i].provider_id, i) for i in members)
        for slot, members in enumerate(runs.by_slot)
        if shared[slot] is None
    ]
    on_time = MergedOrder(on_runs, n_on)  # cheapest first
    late = MergedOrder(late_runs, n_late)  # nearest the deadline first
    unfit = MergedOrder(unfit_runs, len(offers) - n_on - n_late)
    meeting: tuple[int, Offer] | None = None  # nothing on time, Max GPUs binds: a count that finishes in time
    if not n_on and n_late and late[0].hours_past_deadline > 0:
        index = late[0].offer_index
        nearest, s = searches[slots[index]], shared[slots[index]]
        assert s is not None
        meeting = wider_run(offers, slots, searches, (row.offer_index for row in late))
        slow, where = (s.band_high, f" {SLOW_END}") if w.limits_at == "band_high" else (1.0, "")
        notes.append(
            nothing_on_time_note(
                offers[index],
                s.est.gpu_count,
                s.work_hours * slow,
                nearest.cap,
                nearest.limit_reason,
                w,
                where,
                # the nearest machine was searched above Max GPUs (not spot, not bound by its own supply) in vain
                more_gpus_help=meeting is not None
                or offers[index].price_type in INTERRUPTIBLE
                or nearest.limit_reason is not None,
            )
            + (
                f" With Max GPUs {meeting[0]:,}, {meeting[0]:,}×{meeting[1].gpu_id} at {meeting[1].provider_name} "
                "finishes in time."
                if meeting
                else ""
            )
        )

    if not n_on and n_late and late[0].hours_past_deadline <= 0:  # on time, but every such run over the budget
        index = late[0].offer_index
        s, priced = shared[slots[index]], terms[runs.group_of[index]]
        assert s is not None and priced is not None
        total = run_total_usd(priced, s.est.gpu_count, offers[index].usd_per_gpu_hour)
        budget_note = nothing_within_budget_note(offers[index], s.est.gpu_count, run_reason(priced, total, w))
        notes.append(budget_note + within_budget_words(cheapest_late))
    if n_on and cheapest_late:
        first = on_time[0]
        count = shared[slots[first.offer_index]].est.gpu_count  # type: ignore[union-attr]
        late_note = deadline_costs_note(cheapest_late, offers[first.offer_index], count, first.total_usd, w.max_days)
        notes += [late_note] if late_note else []

    def index_at(position: int) -> int:
        if position < n_on:
            return on_time[position].offer_index
        if position < n_on + n_late:
            return late[position - n_on].offer_index
        return unfit[position - n_on - n_late].offer_index

    def cost_of(index: int) -> RunCost | None:
        s, t = shared[slots[index]], terms[runs.group_of[index]]
        return None if s is None or t is None else priced_run(t, s.est.gpu_count, offers[index].usd_per_gpu_hour, w)

    def band_of(usd: float, index: int) -> Band:
        """The band of an offer's billed total: the estimate's band billed as its terms bill (a minimum term fixes
        the cost of a run that fits in it whatever its speed)."""
        low, high = ratios[runs.group_of[index]]
        return Band(usd * low, usd * high)

    top = on_time[0] if n_on else None  # the winning row
    keys = {slot: estimate_key(s.est) for slot, s in shared.items() if s is not None}
    lowest = min((low for (low, _), t in zip(ratios, terms, strict=True) if t is not None), default=1.0)
    calls = close_calls(
        on_time,
        lambda row: row.total_usd,
        lambda row: band_of(row.total_usd, row.offer_index),
        lambda row: keys[slots[row.offer_index]],
        lowest,
    )

    def option_of(index: int, first: bool) -> TrainingOption:
        offer, slot = offers[index], slots[index]
        s, cost = shared[slot], cost_of(index)
        if s is None or cost is None:
            return unfit_training_option(offer, estimates[slot], machines[slot][1])
        band = band_of(cost.total_usd, index)
        close = calls.flag(band, keys[slot], first, rival=cost.on_time)  # a late run is no rival to an on-time one
        t = terms[runs.group_of[index]]
        assert t is not None
        return priced_training_option(offer, s, cost, t, close, band, w)

    def build(position: int) -> TrainingOption:
        return option_of(index_at(position), position == 0)

    def sort_value(position: int, name: str) -> object:
        index = index_at(position)
        s = shared[slots[index]]
        if s is not None and name in _ESTIMATE_FIELDS:
            return getattr(s.est, name)
        if name in ROW_OFFER_FIELDS:
            return getattr(offers[index], name)
        if s is not None and name == "usd_per_step":
            return s.usd_per_step(offers[index].usd_per_gpu_hour)
        cost = cost_of(index)
        if cost is not None and name in _COST_FIELDS:
            return getattr(cost, _COST_FIELDS[name])
        return getattr(build(position), name)

    def leaders() -> list[TrainingOption]:
        return [option_of(row.offer_index, row == top) for row in sorted(leading.values())]

    def row_key(position: int) -> RowKey:
        index = index_at(position)
        slot = slots[index]
        s, t = shared[slot], terms[runs.group_of[index]]
        if s is None or t is None:
            return RowKey(offers[index].gpu_id, estimates[slot].gpu_count, estimates[slot].reason)
        total = run_total_usd(t, s.est.gpu_count, offers[index].usd_per_gpu_hour)
        return RowKey(offers[index].gpu_id, s.est.gpu_count, run_reason(t, total, w))

    frontier_rows = (index_at(p) for p in range(n_on or n_late))  # read only until the leading machines are found
    frontier = frontier_points(w, offers, slots, searches, shared, frontier_rows)
    return TrainingRanking(
        model.id,
        LazyOptions(len(offers), build),
        sum(len(search.memo) for search in {id(search): search for search in searches.values()}.values()),
        notes,
        feasible_count=n_on,
        frontier=frontier,
        row_keys=Computed(len(offers), row_key),
        leaders=leaders,
        sort_value=sort_value,
        deadline_max_gpus=meeting[0] if meeting else None,
    )
