"""Serving configurations a machine can supply, and their estimates: the rule both rank and estimate use.

Inside one node: 1, 2, 4, 8 … GPUs up to the node, tensor parallel over NVLink/xGMI, or over PCIe
(with its all-reduce cost), or split into pipeline stages. Across nodes (only when no single node can
serve the model, or at a live-traffic load none meets the latency limits): tensor parallel inside each node,
one pipeline stage per node, over the fabric.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from app.scoring.explain import LazyTerms, WrittenOnce, read_once
from app.scoring.hardware.engine_support import unsupported_reason
from app.scoring.hardware.machines import Machine, machine_gpu, supply_limit_reason, supply_reason
from app.scoring.inference.bands.limits import one_replica_load, over_limits
from app.scoring.inference.estimates.estimate import (
    WorkloadReads,
    loses_on_tpot_unsearched,
    solve_unless_outclassed,
    workload_reads,
)
from app.scoring.inference.estimates.more_copies import with_more_copies_rate
from app.scoring.inference.estimates.results import InferenceEstimate, LowestP99, P99Reach, Solution
from app.scoring.inference.estimates.spread_load import (
    copy_share,
    load_copies,
    load_words,
    peak_as_fixed_load,
    peak_copies_if_spread,
    per_copy_workload,
    served_share,
    spread_copies,
    spread_term,
    spread_words,
)
from app.scoring.inference.estimates.throughput_ceiling import per_gpu_digits, request_rate_ceiling_per_s
from app.scoring.inference.explanation.explain_estimate import explain
from app.scoring.inference.explanation.terms import p99_latencies_ms
from app.scoring.inference.step.context import wiring_seen_by
from app.scoring.records import replaced
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload


def _powers_of_two(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


# Widest tensor-parallel group the search tries inside one NVLink domain: an HGX board's 8, the widest the published
# serving runs use over NVLink (shared/validation: TP8; the one TP16 spans two nodes over InfiniBand), and what
# training layouts use (training/layouts/choice.py). A GB200 NVL72 rack serves with TP8 groups in pipeline stages, not
# TP64, whose all-reduce no published run has timed. A single estimate may still ask for a wider group.
MAX_SEARCH_TENSOR_PARALLEL = 16


def single_node_layouts(machine: Machine, max_gpus: int, layers: int) -> list[tuple[int, int, int]]:
    """(GPUs, TP, PP) inside one node (or NVLink domain): per count, pipeline splits first and plain TP last (so an
    infeasible machine is explained by its largest TP layout); TP up to MAX_SEARCH_TENSOR_PARALLEL."""
    out = []
    for count in _powers_of_two(min(machine.gpus_per_node, max_gpus)):
        for pp in reversed(_powers_of_two(min(count, layers))):
            if count // pp <= MAX_SEARCH_TENSOR_PARALLEL:
                out.append((count, count // pp, pp))
    return out


def multi_node_layouts(machine: Machine, max_gpus: int, layers: int) -> list[tuple[int, int, int]]:
    """(GPUs, TP, PP) across 2, 4, … whole nodes: TP inside a node, one pipeline stage per node."""
    per_node = machine.gpus_per_node
    return [
        (nodes * per_node, per_node, nodes)
        for nodes in _powers_of_two(machine.node_limit(max_gpus))
        if nodes > 1 and nodes <= layers
    ]


# One model and workload's solved layouts, by all else solve_inference reads: the GPU as the machine wires it and the
# layout's TP group sees it (context.wiring_seen_by), the GPUs, TP, PP, the fabric and one copy's share of a fixed load
# (spread_load.copy_share: each copy is solved at its share). Machines that wire a GPU alike
# (an 8-GPU node rented whole or by the GPU, by several providers) share them, and so do nodes of other sizes where
# the layout cannot tell them apart (4- and 8-GPU PCIe nodes; NVLink islands its TP group fits in): the seeded
# catalog's 70B ranking met 180 layouts, 140 distinct.
LayoutKey = tuple[GpuSpec, int, int, int, float, float | int | None]
Solved = dict[LayoutKey, Solution | InferenceEstimate]
# One ranking's explained layouts, by the id of the Solution explained (kept beside its estimate, so the id is never
# reused while the entry lives): machines that share a solved layout often share their best one too, and explain()
# builds the whole estimate (memory, bands, notes): the seeded catalog's 70B ranking explained 28 layouts, 20 distinct.
Explained = dict[int, tuple[Solution, InferenceEstimate]]
# One ranking's one-copy p99s (what a row spread over copies says one copy alone would serve the whole load at), by
# the layout's key at one copy's share, the whole load: machines that wire a GPU alike and run the same best layout
# say the same numbers, written once (found by speed21: each row solved its own).
OneCopies = dict[LayoutKey, WrittenOnce[tuple[float, ...]]]


def solve_on(
    gpu: GpuSpec,
    machine: Machine,
    gpu_count: int,
    tensor_parallel: int,
    pipeline_parallel: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    solved: Solved | None = None,
    copies: int = 1,
) -> Solution | InferenceEstimate:
    """A configuration on a machine: refused where the engine does not run on the GPU's vendor or the machine cannot
    supply it (with that reason), else solved with its links (read from `solved`, one model and workload's layouts
    solved so far, where it holds them; added to it). `copies`: of a fixed load's copies, the one solved at its share
    (spread_load.per_copy_workload)."""
    found = solve_on_unless_outclassed(
        gpu, machine, gpu_count, tensor_parallel, pipeline_parallel, model, workload, solved, None, None, copies
    )
    assert found is not None  # no floor: never outclassed
    return found


def solve_on_unless_outclassed(
    gpu: GpuSpec,
    machine: Machine,
    gpu_count: int,
    tensor_parallel: int,
    pipeline_parallel: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    solved: Solved | None,
    floor_per_gpu: float | None,
    tpot_p99_bar_ms: float | None = None,
    copies: int = 1,
) -> Solution | InferenceEstimate | None:
    """solve_on, or None where the layout provably serves fewer output tokens/s per GPU than `floor_per_gpu`, or at a
    request rate a p99 TPOT over `tpot_p99_bar_ms` (estimate.solve_unless_outclassed): its search is skipped and
    nothing is added to `solved`. `copies`: the fixed load is spread over that many copies, this one solved at its share
    (spread_load.per_copy_workload)."""
    unsupported = unsupported_reason(workload.engine, gpu)
    if unsupported is not None:
        return InferenceEstimate(False, unsupported, gpu.id, gpu_count, tensor_parallel, pipeline_parallel)
    wired = machine_gpu(gpu, machine)
    layout = (gpu_count, tensor_parallel, pipeline_parallel)
    return _solve_supplied(gpu, wired, machine, layout, model, workload, solved, floor_per_gpu, tpot_p99_bar_ms, copies)


def _solve_supplied(
    gpu: GpuSpec,
    wired: GpuSpec,
    machine: Machine,
    layout: tuple[int, int, int],
    model: ModelSpec,
    workload: InferenceWorkload,
    solved: Solved | None,
    floor_per_gpu: float | None,
    tpot_p99_bar_ms: float | None,
    copies: int,
    reads: WorkloadReads | None = None,
) -> Solution | InferenceEstimate | None:
    """solve_on_unless_outclassed of a (GPUs, TP, PP) `layout` on a GPU the workload's engine runs on, `wired` as
    the machine wires it (machine_gpu), with the workload's `reads` where the caller has them: _solve_tier works the
    engine's check, the wiring and the reads out once a machine rather than once a layout (found by speed23)."""
    gpu_count, tensor_parallel, pipeline_parallel = layout
    reason = supply_reason(machine, gpu_count, tensor_parallel, pipeline_parallel)
    if reason is not None:
        return InferenceEstimate(False, reason, gpu.id, gpu_count, tensor_parallel, pipeline_parallel)
    fabric = machine.fabric_gbs() if gpu_count > machine.gpus_per_node else 0.0
    key = layout_key(wired, gpu_count, tensor_parallel, pipeline_parallel, fabric, copy_share(workload, copies))
    found = solved.get(key) if solved is not None else None
    if found is None:
        found = solve_unless_outclassed(
            wired,
            gpu_count,
            model,
            per_copy_workload(workload, copies),
            tensor_parallel,
            pipeline_parallel,
            fabric_gbs=fabric,
            floor_per_gpu=floor_per_gpu,
            tpot_p99_bar_ms=tpot_p99_bar_ms,
            reads=reads,
        )
        if found is None:
            return None
        if solved is not None:
            solved[key] = found
    return found


def layout_key(
    wired: GpuSpec, gpu_count: int, tensor_parallel: int, pipeline_parallel: int, fabric_gbs: float, share: float | None
) -> LayoutKey:
    """A layout's key in Solved and OneCopies: the GPU as wired (`wired`: machine_gpu) seen by its TP group, and one
    copy's share of the load (spread_load.copy_share), which alone sets the workload it is solved at."""
    return (wiring_seen_by(wired, tensor_parallel), gpu_count, tensor_parallel, pipeline_parallel, fabric_gbs, share)


def estimate_on(
    gpu: GpuSpec,
    machine: Machine,
    gpu_count: int,
    tensor_parallel: int,
    pipeline_parallel: int,
    model: ModelSpec,
    workload: InferenceWorkload,
) -> InferenceEstimate:
    solved = solve_on(gpu, machine, gpu_count, tensor_parallel, pipeline_parallel, model, workload)
    return explain(solved) if isinstance(solved, Solution) else solved


def explained_once(solution: Solution, explained: Explained | None) -> InferenceEstimate:
    """explain(solution), read from `explained` (one ranking's explained layouts) where it holds it; added to it."""
    if explained is None:
        return explain(solution)
    hit = explained.get(id(solution))
    if hit is not None and hit[0] is solution:
        return hit[1]
    estimate = explain(solution)
    explained[id(solution)] = (solution, estimate)
    return estimate


def best_on_machine(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    solved: Solved | None = None,
    explained: Explained | None = None,
    one_copies: OneCopies | None = None,
) -> InferenceEstimate:
    """The feasible layout with the most output tok/s per billed GPU (billed_gpus), the lowest latency on a tie
    (_preference); multi-node only if no node alone can serve.
    At a live-traffic load (limits.LIMITS_RANKED) a layout that meets the latency limits comes first, and several
    nodes are tried when no single-node layout meets them; if none does, the best single-node one, over the limits.
    Infeasible: the engine's refusal of the GPU's vendor, else the refusal that says most (why_not)."""
    unsupported = unsupported_reason(workload.engine, gpu)
    if unsupported is not None:  # no layout changes the vendor: refused once, at one GPU
        return InferenceEstimate(False, unsupported, gpu.id, 1, 1, 1)
    tried: list[list[InferenceEstimate]] = []
    over: Solution | None = None  # the first tier's best, when it misses the limits
    served: list[tuple[Solution, int]] = []  # every layout that serves the load and its copies, in both tiers
    fixed = one_replica_load(workload)
    reads = workload_reads(workload)  # the same for every layout and copy's share (estimate.WorkloadReads)
    for multi_node in (False, True):
        plan = _tier_plan(machine, fixed, workload.max_gpus, model.layers, multi_node)
        tier = _solve_tier(gpu, machine, model, workload, plan, solved, reads)
        if tier.best is not None and tier.best_within_limits:
            return _spread(explained_once(tier.best, explained), tier.best, gpu, machine, workload, solved, one_copies)
        over = over or tier.best
        served += tier.served
        tried.append(tier.refused)
    if over is None:
        shown = with_more_copies_rate(why_not(gpu.id, *tried), tried[0], machine, workload)
        return with_supply_limit(shown, machine, workload.max_gpus)
    spread = _spread(explained_once(over, explained), over, gpu, machine, workload, solved, one_copies)
    return replaced(spread, lowest_p99=_lowest_p99(served))


def _spread(
    est: InferenceEstimate,
    best: Solution,
    gpu: GpuSpec,
    machine: Machine,
    workload: InferenceWorkload,
    solved: Solved | None,
    one_copies: OneCopies | None,
) -> InferenceEstimate:
    """The best layout's estimate with the copies a fixed load is spread over (spread_load.py) and, where several
    share it, the p99 TTFT and TPOT one copy would serve the whole load at (none where it would not keep up): read
    from `solved` where the ranking solved that layout at the whole load, else solved when first read (a ranking shows
    few of its slots' rows), once for the machines that share it in `one_copies`."""
    copies = spread_copies(machine, workload, best.gpu_count) if one_replica_load(workload) else 1
    if copies == 1:  # a peak's rows may spread it (spread2): cached without its peak, any but a batch job's can
        return est if workload.job_requests else replaced(est, peak_spread_p99=peak_spread_solver(gpu, machine, best))
    count = best.gpu_count
    one_p99 = _one_copy_p99(gpu, machine, best, workload, solved, one_copies)
    words = WrittenOnce(lambda: spread_words(workload, machine, count, copies, one_p99.read() or None))
    per_copy_terms = est.terms
    terms = LazyTerms(lambda: [spread_term(workload, copies, words.read()), *per_copy_terms])
    return replaced(est, copies_sharing_load=copies, one_copy_p99=one_p99, spread_words=words, terms=terms)


def _one_copy_p99(
    gpu: GpuSpec,
    machine: Machine,
    best: Solution,
    workload: InferenceWorkload,
    solved: Solved | None,
    one_copies: OneCopies | None,
) -> WrittenOnce[tuple[float, ...]]:
    """The p99 TTFT and TPOT one copy of `best`'s layout on `machine` serves the whole fixed load at (() where it does
    not keep up), as solve_on answers it: the machine supplies the layout (it was solved on it), so its key decides."""
    count, tp, pp, model = best.gpu_count, best.tensor_parallel, best.pipeline_parallel, best.model
    fabric = machine.fabric_gbs() if count > machine.gpus_per_node else 0.0
    key = layout_key(machine_gpu(gpu, machine), count, tp, pp, fabric, copy_share(workload, 1))
    shared = one_copies.get(key) if one_copies is not None else None
    if shared is not None:
        return shared
    whole = solved.get(key) if solved is not None else None
    if whole is not None:  # solved at the whole load in this ranking (a machine holding one copy of the layout)
        p99: tuple[float, ...] = _p99_ms(whole) if isinstance(whole, Solution) else ()
        written: WrittenOnce[tuple[float, ...]] = WrittenOnce(lambda: p99)
    else:

        def one_copy_p99() -> tuple[float, ...]:
            one = solve_on(gpu, machine, count, tp, pp, model, workload)
            return _p99_ms(one) if isinstance(one, Solution) else ()

        written = WrittenOnce(one_copy_p99)
    if one_copies is not None:
        one_copies[key] = written
    return written


def peak_spread_solver(
    gpu: GpuSpec, machine: Machine, best: Solution
) -> Callable[[InferenceWorkload, int], tuple[int, tuple[float, ...]]]:
    """By a peak workload and the instances a peak row bills: the copies of `best`'s layout they hold
    (spread_load.peak_copies_if_spread) and the p99 TTFT and TPOT with the peak's load spread over them, each at its
    share (solve_on with copies, as a fixed load's rows are solved; () where a copy would not keep up), solved when
    first asked: only rows shown with spare GPUs ask. The peak is an argument, not captured: rank.cached_configuration
    shares one estimate among workloads whose peaks differ."""
    solved_by_share: dict[tuple[str, float | int | None], tuple[float, ...]] = {}
    count, tp, pp, model = best.gpu_count, best.tensor_parallel, best.pipeline_parallel, best.model

    def spread_p99(workload: InferenceWorkload, instances: int) -> tuple[int, tuple[float, ...]]:
        copies, fixed = peak_copies_if_spread(machine, workload, count, instances), peak_as_fixed_load(workload)
        key = (fixed.scenario, copy_share(fixed, copies))
        if key not in solved_by_share:
            found = solve_on(gpu, machine, count, tp, pp, model, fixed, None, copies)
            solved_by_share[key] = _p99_ms(found) if isinstance(found, Solution) else ()
        return copies, solved_by_share[key]

    return spread_p99


class Tier(NamedTuple):
    """One tier's layouts solved (single-node, or multi-node): the best, and the others in enumeration order."""

    best: Solution | None
    best_within_limits: bool
    # with the copies each is spread over; complete unless the best meets the limits (then layouts it outclasses are
    # left out)
    served: list[tuple[Solution, int]]
    refused: list[InferenceEstimate]  # likewise


class TierPlan(NamedTuple):
    """One tier's layouts on a machine, the GPUs each is compared per (billed_gpus) and the order they are solved in."""

    layouts: tuple[tuple[int, int, int], ...]
    billed: tuple[int, ...]
    order: tuple[int, ...]
    copies: tuple[int, ...]  # Machine.copies: each layout's copies one rented instance holds (spread_load.load_copies)


# Tier plans by all they read (the machine, whether the load is one replica's, the GPU limit, the model's layers and
# the tier): every ranking walks the same machines' layouts in the same order (~50 tiers a ranking), whatever its
# lengths, so the plan is worked out once per machine and kind of load rather than per slot and ranking.
_TIER_PLANS_CACHE_SIZE = 4096


@lru_cache(maxsize=_TIER_PLANS_CACHE_SIZE)
def _tier_plan(machine: Machine, fixed: bool, max_gpus: int, layers: int, multi_node: bool) -> TierPlan:
    """The layouts of one tier (single_node_layouts, or multi_node_layouts) with their billed GPUs and search order:
    per billed GPU count, at a fixed load (`fixed`: one_replica_load) the largest layout first, then the fewest
    pipeline stages (a capacity question: billed = count, the fewest stages first, as before billed_gpus)."""
    layouts = (multi_node_layouts if multi_node else single_node_layouts)(machine, max_gpus, layers)
    billed = [billed_gpus(machine, fixed, count) for count, _, _ in layouts]
    order = sorted(range(len(layouts)), key=lambda i: (billed[i], -layouts[i][0] if fixed else 0, layouts[i][2]))
    copies = tuple(machine.copies(count) for count, _, _ in layouts)
    return TierPlan(tuple(layouts), tuple(billed), tuple(order), copies)


def _solve_tier(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    plan: TierPlan,
    solved: Solved | None,
    reads: WorkloadReads | None = None,
) -> Tier:
    """The layout with the greatest preference, the first enumerated (the fewest GPUs) on a tie. Solved in search
    order (per billed GPU count, the fewest pipeline stages first, where the most tok/s per GPU usually is), so that
    once a layout meets the limits, layouts that provably serve fewer tok/s per billed GPU are skipped
    (throughput_ceiling.py). At a fixed load the estimate's own ceilings (which time capacity scenarios only) are not
    asked: _outclassed_by_count skips by the bill; on one bill the largest layout, usually the fastest, is solved
    first, and at a request rate (every layout that keeps up serves the same tokens) a layout whose p99 TPOT
    provably stays above the best's on that bill is skipped (throughput_ceiling.open_loop_tpot_floor_ms).
    The workload's engine runs on `gpu` (best_on_machine refuses it before any tier otherwise): each layout is solved
    as solve_on_unless_outclassed solves it, from the wiring and `reads` worked out once (_solve_supplied)."""
    fixed = one_replica_load(workload)
    wired = machine_gpu(gpu, machine)
    reads = reads or workload_reads(workload)
    best: tuple[LayoutPreference, int, Solution] | None = None  # (preference, -enumeration index, layout)
    best_billed = 0
    served: list[tuple[int, Solution, int]] = []
    refused: list[tuple[int, InferenceEstimate]] = []
    layouts, billed_of = plan.layouts, plan.billed
    for index in plan.order:
        count, tp, pp = layouts[index]
        billed = billed_of[index]
        copies = load_copies(workload, plan.copies[index]) if fixed else 1  # spread_copies, as the plan holds them
        floor = best[0].output_tokens_per_s_per_billed_gpu if best is not None and best[0].within_limits else None
        if floor is not None and _outclassed_by_count(workload, billed, floor):
            continue
        bar = None  # the best's p99 TPOT, where tokens tie on the same bill
        if floor is not None and best is not None and fixed and billed == best_billed:
            bar = -best[0].negated_tpot_p99_ms
            if _loses_on_tpot(wired, machine, layouts[index], model, workload, bar, copies, reads):
                continue
        layout = _solve_supplied(
            gpu, wired, machine, layouts[index], model, workload, solved, None if fixed else floor, bar, copies, reads
        )
        if layout is None:
            continue
        if isinstance(layout, InferenceEstimate):
            refused.append((index, _refused_share(layout, machine, workload, copies)))
            continue
        served.append((index, layout, copies))
        served_copies = copies * served_share(workload, copies)
        candidate = (_preference(layout, billed, served_copies), -index, layout)
        if best is None or candidate[:2] > best[:2]:
            best, best_billed = candidate, billed
    return Tier(
        best[2] if best is not None else None,
        best is not None and best[0].within_limits,
        [(layout, copies) for _, layout, copies in sorted(served, key=lambda each: each[0])],
        [layout for _, layout in sorted(refused, key=lambda pair: pair[0])],
    )


def _loses_on_tpot(
    wired: GpuSpec,
    machine: Machine,
    layout: tuple[int, int, int],
    model: ModelSpec,
    workload: InferenceWorkload,
    bar_ms: float,
    copies: int,
    reads: WorkloadReads,
) -> bool:
    """Whether _solve_supplied would skip a layout on the best's bill by its p99 TPOT floor against `bar_ms` (the
    best's), or refuse it (the machine's supply, or before its search), from the lookups its solve reads first
    (estimate.loses_on_tpot_unsearched). Either way the layout is left out: the tier's best meets the limits there, so
    it stays the best (within the limits comes first) and best_on_machine reads no refusal and no other layout."""
    count, tp, pp = layout
    if supply_reason(machine, count, tp, pp) is not None:
        return True
    fabric = machine.fabric_gbs() if count > machine.gpus_per_node else 0.0
    share = per_copy_workload(workload, copies)
    return loses_on_tpot_unsearched(wired, count, model, share, tp, pp, fabric, bar_ms, reads)


def _refused_share(
    refusal: InferenceEstimate, machine: Machine, workload: InferenceWorkload, copies: int
) -> InferenceEstimate:
    """A layout refused at its share of a fixed load spread over `copies` copies says the share its numbers are of."""
    if copies == 1 or not refusal.misses_limits:
        return refusal
    words = refusal.reason_words
    share = (
        f" (each of the {copies} copies the rented {machine.instance_gpus}-GPU instance holds takes "
        f"{load_words(workload, copies)} of the {load_words(workload)})"
    )
    return replaced(refusal, reason_words=WrittenOnce(lambda: read_once(words) + share))


def billed_gpus(machine: Machine, fixed: bool, gpu_count: int) -> int:
    """GPUs a `gpu_count`-GPU layout's tok/s are compared per: its own, or at a fixed load (`fixed`: one_replica_load)
    every GPU of the instances its one replica rents, as the row bills them (pricing.ConfigurationPricing.of). There
    every layout that keeps up serves the same tokens, so on one bill (TP1, TP2, TP8 on an 8-GPU instance) the lowest
    p99 wins, not the smallest layout with 6 GPUs idle."""
    if fixed:
        return machine.instances(gpu_count, 1) * machine.instance_gpus
    return gpu_count


def _outclassed_by_count(workload: InferenceWorkload, billed: int, floor_per_billed_gpu: float) -> bool:
    """At a request rate every layout that keeps up serves the rate's tokens, so per billed GPU (billed_gpus) a layout
    billed more GPUs than the best one serves fewer (throughput_ceiling.request_rate_ceiling_per_s); one billed as
    many (a larger layout on the same rented instance) may still win on latency, and is solved."""
    if workload.scenario != "request_rate":
        return False
    return per_gpu_digits(request_rate_ceiling_per_s(workload) / billed) < floor_per_billed_gpu


def with_supply_limit(refusal: InferenceEstimate, machine: Machine, max_gpus: int) -> InferenceEstimate:
    """A machine on which no layout holds the model says where its own supply stops, when that (not Max GPUs per
    replica) does: a 72-GPU NVL72 rack with no fabric between racks, an 8-GPU node with none between nodes. The words
    are written when first read, as the refusal's own: a ranking refuses many machines and shows few (speed28)."""
    limit = None if refusal.misses_limits else supply_limit_reason(machine, max_gpus)
    if not limit:
        return refusal
    return replaced(refusal, reason_words=WrittenOnce(lambda: f"{refusal.reason}; {limit}"))


def _lowest_p99(served: list[tuple[Solution, int]]) -> LowestP99:
    """The lowest p99 TTFT and TPOT among the layouts that serve the load (each spread over its copies at a fixed
    load), each with its layout; where the limits hold at the bands' slow end (limits_at band_high), the p99s there, as
    the limits were checked."""

    def at_limits(solved: Solution, which: int) -> float:
        return _p99_ms(solved)[which] * solved.limit_multiples[which]

    def reach(which: int) -> P99Reach:  # which: 0 for TTFT, 1 for TPOT (p99_latencies_ms' order)
        s, copies = min(served, key=lambda each: at_limits(each[0], which))
        return P99Reach(at_limits(s, which), s.gpu_count, s.tensor_parallel, s.pipeline_parallel, copies)

    return LowestP99(ttft_p99_ms=reach(0), tpot_p99_ms=reach(1))


def _p99_ms(solved: Solution) -> tuple[float, float]:
    return p99_latencies_ms(solved.point, solved.efficiency, solved.workload.prompt_p99_over_mean)


class LayoutPreference(NamedTuple):
    """How a tier's layouts compare, the greater serving: one within the limits before one over them, then the most
    tok/s per billed GPU (billed_gpus; to 6 significant digits), then the lowest p99 TPOT and TTFT (negated, so lower
    is greater): at a request rate every layout that keeps up serves the same tokens, and the first enumerated (the
    most pipeline stages) would win on a tie. At a fixed load layouts on one bill differ by latency alone."""

    within_limits: bool
    output_tokens_per_s_per_billed_gpu: float
    negated_tpot_p99_ms: float
    negated_ttft_p99_ms: float


def _preference(solved: Solution, billed: int, served_copies: float = 1.0) -> LayoutPreference:
    """`served_copies`: the busiest copies' worth of load a fixed load's copies serve on the billed GPUs, each solved
    at the busiest one's share (spread_load.served_share)."""
    ttft_p99, tpot_p99 = _p99_ms(solved)
    tokens_per_s = solved.point.tokens_per_s * served_copies
    return LayoutPreference(
        within_limits=not over_limits(solved.workload, ttft_p99, tpot_p99, solved.limit_multiples),
        output_tokens_per_s_per_billed_gpu=per_gpu_digits(tokens_per_s / billed),
        negated_tpot_p99_ms=-tpot_p99,
        negated_ttft_p99_ms=-ttft_p99,
    )


def why_not(
    gpu_id: str, single_node: list[InferenceEstimate], multi_node: list[InferenceEstimate]
) -> InferenceEstimate:
    """Which refusal explains an infeasible machine: its largest single-node layout when that holds the model and
    misses the limits; else the fewest nodes that hold it and miss them (more pipeline stages only add latency);
    else the largest layout tried (the most memory, the nearest to holding the model)."""
    if single_node and single_node[-1].misses_limits:
        return single_node[-1]
    holding = [e for e in multi_node if e.misses_limits]
    if holding:
        return holding[0]
    tried = single_node + multi_node
    if tried:
        return tried[-1]
    return InferenceEstimate(False, "no layout fits the workload's GPU limit", gpu_id, 1, 1, 1)
