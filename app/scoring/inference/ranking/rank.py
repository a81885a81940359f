"""Rank GPU offers for serving one model: estimate each (GPU, machine) once, then price every offer.

An offer supplies only what its machine can (app.scoring.hardware.machines): up to a node's GPUs, tensor
parallel inside the node, several nodes only across a real fabric. A configuration of n GPUs on a
bigger node is charged for n GPUs (the rest of the node can serve another replica); across nodes
it takes whole nodes. Rows name their price terms; spot replicas are marked interruptible.
"""

from __future__ import annotations

from typing import NamedTuple

from app.scoring.explain import Band, close_calls
from app.scoring.hardware.machines import Machine
from app.scoring.inference.estimates.configurations import Explained, OneCopies, Solved, best_on_machine
from app.scoring.inference.estimates.results import InferenceEstimate, LowestP99, P99Reach
from app.scoring.inference.ranking.nearest_miss import nearest_first, nearest_miss
from app.scoring.inference.ranking.offer_order import (
    PricedRow,
    billed_run,
    cost_run,
    infeasible_order,
    priced_order,
    slot_runs,
)
from app.scoring.inference.ranking.options import (
    RANK_METRIC_FIELDS,
    InferenceOption,
    InferenceRanking,
    feasible_option,
    infeasible_option,
)
from app.scoring.inference.ranking.pricing import ConfigurationPricing, cost_band
from app.scoring.pricing.offers import (
    ROW_OFFER_FIELDS,
    Chained,
    Computed,
    LazyOptions,
    RowKey,
    offer_slots,
    snapshot_offers,
)
from app.scoring.specs import CatalogSnapshot, GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload

# Option fields that are their estimate's own (feasible_option copies them unchanged).
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


def estimate_workload_key(workload: InferenceWorkload) -> str:
    """The workload as cached_configuration keys it: every field but those that only choose or price offers."""
    return workload.model_dump_json(exclude=_FILTER_FIELDS)


def cached_configuration(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    key: str,
    solved: Solved,
    explained: Explained,
    one_copies: OneCopies | None = None,
) -> InferenceEstimate:
    """Memoised best_on_machine: estimates depend on hardware x model x workload, never on prices. `solved`,
    `explained` and `one_copies`: the ranking's layouts solved and explained so far and the one-copy p99s its spread
    rows say, which machines wiring the GPU alike share (configurations.solve_on, explained_once, _one_copy_p99)."""
    cache_key = (gpu, machine, model, key)
    est = _CACHE.get(cache_key)
    if est is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        est = _CACHE[cache_key] = best_on_machine(gpu, machine, model, workload, solved, explained, one_copies)
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


class LeaderRow(NamedTuple):
    """A configuration's best row as leaders() orders them: rows meeting the latency limits first, then by row."""

    over_limits: bool
    row: PricedRow


def rank_inference(workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec) -> InferenceRanking:
    """Cheapest first by the workload's metric (ties: GPU id, provider id, offer order); one row per
    (GPU, provider, price terms, configuration); rows over a latency limit at a live-traffic load after every row
    that meets them (limits.py); infeasible options last, in offer order, with reasons (with nothing feasible, those
    refused at the limits first, nearest them first: nearest_miss.py).

    Each (GPU, machine) slot is estimated once; an offer is then a price times its slot's factor, so the
    per-offer work is a multiplication, a sort and a set lookup (slots are memoised per snapshot)."""
    offers = snapshot_offers(snapshot, workload)
    slot_of, slots = offer_slots(snapshot, workload)
    key = estimate_workload_key(workload)
    rank_by = workload.ranked_by
    solved: Solved = {}
    explained: Explained = {}
    one_copies: OneCopies = {}
    by_slot = [
        ConfigurationPricing.of(
            cached_configuration(snapshot.gpus[gpu_id], machine, model, workload, key, solved, explained, one_copies),
            machine,
            workload,
        )
        for gpu_id, machine in slots
    ]
    runs = slot_runs(snapshot, workload)
    # Over a latency limit at a live-traffic load (limits.py): ranked after every row that meets the limits.
    within = [s for s, p in enumerate(by_slot) if p.est.feasible and not p.est.over_limits]
    over = [s for s, p in enumerate(by_slot) if p.est.feasible and p.est.over_limits]
    tiers = [priced_order(offers, slot_of, slots, by_slot, runs, rank_by, tier) for tier in (within, over)]
    order = Chained(*tiers)
    infeasible = infeasible_order(offers, slot_of, by_slot, runs)
    nearest = None
    if not order and infeasible:  # nothing serves it: the refusals nearest the limits first, the nearest named
        infeasible = nearest_first(infeasible, offers, slot_of, by_slot, workload)
        nearest = nearest_miss(by_slot[slot_of[infeasible[0]]], workload)
    top = order[0] if order else None  # the winning row
    keys = [estimate_key(p.est) for p in by_slot]
    winner_over = not tiers[0]  # a row over the limits is no rival to a winner that meets them, nor one to it

    def row_band(row: PricedRow) -> Band:
        return cost_band(row.cost_usd, by_slot[slot_of[row.offer_index]], offers[row.offer_index])

    lowest = min((p.lowest_band_ratio for p in by_slot if p.est.feasible), default=1.0)
    calls = close_calls(
        tiers[winner_over], lambda row: row.cost_usd, row_band, lambda row: keys[slot_of[row.offer_index]], lowest
    )

    def priced(row: PricedRow, first: bool) -> InferenceOption:
        index = row.offer_index
        slot = slot_of[index]
        p = by_slot[slot]
        rival = bool(p.est.over_limits) == winner_over
        close = calls.flag(cost_band(row.cost_usd, p, offers[index]), keys[slot], first, rival)
        return feasible_option(offers[index], p, rank_by, close)

    def build(position: int) -> InferenceOption:
        if position >= len(order):
            index = infeasible[position - len(order)]
            return infeasible_option(offers[index], by_slot[slot_of[index]])
        return priced(order[position], position == 0)

    def sort_value(position: int, name: str) -> object:
        row = order[position]
        index = row.offer_index
        p = by_slot[slot_of[index]]
        if name == "batch" and p.est.requests_in_flight is not None:  # below one in flight: its mean, not batch 1
            return p.est.requests_in_flight
        if name in _ESTIMATE_FIELDS:
            return getattr(p.est, name)
        if name in ROW_OFFER_FIELDS:
            return getattr(offers[index], name)
        if name == RANK_METRIC_FIELDS[rank_by]:
            return row.cost_usd
        if name == "replicas":
            return p.replicas
        if name == "job_hours":
            return p.job_total_hours
        return getattr(build(position), name)

    def leaders() -> list[InferenceOption]:
        """A slot's cheapest offer is its best row, so each configuration's best row is its slots' best."""
        best: dict[tuple[str, int], LeaderRow] = {}
        for slot, p in enumerate(by_slot):
            if p.est.feasible:
                row = next(cost_run(offers, billed_run(offers, runs, slot, p)[:1], p, rank_by, slots[slot][0]))
                configuration = (slots[slot][0], p.est.gpu_count)
                leader = LeaderRow(bool(p.est.over_limits), row)
                if configuration not in best or leader < best[configuration]:
                    best[configuration] = leader
        return [priced(leader.row, leader.row == top) for leader in sorted(best.values())]

    # Every offer of a slot has the same key: (GPU, the slot's GPU count, the slot's reason), made when first asked
    # (a refusal's reason is written when read, and an answer reads the keys of few rows: found by speed28).
    slot_keys: dict[int, RowKey] = {}

    def slot_key(slot: int) -> RowKey:
        key = slot_keys.get(slot)
        if key is None:
            est = by_slot[slot].est
            key = slot_keys[slot] = RowKey(slots[slot][0], est.gpu_count, est.reason)
        return key

    feasible_count = len(order)

    def row_key(position: int) -> RowKey:
        index = order[position].offer_index if position < feasible_count else infeasible[position - feasible_count]
        return slot_key(slot_of[index])

    def row_keys(positions: range) -> list[RowKey]:
        head = range(positions.start, min(positions.stop, feasible_count))
        tail = range(max(positions.start, feasible_count) - feasible_count, positions.stop - feasible_count)
        feasible_keys = [slot_key(slot_of[order[p].offer_index]) for p in head]
        return feasible_keys + [slot_key(slot_of[infeasible[p]]) for p in tail]

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
        nearest_miss=nearest,
    )


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
            "copies_sharing_load": reach.copies,
        }
    return lowest
