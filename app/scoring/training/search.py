"""Layout search for ranking sweeps: the answers of training.choose_layout, with far fewer evaluations.

- Memory per GPU does not depend on the GPU type: the GB a layout needs at a GPU count is computed
  once per ranking and compared with each GPU type's usable HBM.
- Per GPU type, the peak and precision class are computed once, the effective MFU once per count.
- Per (TP, PP) family only the first fitting layout in cost order (recompute none → selective →
  full) is considered, and it is timed only if its compute time — a lower bound on its step time,
  shared by every layout with the same recompute level — is below the best step time so far
  (choose_layout keeps the earlier layout on ties, so a family that cannot be strictly faster is
  never the answer). Once the best step time is at most the compute time without recompute, the
  search stops: no layout can beat it.
- Per ZeRO-3 or QLoRA split, larger micro-batches (powers of two up to the replica's share of the batch, until
  one does not fit) follow its first fit; they are tried only while the DP traffic is exposed (or the base is
  NF4): a larger micro-batch saves nothing else and recomputes no less.
- A data-parallel-only stack also tries DeepSpeed-Ulysses degrees after its other splits (ascending, inside the
  scale-up domain; beyond it only when nothing fits yet). Every split of such a stack has the same ZeRO stage,
  compute and latency; the all-to-all grows with SP at one bandwidth and the micro-batches per replica with it.
  Memory falls as SP grows, so the first fit's recompute level never rises: only the first degree to reach a
  level (or an evener split) can be strictly faster at its first fit; the others are not timed.
Pure: same formulas and floating-point order as training.py, so the results are bit-identical.
"""

from __future__ import annotations

import copy

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.choice import (
    RECOMPUTE_ORDER,
    larger_micro_batches,
    layout_families,
    scaleup_domain,
    sequence_degrees,
    zero_stages,
)
from app.scoring.training.frameworks import DATA_PARALLEL_ONLY
from app.scoring.training.lora_adapters import lora_adapter_params
from app.scoring.training.memory import (
    GB,
    Layout,
    activation_bytes,
    live_param_bytes,
    logits_bytes,
    memory_needed_gb,
    model_state_bytes,
    usable_gb,
)
from app.scoring.training.mfu import attention_efficiency, effective_mfu, low_precision_speedup, peak_tflops
from app.scoring.training.optimizer import state_recipe
from app.scoring.training.step_time import busiest_replica_factor, compute_seconds, step_parts
from app.scoring.workload import TrainingWorkload


class LayoutSearch:
    """Memoised memory fits for one (model, workload), shared by every GPU type of a ranking."""

    def __init__(
        self, model: ModelSpec, workload: TrainingWorkload, e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY
    ) -> None:
        self.model, self.workload, self.e = model, workload, e
        self.adapters = lora_adapter_params(model, workload.lora_rank)
        self.recipe = state_recipe(workload)
        self.splits_sequence = workload.framework in DATA_PARALLEL_ONLY  # may use DeepSpeed-Ulysses SP
        self._need: dict[tuple, float] = {}
        self._parts: dict[object, float] = {}  # memory components, keyed by what each depends on
        self._tables: dict[tuple[int, int], list[tuple[int, list[list]]]] = {}
        self._sp_rows: dict[tuple[int, int], tuple[list[list], list[list]]] = {}
        self._layouts: dict[tuple[int, int, int, str, int, int], Layout] = {}
        self._ladders: dict[tuple[int, int, int, int, int], list[tuple[float, Layout]]] = {}

    def for_machine(self, workload: TrainingWorkload, e: eff.TrainingEfficiency) -> LayoutSearch:
        """This search's memory fits for another machine of the ranking: its own Max GPUs and link speeds, which no
        memory need reads (memory.py reads only the model, the workload's shape and selective_activation_share), so
        every machine of a ranking sizes each layout once."""
        assert e.selective_activation_share == self.e.selective_activation_share
        assert workload.model_copy(update={"max_gpus": self.workload.max_gpus}) == self.workload
        other = copy.copy(self)  # shares the memo dicts
        other.workload, other.e = workload, e
        return other

    @property
    def layouts_sized(self) -> int:
        """Distinct (layout, GPU count) memory evaluations so far."""
        return len(self._need)

    def need_gb(
        self, stage: int, tp: int, pp: int, recompute: str, gpu_count: int, sp: int = 1, micro: int = 1
    ) -> float:
        """GB per GPU the layout needs (the reserve is counted in usable_gb): memory_needed_gb of
        memory_breakdown_gb, summed in the same order, each component computed once per its own key."""
        key = (stage, tp, pp, recompute, gpu_count, sp, micro)
        need = self._need.get(key)
        if need is not None:
            return need
        parts, dp = self._parts, max(1, gpu_count // (tp * pp))  # Layout.data_parallel
        states_key, live_key = ("states", stage, tp * pp, dp), ("live", stage, tp, dp > 1)
        acts_key, logits_key = (tp, recompute, sp, micro), (tp, sp, micro)
        states, live = parts.get(states_key), parts.get(live_key)
        acts, logits = parts.get(acts_key), parts.get(logits_key)
        if states is None or live is None or acts is None or logits is None:
            m, w, layout = self.model, self.workload, self.layout(stage, tp, pp, recompute, sp, micro)
            states = parts[states_key] = (
                model_state_bytes(m, w.method, layout, gpu_count, w.lora_rank, self.recipe) / GB
            )
            live = parts[live_key] = live_param_bytes(m, w.method, layout, gpu_count) / GB
            acts = parts[acts_key] = activation_bytes(m, w.seq_len, layout, self.e, w.framework) / GB
            logits = parts[logits_key] = logits_bytes(m, w.seq_len, layout, w.framework) / GB
        breakdown = {"model_states": states, "live_params": live, "activations": acts, "logits": logits}
        need = self._need[key] = memory_needed_gb(breakdown)  # the same sum, in the same order
        return need

    def layout(self, stage: int, tp: int, pp: int, recompute: str, sp: int = 1, micro: int = 1) -> Layout:
        """One shared Layout object per split (a Layout does not hold the GPU count)."""
        key = (stage, tp, pp, recompute, sp, micro)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = Layout(stage, tp, pp, recompute, micro, sequence_parallel=sp)
        return layout

    def table(self, gpu: GpuSpec, gpu_count: int) -> list[tuple[int, list[list]]]:
        """training.layout_families grouped by TP (ascending), each PP (ascending, 1 first) as a row
        [pp, frugal GB, ladder, sp], the middle two filled when first asked."""
        key = (scaleup_domain(gpu), gpu_count)
        found = self._tables.get(key)
        if found is None:
            by_tp: dict[int, list[list]] = {}
            for tp, pp in layout_families(gpu, gpu_count, self.model, self.workload.framework, self.workload.method):
                by_tp.setdefault(tp, []).append([pp, None, None, 1])
            found = self._tables[key] = list(by_tp.items())
        return found

    def sequence_rows(self, gpu: GpuSpec, gpu_count: int) -> tuple[list[list], list[list]]:
        """training.sequence_degrees as TP 1 / PP 1 rows [1, frugal GB, ladder, sp]: (inside the scale-up domain,
        beyond it), SP ascending; both empty for stacks other than the data-parallel-only ones."""
        key = (scaleup_domain(gpu), gpu_count)
        found = self._sp_rows.get(key)
        if found is None:
            inside, beyond = sequence_degrees(gpu, gpu_count, self.model, self.workload.framework)
            found = self._sp_rows[key] = (
                [[1, None, None, sp] for sp in inside],
                [[1, None, None, sp] for sp in beyond],
            )
        return found

    def frugal_fits(self, row: list, tp: int, gpu_count: int, usable: float) -> bool:
        """Whether a table row's (TP, PP, SP) fits at all: its most frugal layout fits."""
        if row[1] is None:
            pp = row[0]
            row[1] = self.need_gb(max(zero_stages(tp, pp, gpu_count)), tp, pp, "full", gpu_count, row[3])
        return row[1] <= usable

    def fits(self, gpu: GpuSpec, gpu_count: int) -> bool:
        """training.fits_at: some (TP, PP) fits with its most frugal layout (most split, likeliest, first), or
        the largest SP degree does."""
        usable = usable_gb(gpu, gpu_count)
        if any(
            self.frugal_fits(row, tp, gpu_count, usable)
            for tp, rows in reversed(self.table(gpu, gpu_count))
            for row in reversed(rows)
        ):
            return True
        if not self.splits_sequence:
            return False
        inside, beyond = self.sequence_rows(gpu, gpu_count)
        widest = (beyond or inside)[-1:]
        return any(self.frugal_fits(row, 1, gpu_count, usable) for row in widest)

    def ladder(self, row: list, tp: int, gpu_count: int) -> list[tuple[float, Layout]]:
        """(need GB, layout) of a table row in training._first_fit order: recompute none → selective →
        full, less sharding first; the same for every GPU type."""
        if row[2] is None:
            row[2] = self.micro_ladder(tp, row[0], gpu_count, row[3], 1)
        return row[2]

    def micro_ladder(self, tp: int, pp: int, gpu_count: int, sp: int, micro: int) -> list[tuple[float, Layout]]:
        """ladder of a (TP, PP, SP) split at a micro-batch; its last layout is the most frugal (full recompute,
        most sharding)."""
        key = (tp, pp, gpu_count, sp, micro)
        ladder = self._ladders.get(key)
        if ladder is None:
            ladder = self._ladders[key] = [
                (
                    self.need_gb(stage, tp, pp, recompute, gpu_count, sp, micro),
                    self.layout(stage, tp, pp, recompute, sp, micro),
                )
                for recompute in RECOMPUTE_ORDER
                for stage in zero_stages(tp, pp, gpu_count)
            ]
        return ladder


class GpuTimer:
    """Step times of one GPU type under a LayoutSearch; peak and MFU computed once."""

    def __init__(self, search: LayoutSearch, gpu: GpuSpec) -> None:
        self.search, self.gpu = search, gpu
        peak, self.precision_class, _ = peak_tflops(gpu, search.workload.precision)
        self.peak = peak or 0.0
        self._usable: dict[int, float] = {}  # by GPU count: one GPU holds no NCCL buffers
        self._mfu: dict[int, float] = {}  # by GPU count

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

    def compute_s(self, gpu_count: int, recompute: str) -> float:
        """Compute seconds per step; grows with the recompute level, the same for every parallel split."""
        s, w = self.search, self.search.workload
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
            attention_slowdown=low_precision_speedup(s.e, w.framework, self.precision_class, self.gpu),
            attention_eff=attention_efficiency(s.e, self.gpu, w.framework),
            framework=w.framework,
        )

    def step_s(self, gpu_count: int, layout: Layout, compute_s: float | None = None) -> float:
        """training.step_seconds: StepTime.total_s, summed in the same order."""
        compute, bubble, tp_comm, dp_comm, offload = self._parts(gpu_count, layout, compute_s)
        return compute + bubble + tp_comm + dp_comm + offload

    def _parts(
        self, gpu_count: int, layout: Layout, compute_s: float | None = None
    ) -> tuple[float, float, float, float, float]:
        s, w = self.search, self.search.workload
        compute, bubble, tp_comm, dp_comm, offload, _ = step_parts(
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
        return compute, bubble, tp_comm, dp_comm, offload

    def best_layout(self, gpu_count: int) -> tuple[Layout | None, float]:
        """training.choose_layout and its step time: per TP, the first fit without PP and the smallest PP
        that fits, then (data-parallel-only stacks, if none fits) each SP degree, timed in the same order (TP
        ascending, PP 1 first, SP ascending) so ties resolve the same way."""
        s, usable = self.search, self.usable(gpu_count)
        best, best_s = None, float("inf")
        compute_floor = {"none": self.compute_s(gpu_count, "none")}  # by recompute level, for every split
        least = compute_floor["none"]  # no layout computes faster than without recompute
        for tp, rows in s.table(self.gpu, gpu_count):
            if best_s <= least:
                break  # nothing left can be strictly faster
            # PP 1 (always listed first), then the smallest PP > 1, each if its frugal layout fits
            deeper = next((row for row in rows[1:] if s.frugal_fits(row, tp, gpu_count, usable)), None)
            pp1 = s.frugal_fits(rows[0], tp, gpu_count, usable)
            for row in ((rows[0],) if pp1 else ()) + ((deeper,) if deeper else ()):
                layout = next(layout for need, layout in s.ladder(row, tp, gpu_count) if need <= usable)
                best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
                if saves:
                    best, best_s = self._micro_batches(gpu_count, tp, row[0], 1, compute_floor, best, best_s)
        if not s.splits_sequence:
            return best, best_s
        return self._sequence_split(gpu_count, compute_floor, best, best_s)

    def _timed(
        self, gpu_count: int, layout: Layout, compute_floor: dict[str, float], best: Layout | None, best_s: float
    ) -> tuple[Layout | None, float, bool]:
        """The faster of the best so far and this layout (timed only if its compute time could beat the best), and
        whether a larger micro-batch of its split could be strictly faster than it (_fewer_micro_batches_help)."""
        floor = self._floor(gpu_count, layout.recompute, compute_floor)
        if floor >= best_s:  # step time ≥ compute time ≥ best: cannot be strictly faster, nor can a larger
            return best, best_s, False  # micro-batch, whose first fit recomputes no less
        parts = self._parts(gpu_count, layout, floor)
        compute, bubble, tp_comm, dp_comm, offload = parts
        seconds = compute + bubble + tp_comm + dp_comm + offload
        saves = self._fewer_micro_batches_help(dp_comm)
        return (layout, seconds, saves) if seconds < best_s else (best, best_s, saves)

    def _floor(self, gpu_count: int, recompute: str, compute_floor: dict[str, float]) -> float:
        floor = compute_floor.get(recompute)
        if floor is None:
            floor = compute_floor[recompute] = self.compute_s(gpu_count, recompute)
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
        compute_floor: dict[str, float],
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
            layout = next(layout for need, layout in ladder if need <= usable)
            best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
            if not saves:
                break  # nothing exposed left to save: larger micro-batches only recompute more
        return best, best_s

    def _sequence_split(
        self, gpu_count: int, compute_floor: dict[str, float], best: Layout | None, best_s: float
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
                layout = next(layout for need, layout in s.ladder(row, 1, gpu_count) if need <= usable)
                uneven = busiest_replica_factor(s.workload.global_batch_seqs, layout.replicas(gpu_count))
                # the same level as a smaller SP, no evener split: same compute, no fewer micro-batches, more all-to-all
                if layout.recompute != level or uneven < busiest:
                    level, busiest = layout.recompute, uneven
                    best, best_s, saves = self._timed(gpu_count, layout, compute_floor, best, best_s)
                else:  # not timed against the best, but its larger micro-batches may be faster
                    floor = self._floor(gpu_count, layout.recompute, compute_floor)
                    saves = floor < best_s and self._fewer_micro_batches_help(self._parts(gpu_count, layout, floor)[3])
                if saves:
                    best, best_s = self._micro_batches(gpu_count, 1, 1, row[3], compute_floor, best, best_s)
            if best is not None:
                break  # something fits by now: no split beyond the scale-up domain is offered
        return best, best_s
