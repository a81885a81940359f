"""Layout search for ranking sweeps, per GPU type (GpuTimer): the answers of training.choose_layout, with far fewer
evaluations, over the memory fits of a LayoutSearch.

- Per GPU type, the peak and precision class are computed once, the effective MFU once per count.
- Per (TP, PP) family only the first fitting layout in cost order (recompute none → selective →
  partial at the fewest recomputed layers that fit (LayoutSearch.first_fitting) → full) is considered,
  and it is timed only if its compute time — a lower bound on its step time, shared by every layout
  with the same recompute level (and recomputed layers) — is below the best step time so far
  (choose_layout keeps the earlier layout on ties, so a family that cannot be strictly faster is
  never the answer). Once the best step time is at most the compute time without recompute, the
  search stops: no layout can beat it. On torchtitan a first fit at op-level selective recompute is timed beside
  its partial rival (LayoutSearch.sac_rival, as training.sac_rival), each against the same compute floor.
- Per ZeRO-3 or QLoRA split, larger micro-batches (powers of two up to the replica's share of the batch, until
  one does not fit) follow its first fit; they are tried only while the DP traffic is exposed, the base is
  NF4 or a MoE's expert GEMMs are memory-bound (more tokens per expert: step.expert_gemms): a larger micro-batch
  saves nothing else and recomputes no less.
- A data-parallel-only stack also tries DeepSpeed-Ulysses degrees after its other splits (ascending, inside the
  scale-up domain; beyond it only when nothing fits yet). Every split of such a stack has the same ZeRO stage,
  compute and latency; the all-to-all grows with SP at one bandwidth and the micro-batches per replica with it.
  Memory falls as SP grows, so the first fit's recompute level never rises: only the first degree to reach a
  level (or an evener split) can be strictly faster at its first fit; the others are not timed.
- A ring-CP stack then tries each (TP, CP) split (TP, then CP ascending) from CONTEXT_PARALLEL_MIN_SEQ_LEN tokens, or
  when nothing fits yet: each first fit timed unless its compute time cannot beat the best, then its larger
  micro-batches as above, and also where its ring is exposed: a larger micro-batch pays each ring step's latency
  once for more sequences (a ring its attention hides at one sequence stays hidden at more).
- Each ZeRO-3 first fit across nodes on an HSDP stack has hybrid-sharded rivals (hybrid_shard.hsdp_rivals: one
  node's shard group, and several nodes' where one node's cannot hold the state at its recompute), timed beside it
  but weighed after every other split, before the EP layouts (training.choose_layout's order): HSDP is the answer only
  where it is strictly faster than every layout that shards over all the data-parallel ranks.
- A MoE on an EP stack then tries expert parallelism, (TP, EP) group by group in training.expert_candidates' order:
  a group is skipped unread where its step floor (compute without recompute, per-layer latency, TP all-reduces and
  the all-to-all at the even split's tokens) cannot beat the best; its layouts are listed once per memory size.
Pure: same formulas and floating-point order as training.py, so the results are bit-identical.
"""

from __future__ import annotations

from app.scoring.specs import GpuSpec
from app.scoring.training.layouts.expert_layouts import ExpertGroup
from app.scoring.training.layouts.hybrid_shard import hsdp_rivals
from app.scoring.training.layouts.memory import Layout, recomputed_layers, recomputed_share, usable_gb
from app.scoring.training.layouts.search_space import larger_micro_batches
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.communication import (
    attention_seconds_per_flop,
    context_parallel_seconds,
    expert_all_to_all_seconds,
)
from app.scoring.training.step.context_parallel import CONTEXT_PARALLEL_MIN_SEQ_LEN
from app.scoring.training.step.flops import executed_flops_per_token
from app.scoring.training.step.mfu import attention_efficiency, effective_mfu, low_precision_speedup, peak_tflops
from app.scoring.training.step.step_time import (
    busiest_replica_factor,
    compute_seconds,
    local_micro_batches,
    step_parts,
    tensor_parallel_seconds,
)


class GpuTimer:
    """Step times of one GPU type under a LayoutSearch; peak, MFU and the attention's rates computed once."""

    def __init__(self, search: LayoutSearch, gpu: GpuSpec) -> None:
        self.search, self.gpu = search, gpu
        peak, self.precision_class, _ = peak_tflops(gpu, search.workload.precision)
        self.peak = peak or 0.0
        self._usable: dict[int, float] = {}  # by GPU count: one GPU holds no NCCL buffers
        self._mfu: dict[int, float] = {}  # by GPU count
        # the attention's slowdown and efficiency, the same at every count and recompute level
        e, framework = search.e, search.workload.framework
        self.attention_slowdown = low_precision_speedup(e, framework, self.precision_class, gpu)
        self.attention_eff = attention_efficiency(e, gpu, framework)
        self._executed: dict[tuple[str, float], tuple[float, float]] = {}  # by (recompute, recomputed share)
        self._hybrid: list[tuple[Layout, float]] = []  # best_layout's HSDP rivals, weighed after the other splits

    def usable(self, gpu_count: int) -> float:
        usable = self._usable.get(gpu_count)
        if usable is None:
            usable = self._usable[gpu_count] = usable_gb(self.gpu, gpu_count)
        return usable

    def mfu(self, gpu_count: int) -> float:
        mfu = self._mfu.get(gpu_count)
        if mfu is None:
            s, w = self.search, self.search.workload
            mfu = self._mfu[gpu_count] = effective_mfu(
                s.e, self.gpu, gpu_count, s.model, w.method, w.framework, self.precision_class
            )
        return mfu

    def compute_s(self, gpu_count: int, recompute: str, recomputed_share: float = 1.0) -> float:
        """Compute seconds per step; grows with the recompute level (under partial recompute, with the share of the
        layers recomputed), the same for every parallel split."""
        s, w = self.search, self.search.workload
        executed = self._executed.get((recompute, recomputed_share))
        if executed is None:
            executed = self._executed[recompute, recomputed_share] = executed_flops_per_token(
                s.e, s.model, w.method, w.seq_len, recompute, None, 1.0, w.framework, recomputed_share
            )
        return compute_seconds(
            s.e,
            gpu_count,
            s.model,
            w.method,
            w.seq_len,
            w.global_batch_seqs,
            recompute,
            self.peak,
            self.mfu(gpu_count),
            attention_slowdown=self.attention_slowdown,
            attention_eff=self.attention_eff,
            framework=w.framework,
            recomputed_share=recomputed_share,
            executed=executed,
        )

    def step_s(self, gpu_count: int, layout: Layout, compute_s: float | None = None) -> float:
        """training.step_seconds: StepTime.total_s, summed in the same order."""
        compute, bubble, tp_comm, dp_comm, offload, ep_comm, expert_gemm = self._parts(gpu_count, layout, compute_s)
        return compute + bubble + tp_comm + dp_comm + offload + ep_comm + expert_gemm

    def _parts(
        self, gpu_count: int, layout: Layout, compute_s: float | None = None
    ) -> tuple[float, float, float, float, float, float, float]:
        s, w = self.search, self.search.workload
        compute, bubble, tp_comm, dp_comm, offload, _, ep_comm, expert_gemm = step_parts(
            s.e,
            self.gpu,
            gpu_count,
            s.model,
            w.method,
            w.framework,
            w.seq_len,
            w.global_batch_seqs,
            layout,
            self.peak,
            self.precision_class,
            s.adapters,
            self.mfu(gpu_count),
            compute_s,
            recipe=s.recipe,
        )
        return compute, bubble, tp_comm, dp_comm, offload, ep_comm, expert_gemm

    def best_layout(self, gpu_count: int) -> tuple[Layout | None, float]:
        """training.choose_layout and its step time: per TP, the first fit without PP and the smallest PP
        that fits, then each SP degree (data-parallel-only stacks) or (TP, CP) split (ring-CP stacks), timed in the
        same order (TP ascending, PP 1 first, SP or CP ascending) so ties resolve the same way."""
        s, usable = self.search, self.usable(gpu_count)
        best, best_s = None, float("inf")
        self._hybrid = []
        compute_floor: dict[object, float] = {
            "none": self.compute_s(gpu_count, "none")
        }  # by recompute level, for every split
        least = compute_floor["none"]  # no layout computes faster than without recompute
        for tp, rows in s.table(self.gpu, gpu_count):
            if best_s <= least:
                break  # nothing left can be strictly faster
            # PP 1 (always listed first), then the smallest PP > 1, each if its frugal layout fits
            deeper = next((row for row in rows[1:] if s.frugal_fits(row, tp, gpu_count, usable)), None)
            pp1 = s.frugal_fits(rows[0], tp, gpu_count, usable)
            for row in ((rows[0],) if pp1 else ()) + ((deeper,) if deeper else ()):
                layout = s.first_fitting(s.ladder(row, tp, gpu_count), gpu_count, usable)
                best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
                if saves:
                    best, best_s = self._micro_batches(gpu_count, tp, row[0], 1, compute_floor, best, best_s)
        if s.splits_sequence:
            best, best_s = self._sequence_split(gpu_count, compute_floor, best, best_s)
        else:
            best, best_s = self._context_split(gpu_count, compute_floor, best, best_s)
        for layout, seconds in self._hybrid:  # training.choose_layout's hybrid-sharded rivals, in its order
            if seconds < best_s:
                best, best_s = layout, seconds
        return self._expert_split(gpu_count, compute_floor, best, best_s)

    def _expert_split(
        self, gpu_count: int, compute_floor: dict[object, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float]:
        """best_layout's expert-parallel part, after every other split (`best`): training.expert_candidates in its
        order, (TP, EP) group by group, each layout timed where its compute could beat the best; a group whose step
        floor (_expert_floor) cannot beat it is skipped before its memory is searched, and all of them where nothing
        can be strictly faster. A MoE only, its layouts listed once per memory size (LayoutSearch.expert_layouts)."""
        s = self.search
        if not s.model.is_moe or best_s <= compute_floor["none"]:
            return best, best_s
        for group in s.expert_groups(self.gpu, gpu_count):
            if self._expert_floor(gpu_count, group, compute_floor["none"]) >= best_s:
                continue  # every layout of the group takes at least this long: none is strictly faster
            for layout in s.expert_layouts(self.gpu, gpu_count, group):
                best, best_s, _ = self._timed_one(gpu_count, layout, compute_floor, best, best_s)
        return best, best_s

    def _expert_floor(self, gpu_count: int, group: ExpertGroup, least_compute_s: float) -> float:
        """A lower bound on the step seconds of any layout of a (TP, EP) group, summed as step_parts sums them: the
        compute without recompute, the per-layer latency at the group's deepest PP, and the TP all-reduces and the
        all-to-all at the even split's tokens per GPU and without recompute, the TP traffic at the group's EP as
        step_parts prices it (the busiest replica and recomputed layers only add, and the bubble, DP traffic and
        offload are at least 0)."""
        s, w = self.search, self.search.workload
        tp, ep, pps = group
        tokens_per_gpu = w.global_batch_seqs * w.seq_len / gpu_count
        latency = s.e.step_latency_s_per_layer * s.model.layers / pps[-1]
        tp_comm = tensor_parallel_seconds(s.e, self.gpu, s.model, tp, tokens_per_gpu, ep)
        fewest_rounds = Layout(tensor_parallel=tp, recompute="none", expert_parallel=ep)
        ep_comm = expert_all_to_all_seconds(s.e, self.gpu, s.model, fewest_rounds, tokens_per_gpu)
        return least_compute_s + latency + tp_comm + ep_comm

    def _timed(
        self, gpu_count: int, layout: Layout, compute_floor: dict[object, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float, bool]:
        """_timed_one of a first fit, then of its partial rival where it has one (training.sac_rival: torchtitan's
        op-level selective recompute), as choose_layout times them; a larger micro-batch may help if either says so
        (the rival's ZeRO-3 gathers may be exposed where the first fit's are not)."""
        best, best_s, saves = self._timed_one(gpu_count, layout, compute_floor, best, best_s)
        s = self.search
        rival = s.sac_rival(layout, gpu_count, self.usable(gpu_count))
        if rival is not None:
            best, best_s, also = self._timed_one(gpu_count, rival, compute_floor, best, best_s)
            saves = saves or also
        for hybrid in hsdp_rivals(self.gpu, gpu_count, s.model, s.workload, s.e, layout):
            # weighed after the other splits (best_layout); faster than the best so far, kept
            kept, seconds, also = self._timed_one(gpu_count, hybrid, compute_floor, None, best_s)
            if kept is not None:
                self._hybrid.append((kept, seconds))
            saves = saves or also
        return best, best_s, saves

    def _timed_one(
        self, gpu_count: int, layout: Layout, compute_floor: dict[object, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float, bool]:
        """The faster of the best so far and this layout (timed only if its compute time could beat the best), and
        whether a larger micro-batch of its split could be strictly faster than it (_fewer_micro_batches_help)."""
        floor = self._floor(gpu_count, layout, compute_floor)
        if floor >= best_s:  # step time ≥ compute time ≥ best: cannot be strictly faster, nor can a larger
            return best, best_s, False  # micro-batch, whose first fit recomputes no less
        parts = self._parts(gpu_count, layout, floor)
        compute, bubble, tp_comm, dp_comm, offload, ep_comm, expert_gemm = parts
        seconds = compute + bubble + tp_comm + dp_comm + offload + ep_comm + expert_gemm
        # a larger micro-batch feeds each expert GEMM more tokens: it can be faster where they are memory-bound
        saves = self._fewer_micro_batches_help(dp_comm) or expert_gemm > 0 or self._ring_exposed(gpu_count, layout)
        return (layout, seconds, saves) if seconds < best_s else (best, best_s, saves)

    def _ring_exposed(self, gpu_count: int, layout: Layout) -> bool:
        """Whether a ring-CP layout leaves ring seconds exposed (communication.context_parallel_seconds)."""
        if layout.sequence_parallel <= 1 or self.search.splits_sequence:
            return False
        s, w = self.search, self.search.workload
        per_flop = attention_seconds_per_flop(
            s.e, self.gpu, w.framework, self.precision_class, self.peak, self.mfu(gpu_count)
        )
        micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
        return context_parallel_seconds(s.e, self.gpu, s.model, layout, w.seq_len, micro, per_flop, w.framework) > 0

    def _floor(self, gpu_count: int, layout: Layout, compute_floor: dict[object, float]) -> float:
        """The layout's compute seconds, by recompute level (partial: by its recomputed layers), for every split."""
        recompute, layers = layout.recompute, self.search.model.layers
        key: object = ("partial", recomputed_layers(layout, layers)) if recompute == "partial" else recompute
        floor = compute_floor.get(key)
        if floor is None:
            floor = compute_floor[key] = self.compute_s(gpu_count, recompute, recomputed_share(layout, layers))
        return floor

    def _fewer_micro_batches_help(self, dp_comm_s: float) -> bool:
        """A larger micro-batch's first fit recomputes and shards no less than the split's first fit and changes
        nothing else but the gathers and QLoRA's dequantisation (both per micro-batch): it can be strictly faster
        only where the first fit's DP/FSDP traffic is exposed or the base is NF4."""
        return dp_comm_s > 0 or self.search.workload.method == "qlora"

    def _micro_batches(
        self,
        gpu_count: int,
        tp: int,
        pp: int,
        sp: int,
        compute_floor: dict[object, float],
        best: Layout | None,
        best_s: float,
    ) -> tuple[Layout | None, float]:
        """training.with_micro_batches after a split's first fit: each larger micro-batch's first fit, ascending,
        until one does not fit."""
        s, usable = self.search, self.usable(gpu_count)
        for micro in larger_micro_batches(s.workload, gpu_count, tp, pp, sp):
            ladder = s.micro_ladder(tp, pp, gpu_count, sp, micro)
            if ladder[-1][0] > usable:
                break
            layout = s.first_fitting(ladder, gpu_count, usable)
            best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
            if not saves:
                break  # nothing exposed left to save: larger micro-batches only recompute more
        return best, best_s

    def _sequence_split(
        self, gpu_count: int, compute_floor: dict[object, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float]:
        """best_layout's DeepSpeed-Ulysses part, for a data-parallel-only stack, after its other splits (`best`):
        SP degrees inside the scale-up domain (ascending), then beyond it if nothing fits yet."""
        s, usable = self.search, self.usable(gpu_count)
        least = compute_floor["none"]
        for rows in s.sequence_rows(self.gpu, gpu_count):
            level, busiest = None, 0.0  # recompute level and busiest-replica factor of the last SP degree considered
            for row in rows:
                if best_s <= least:
                    break  # nothing left can be strictly faster
                if not s.frugal_fits(row, 1, gpu_count, usable):
                    continue
                layout = s.first_fitting(s.ladder(row, 1, gpu_count), gpu_count, usable)
                uneven = busiest_replica_factor(s.workload.global_batch_seqs, layout.replicas(gpu_count))
                # the same level as a smaller SP, no evener split: same compute, no fewer micro-batches, more all-to-all
                if layout.recompute != level or uneven < busiest:
                    level, busiest = layout.recompute, uneven
                    best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
                else:  # not timed against the best, but its larger micro-batches may be faster
                    floor = self._floor(gpu_count, layout, compute_floor)
                    parts = self._parts(gpu_count, layout, floor)
                    saves = floor < best_s and (self._fewer_micro_batches_help(parts[3]) or parts[6] > 0)
                if saves:
                    best, best_s = self._micro_batches(gpu_count, 1, 1, row[3], compute_floor, best, best_s)
            if best is not None:
                break  # something fits by now: no split beyond the scale-up domain is offered
        return best, best_s

    def _context_split(
        self, gpu_count: int, compute_floor: dict[object, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float]:
        """best_layout's ring context-parallel part, after the other splits (`best`): training.context_splits, each
        first fit timed where its compute could beat the best, then its larger micro-batches."""
        s, usable = self.search, self.usable(gpu_count)
        if best is not None and s.workload.seq_len < CONTEXT_PARALLEL_MIN_SEQ_LEN:
            return best, best_s  # a short sequence that fits without CP is not offered it
        least = compute_floor["none"]
        for tp, row in s.context_rows(self.gpu, gpu_count):
            if best_s <= least:
                break  # nothing left can be strictly faster
            if not s.frugal_fits(row, tp, gpu_count, usable):
                continue
            layout = s.first_fitting(s.ladder(row, tp, gpu_count), gpu_count, usable)
            best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
            if saves:
                best, best_s = self._micro_batches(gpu_count, tp, 1, row[3], compute_floor, best, best_s)
        return best, best_s
