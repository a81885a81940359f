"""Rank GPU offers for a training workload by what the run bills (total $ under each offer's terms).

Per GPU type: GPU counts from the fewest that fit up through powers of two and multiples of the
scale-up domain on a geometric grid (≤ max_gpus, a few dozen counts even at 65,536), each timed at
most once and only if its compute time alone could still beat the best cost so far; the cheapest
count per step wins and only its estimate is explained (terms, strings). Every matching offer of
that GPU is then priced with a dict lookup and a multiplication; runs that finish in time and within budget rank
by their billed total (minimum terms, spot interruptions), the rest after them. Pure: the catalog snapshot is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from functools import lru_cache
from typing import NamedTuple, TypeAlias

from app.scoring.efficiency import training as eff
from app.scoring.explain import Band, Term, close_calls
from app.scoring.gpu_gaps import fill_missing_peaks
from app.scoring.machines import (
    Machine,
    job_gpu_limit,
    machine_gpu,
    nodes_for,
    shared_rack_assumption,
    shared_rack_caveat,
    supply_limit_reason,
)
from app.scoring.offers import (
    ROW_OFFER_FIELDS,
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
from app.scoring.price_terms import INTERRUPTIBLE, billed_band_ratios, billed_use_hours, billing_unit_hours
from app.scoring.snapshot_memo import MemoKind
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec, Offer
from app.scoring.training.batch_size import global_batch
from app.scoring.training.configurations import machine_efficiency, unstated_cluster_caveat
from app.scoring.training.deadline import count_meeting_deadline, max_gpus_stop, nothing_on_time_note
from app.scoring.training.estimate import (
    TrainingEstimate,
    estimate_training,
    slow_end_hours_ratio,
    unrented_estimate,
)
from app.scoring.training.limit_words import SLOW_END, deadline_at_risk_text
from app.scoring.training.memory import Layout
from app.scoring.training.offer_terms import RunCost, RunTerms, priced_run, run_reason, run_terms, run_total_usd
from app.scoring.training.ranked_rows import (
    LateRow,
    OnTimeRow,
    UnfitRow,
    late_rows,
    on_time_count,
    on_time_rows,
)
from app.scoring.training.run_explain import billing_note, run_terms_explained
from app.scoring.training.search import GpuTimer, LayoutSearch
from app.scoring.training.step_time import fp4_modelled_note, peak_tflops
from app.scoring.workload import TrainingWorkload


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~3 µs per offer
class TrainingOption:
    gpu_id: str
    gpu_count: int
    layout: str
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool  # fits, and finishes within the deadline and budget under the offer's terms
    reason: str
    close_call: bool = False  # another configuration whose band overlaps the winner's (the winner: one exists)
    terms: list[Term] = field(default_factory=list)
    usd_per_step: float | None = None
    step_time_s: float | None = None
    tokens_per_s_per_gpu: float | None = None
    mfu: float | None = None
    total_hours: float | None = None  # expected wall time (spot: with interruptions)
    total_usd: float | None = None  # what the offer's terms charge for the run
    memory_per_gpu_gb: float | None = None  # None where no layout was sized (the GPU has no compute peak)
    band: Band | None = None  # low/high of total_usd, the ranked metric (close calls compare these bands)
    days: float | None = None
    billed_hours: float | None = None  # hours used rounded up to the billing unit, at least a committed minimum term
    expected_interruptions: float | None = None  # None on an option that does not fit
    billing_note: str = ""  # how billed hours and spot's lost hours follow from the terms ("" where billed = used)
    # a run across more nodes than one on an offer that does not state how many it supplies ("" otherwise)
    cluster_caveat: str = ""
    nodes: int = 1
    machine: str = ""
    price_note: str = ""
    price_caveats: tuple[str, ...] = ()  # price_terms.price_caveats of the note: labels a row shows
    price_source_url: str = ""  # where the price was read (the offer's source_url)
    stale: bool = False
    interruptible: bool = False
    offer_id: int | None = None
    assumptions: list[str] = field(default_factory=list)  # what the estimate assumes, its band's evidence last
    band_metric: str | None = None  # the field the band is on: total_usd (added last: a payload's new keys come last)
    # GB per GPU by part of the layout this row was sized at (memory.memory_breakdown_gb): what its memory chart
    # draws; None where no layout was sized
    memory_breakdown_gb: dict[str, float] | None = None
    # what an on-time run misses at its tokens/s band's slow end (deadline, budget), in words; "" where nothing
    deadline_at_risk: str = ""


@dataclass(frozen=True, slots=True)
class FrontierPoint:
    """One GPU count of a machine: how long the run takes and what it costs at the cheapest offer."""

    gpu_id: str
    gpu_count: int
    provider: str
    provider_name: str
    price_type: str
    days: float
    total_usd: float
    on_time: bool


@dataclass(frozen=True, slots=True)
class TrainingRanking:
    model_id: str
    options: Sequence[TrainingOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    notes: list[str] = field(default_factory=list)
    feasible_count: int = 0  # the first feasible_count options are the feasible ones
    frontier: list[FrontierPoint] = field(default_factory=list)  # cost-time points of the leading machines
    row_keys: Sequence[RowKey] = ()  # per option, its (GPU, count, reason) without building the option
    leaders: Callable[[], list[TrainingOption]] = list  # the best feasible row of each configuration, best first
    # A feasible option's field by position, read without building the option where its estimate, offer or run
    # cost holds it (a view sorted by a column reads one field of every feasible option)
    sort_value: Callable[[int, str], object] | None = None
    deadline_max_gpus: int | None = None  # nothing on time and Max GPUs binds: the Max GPUs that would meet it

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [asdict(o) for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
            "notes": list(self.notes),
            "frontier": [asdict(p) for p in self.frontier],
        }


def node_multipliers(limit: int) -> list[int]:
    """1…8, then four per doubling, at most 25 % apart (10, 12, 14, 16, 20, 24, 28, 32, 40…), up to limit."""
    out = list(range(1, min(limit, 8) + 1))
    base = 8
    while base <= limit:
        out.extend(k for k in range(base + base // 4, 2 * base + 1, base // 4) if k <= limit)
        base *= 2
    return out


def candidate_counts(min_count: int, max_gpus: int, node_gpus: int) -> list[int]:
    """min_count, then powers of two and node multiples (node × node_multipliers) above it, up to max_gpus."""
    counts = {min_count}
    n = 1
    while n <= max_gpus:
        if n > min_count:
            counts.add(n)
        n *= 2
    node = node_gpus if node_gpus >= 8 else 8  # PCIe cards and NVL pairs: 8-GPU servers
    counts.update(k * node for k in node_multipliers(max_gpus // node) if k * node > min_count)
    return sorted(c for c in counts if c <= max_gpus)


@lru_cache(maxsize=256)
def _grid(max_gpus: int, node_gpus: int) -> tuple[int, ...]:
    return tuple(candidate_counts(1, max_gpus, node_gpus))


def whole_nodes(machine: Machine) -> Callable[[int], bool]:
    """Counts a machine supplies: part of one node, or whole nodes; and whole rented instances (a job on 4 GPUs of
    an 8-GPU instance pays for all 8, and all 8 train faster for the same bill)."""
    per_node, instance = machine.gpus_per_node, machine.instance_gpus
    return lambda n: (n <= per_node or n % per_node == 0) and n % instance == 0


def _any_count(n: int) -> bool:
    return True


def min_fitting_count(gpu: GpuSpec, search: LayoutSearch, allowed: Callable[[int], bool] = _any_count) -> int | None:
    """Fewest GPUs that fit: the first fitting grid count, refined down over the node multiples the
    geometric grid skipped (a scan for short gaps, bisection for long ones), so the result is the
    same as walking every node multiple while fitting is monotone in the count."""
    node = gpu.scaleup_domain_gpus if gpu.scaleup_domain_gpus >= 8 else 8
    below = 0
    for n in _grid(search.workload.max_gpus, gpu.scaleup_domain_gpus):
        if not allowed(n):
            continue
        if search.fits(gpu, n):
            break
        below = n
    else:
        return None
    low_k, high_k = below // node + 1, (n - 1) // node  # node multiples strictly between below and n
    if high_k - low_k < 32:
        return next((k * node for k in range(low_k, high_k + 1) if allowed(k * node) and search.fits(gpu, k * node)), n)
    while low_k <= high_k:  # invariant: n fits; every multiple below low_k does not
        mid = (low_k + high_k) // 2
        if allowed(mid * node) and search.fits(gpu, mid * node):
            n, high_k = mid * node, mid - 1
        else:
            low_k = mid + 1
    return n


# (GPU id, count) -> (step time × count, fastest fitting layout or None): each count is timed at most once.
LayoutMemo: TypeAlias = dict[tuple[str, int], tuple[float, Layout | None]]


def steps_of(w: TrainingWorkload) -> float:
    return w.total_tokens / (w.global_batch_seqs * w.seq_len)


def best_estimate(
    gpu: GpuSpec,
    search: LayoutSearch,
    memo: LayoutMemo,
    allowed: Callable[[int], bool] = _any_count,
    deadline_hours: float | None = None,
) -> TrainingEstimate:
    """Cheapest GPU count per step (step time × count) for one GPU type among the counts that finish
    within the deadline; if none does, the fastest count tried. Infeasible estimate if none fits.

    Every count of the grid up to Max GPUs is a candidate: cost per step is not unimodal in the count (a larger
    count makes room for a pipeline or ZeRO-1 layout that a smaller one cannot hold), so no run of worse counts
    ends the sweep. A count is skipped unless its compute time alone, a lower bound on its cost, could beat the best.
    With limits_at band_high a count meets the deadline only if its hours at its band's slow end do."""
    model, w = search.model, search.workload
    first = min_fitting_count(gpu, search, allowed)
    if first is None:  # why the largest count the machine supplies under Max GPUs does not fit
        supplied = (n for n in reversed(_grid(w.max_gpus, gpu.scaleup_domain_gpus)) if allowed(n))
        top = w.max_gpus if allowed(w.max_gpus) else next(supplied, w.max_gpus)
        return estimate_training(gpu, top, model, w, e=search.e)
    timer = GpuTimer(search, gpu)
    steps = slow_end_steps(gpu, w)
    best_n, best_layout, best_cost = first, None, float("inf")
    fastest: tuple[float, int, Layout] | None = None  # (hours, count, layout) of counts that miss the deadline
    sweep = (first, *(c for c in _grid(w.max_gpus, gpu.scaleup_domain_gpus) if c > first))  # candidate_counts
    for n in sweep:
        if not allowed(n):
            continue
        threshold = best_cost * 0.999  # a larger count must be cheaper by more than rounding to replace a smaller
        if timer.compute_s(n, "none") * n >= threshold:  # cost ≥ compute without recompute: cannot improve
            continue
        key = (gpu.id, n)
        if key not in memo:
            layout, seconds = timer.best_layout(n)
            memo[key] = (seconds * n if layout else float("inf"), layout)
        cost, layout = memo[key]
        hours = steps * cost / n / 3600
        if deadline_hours is not None and layout is not None and hours > deadline_hours:
            if fastest is None or hours < fastest[0]:
                fastest = (hours, n, layout)
            continue  # too slow: a larger count may finish in time
        if cost < threshold:
            best_n, best_layout, best_cost = n, layout, cost
    if best_layout is None and fastest is not None:
        _, best_n, best_layout = fastest
    return estimate_training(gpu, best_n, model, w, layout=best_layout, e=search.e)


def slow_end_steps(gpu: GpuSpec, w: TrainingWorkload) -> float:
    """The steps a deadline check times: steps_of, times the hours' ratio at the band's slow end with limits_at
    band_high (so hours = these steps × seconds per step meet the deadline there)."""
    return steps_of(w) * (slow_end_hours_ratio(gpu, w) if w.limits_at == "band_high" else 1.0)


@dataclass(frozen=True, slots=True)
class SharedTerms:
    """What every offer of one (GPU, machine) shares; an offer multiplies by its price under its terms.

    usd/step = (step × count) × price / 3600 and work hours × count × price: the same operations in
    the same order as pricing each offer from the estimate."""

    est: TrainingEstimate
    machine: Machine
    step_x_count: float
    work_hours: float  # without interruptions
    band_low: float  # ratios applied to the hours used: tok/s ÷ band high, tok/s ÷ band low (billed_band_ratios)
    band_high: float
    nodes: int
    cluster_caveat: str  # configurations.unstated_cluster_caveat

    @classmethod
    def of(cls, est: TrainingEstimate, machine: Machine, w: TrainingWorkload) -> SharedTerms | None:
        if not est.feasible:
            return None
        tok = est.tokens_per_s_per_gpu
        return cls(
            est=est,
            machine=machine,
            step_x_count=est.step_time_s * est.gpu_count,
            work_hours=w.total_tokens / (est.gpu_count * tok) / 3600,
            band_low=tok / est.band.high,
            band_high=tok / est.band.low,
            nodes=nodes_for(machine, est.gpu_count),
            cluster_caveat=unstated_cluster_caveat(machine, est.gpu_count),
        )

    def usd_per_step(self, usd_per_gpu_hour: float) -> float:
        return self.step_x_count * usd_per_gpu_hour / 3600


class SlotSearch:
    """Per (GPU, machine): the machine's GPU as wired, the GPU counts it supplies, its layout search."""

    def __init__(self, gpu: GpuSpec, machine: Machine, fits: LayoutSearch, w: TrainingWorkload) -> None:
        self.machine = machine
        self.gpu = machine_gpu(gpu, machine)
        cap = self.cap = min(w.max_gpus, machine.gpus_per_node * machine.node_limit(w.max_gpus))
        self.limit_reason = supply_limit_reason(machine, w.max_gpus)  # None: Max GPUs stops a job first
        capped = w if cap == w.max_gpus else w.model_copy(update={"max_gpus": cap})
        self.search = fits.for_machine(capped, machine_efficiency(machine, eff.DEFAULT_TRAINING_EFFICIENCY))
        self.allowed = whole_nodes(machine)
        self.memo: LayoutMemo = {}

    def best(self, deadline_hours: float) -> TrainingEstimate:
        instance = self.machine.instance_gpus
        if instance > self.cap:  # no whole instance within Max GPUs: part of one bills all its GPUs
            return unrented_estimate(
                self.gpu, instance, self.search.model, self.search.workload, instance_reason(instance, self.cap)
            )
        return best_estimate(self.gpu, self.search, self.memo, self.allowed, deadline_hours)

    def stopped_by_machine(self, est: TrainingEstimate) -> str:
        """Why the machine stops this estimate short ("" where Max GPUs or nothing does): no count within its limit
        holds the model, or the count chosen is all it supplies (a run too slow for the deadline needs more)."""
        if self.limit_reason is None or (est.feasible and est.gpu_count < self.cap):
            return ""
        return self.limit_reason if est.feasible or est.memory_breakdown_gb else ""

    def stopped_by_max_gpus(self, est: TrainingEstimate, w: TrainingWorkload) -> str:
        """Max GPUs' part where it, not the machine, stops a run that fits ("" otherwise): the count chosen is the
        largest Max GPUs lets this machine run (a run too slow for the deadline at it needs more)."""
        if self.limit_reason is not None or not est.feasible:
            return ""
        top = max((n for n in self.grid(self.cap) if self.allowed(n)), default=0)
        return max_gpus_stop(w, est.gpu_count) if est.gpu_count == top else ""

    def grid(self, limit: int) -> tuple[int, ...]:
        """The candidate counts up to `limit` for this machine's GPU (candidate_counts from 1)."""
        return _grid(limit, self.gpu.scaleup_domain_gpus)

    def count_meeting_deadline(self) -> int | None:
        """deadline.count_meeting_deadline of this machine, where Max GPUs binds before the machine's own limit."""
        if self.limit_reason is not None:
            return None
        steps, supply = slow_end_steps(self.gpu, self.search.workload), job_gpu_limit(self.machine)
        return count_meeting_deadline(self.gpu, self.search, self.allowed, self.grid, supply, steps)


def instance_reason(instance_gpus: int, max_gpus: int) -> str:
    """Why an offer rented as whole instances larger than Max GPUs runs nothing: a job on part of an instance
    pays for all of it (whole_nodes)."""
    return (
        f"rented as {instance_gpus}-GPU instances, which bill all {instance_gpus} GPUs: above Max GPUs "
        f"({max_gpus:,}); raise Max GPUs to {instance_gpus} to rank it"
    )


def estimate_key(est: TrainingEstimate) -> tuple[object, ...]:
    """Rows with equal keys rest on one estimate (the same GPU, count, layout and speed), whatever their providers,
    prices and terms: the estimate's error is theirs together, so they are never a close call to each other."""
    return (est.gpu_id, est.gpu_count, est.layout_text, est.tokens_per_s_per_gpu)


# Option fields that are their estimate's own, and those that are their run cost's (_priced_option copies them).
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
    for number, (gpu_id, machine) in enumerate(machines):  # in order of first appearance among the offers
        gpu, note = fill_missing_peaks(snapshot.gpus[gpu_id], snapshot.gpus)  # peaks only: the machine is the same
        fallback = peak_tflops(gpu, w.precision)[2].strip("; ")  # e.g. "no FP4 tensor cores: runs in FP8"
        for text in (note, fallback):
            if text and f"{gpu_id}: {text}" not in notes:
                notes.append(f"{gpu_id}: {text}")
        searches[number] = SlotSearch(gpu, machine, fits, w)
        est = searches[number].best(w.max_days * 24)
        stops[number] = stop = searches[number].stopped_by_machine(est) or searches[number].stopped_by_max_gpus(est, w)
        estimates[number] = replace(est, reason=f"{est.reason}; {stop}") if stop and not est.feasible else est
        shared[number] = SharedTerms.of(estimates[number], machine, w)
    runs = price_runs(snapshot, w)
    terms: list[RunTerms | None] = []  # per price group; None when its machine cannot fit the model
    ratios: list[tuple[float, float]] = []  # per price group: its billed total's band as ratios to the total
    leading: dict[tuple[str, int], OnTimeRow] = {}  # (GPU, count) -> its best on-time row
    on_runs: list[Iterator[OnTimeRow]] = []
    late_runs: list[Iterator[LateRow]] = []
    n_on, n_late = 0, 0
    for group, members in zip(runs.groups, runs.members, strict=True):
        slot = group.slot
        s = shared[slot]
        if s is None:
            terms.append(None)
            ratios.append((1.0, 1.0))
            continue
        slow = s.band_high if w.limits_at == "band_high" else 1.0  # where the deadline and budget must hold
        t = run_terms(group.price_type, group.seller, group.min_term_hours, s.nodes, s.work_hours, w, slow)
        if t.reason and not t.wasteful and stops[slot]:  # too slow for the deadline at all the machine supplies
            t = replace(t, reason=f"{t.reason}; {stops[slot]}")
        terms.append(t)
        ratios.append(billed_band_ratios(t.wall_hours, s.band_low, s.band_high, t.unit_hours, t.min_term_hours))
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
        meeting = _wider_run(offers, slots, searches, (row.offer_index for row in late))
        slow, where = (s.band_high, f" {SLOW_END}") if w.limits_at == "band_high" else (1.0, "")
        notes.append(
            nothing_on_time_note(
                offers[index], s.est.gpu_count, s.work_hours * slow, nearest.cap, nearest.limit_reason, w, where
            )
            + (
                f" With Max GPUs {meeting[0]:,}, {meeting[0]:,}×{meeting[1].gpu_id} at {meeting[1].provider_name} "
                "finishes in time."
                if meeting
                else ""
            )
        )

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
            return _unfit_option(offer, estimates[slot], machines[slot][1])
        band = band_of(cost.total_usd, index)
        close = calls.flag(band, keys[slot], first, rival=cost.on_time)  # a late run is no rival to an on-time one
        t = terms[runs.group_of[index]]
        assert t is not None
        return _priced_option(offer, s, cost, t, close, band, w)

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
        sum(len(search.memo) for search in searches.values()),
        notes,
        feasible_count=n_on,
        frontier=frontier,
        row_keys=Computed(len(offers), row_key),
        leaders=leaders,
        sort_value=sort_value,
        deadline_max_gpus=meeting[0] if meeting else None,
    )


WIDER_RUN_MACHINES = 5  # late machines, nearest the deadline first, tried at counts above Max GPUs


def _wider_run(
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


class PriceGroup(NamedTuple):
    """What the offers of one price group share: their machine and the terms that bill their runs."""

    slot: int  # the (GPU, machine) slot
    price_type: str
    seller: str  # the provider where spot rates and billing units are its own; else ""
    min_term_hours: float | None


class PriceRuns(NamedTuple):
    """The matching offers in price groups: same machine and same price terms, so their run costs differ
    only by the price and rank in price order. Depends on the catalog and the filters only."""

    group_of: list[int]  # per offer, its group
    groups: list[PriceGroup]
    members: list[list[int]]  # per group, its offers by (price, provider id, offer order)
    by_slot: list[list[int]]  # per slot, its offers by (provider id, offer order)


PRICE_RUNS: MemoKind[PriceRuns] = MemoKind("price_runs")  # price_runs per filter key


def price_runs(snapshot: CatalogSnapshot, filters: TrainingWorkload) -> PriceRuns:
    """PriceRuns of snapshot_offers(snapshot, filters), memoised per snapshot and filter set."""

    def build() -> PriceRuns:
        offers = snapshot_offers(snapshot, filters)
        slot_of, machines = offer_slots(snapshot, filters)
        numbers: dict[PriceGroup, int] = {}
        group_of = []
        for offer, slot in zip(offers, slot_of, strict=True):
            # spot rates and billing units are per provider: their offers group apart
            per_provider = offer.price_type in INTERRUPTIBLE or billing_unit_hours(offer.price_type, offer.provider_id)
            seller = offer.provider_id if per_provider else ""
            group = PriceGroup(slot, offer.price_type, seller, offer.min_term_hours)
            group_of.append(numbers.setdefault(group, len(numbers)))
        members: list[list[int]] = [[] for _ in numbers]
        by_slot: list[list[int]] = [[] for _ in machines]
        for index, (number, slot) in enumerate(zip(group_of, slot_of, strict=True)):
            members[number].append(index)
            by_slot[slot].append(index)
        for run in members:
            run.sort(key=lambda i: (offers[i].usd_per_gpu_hour, offers[i].provider_id, i))
        for run in by_slot:
            run.sort(key=lambda i: (offers[i].provider_id, i))
        return PriceRuns(group_of, list(numbers), members, by_slot)

    return snapshot.memo.get(PRICE_RUNS, filter_key(filters), build)


def _priced_option(
    offer: Offer, s: SharedTerms, cost: RunCost, t: RunTerms, close: bool, band: Band, w: TrainingWorkload
) -> TrainingOption:
    est = s.est
    usd_step = s.usd_per_step(offer.usd_per_gpu_hour)
    bill = run_terms_explained(t, est.gpu_count, offer.usd_per_gpu_hour, cost.total_usd, w)
    return TrainingOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        layout=est.layout_text,
        nodes=s.nodes,
        machine=s.machine.describe(),
        **offer_fields(offer, shared_rack_caveat(s.machine, est.gpu_count)),
        feasible=cost.on_time,
        reason=cost.reason,
        close_call=close,
        terms=[*est.terms, *bill],
        assumptions=with_assumption(est.assumptions, shared_rack_assumption(s.machine, est.gpu_count)),
        usd_per_step=usd_step,
        step_time_s=est.step_time_s,
        tokens_per_s_per_gpu=est.tokens_per_s_per_gpu,
        mfu=est.mfu,
        total_hours=cost.wall_hours,
        days=cost.wall_hours / 24,
        total_usd=cost.total_usd,
        billed_hours=cost.billed_hours,
        expected_interruptions=cost.interruptions,
        billing_note=billing_note(t),
        cluster_caveat=s.cluster_caveat,
        memory_per_gpu_gb=est.memory_per_gpu_gb,
        band=band,
        band_metric="total_usd",
        memory_breakdown_gb=est.memory_breakdown_gb,
        deadline_at_risk=""
        if not cost.on_time
        else deadline_at_risk_text(cost.wall_hours, s.band_high, band.high, w.max_days, w.budget_usd),
    )


def _unfit_option(offer: Offer, est: TrainingEstimate, machine: Machine) -> TrainingOption:
    return TrainingOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        layout=est.layout_text,
        machine=machine.describe(),
        **offer_fields(offer),
        feasible=False,
        reason=est.reason,
        terms=est.terms,
        assumptions=est.assumptions,
        memory_per_gpu_gb=est.memory_per_gpu_gb if est.memory_breakdown_gb else None,
        memory_breakdown_gb=est.memory_breakdown_gb or None,
    )


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
    each at the cheapest offer of that machine among the leaders: what scaling out buys. The cost is billed as
    the ranking bills the offer's hours (billing unit, minimum term; without spot's interruptions)."""
    chosen: dict[int, Offer] = {}
    for index in leading:
        slot = slots[index]
        if slot not in chosen and shared[slot] is not None:
            chosen[slot] = offers[index]
        if len(chosen) >= FRONTIER_MACHINES:
            break
    steps, deadline = steps_of(w), w.max_days * 24
    points = []
    for slot, offer in chosen.items():
        search = searches[slot]
        slow = slow_end_steps(search.gpu, w) / steps  # where on_time is checked (limits_at)
        timer = GpuTimer(search.search, search.gpu)
        fewest = min_fitting_count(search.gpu, search.search, search.allowed) or 1
        for n in _grid(search.search.workload.max_gpus, search.gpu.scaleup_domain_gpus):
            if n < fewest or not search.allowed(n):
                continue
            key = (search.gpu.id, n)
            if key not in search.memo:
                layout, seconds = timer.best_layout(n)
                search.memo[key] = (seconds * n if layout else float("inf"), layout)
            cost, layout = search.memo[key]
            if layout is None:
                continue
            hours = steps * cost / n / 3600
            points.append(
                FrontierPoint(
                    gpu_id=offer.gpu_id,
                    gpu_count=n,
                    provider=offer.provider_id,
                    provider_name=offer.provider_name,
                    price_type=offer.price_type,
                    days=hours / 24,
                    total_usd=billed_use_hours(hours, offer.price_type, offer.min_term_hours, offer.provider_id)
                    * n
                    * offer.usd_per_gpu_hour,
                    on_time=hours * slow <= deadline,
                )
            )
    return points
