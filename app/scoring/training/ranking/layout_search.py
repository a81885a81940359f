"""The memory side of the layout search for ranking sweeps (LayoutSearch): the layouts training.choose_layout weighs,
listed once per ranking, and the GB each needs.

- Memory per GPU does not depend on the GPU type: the GB a layout needs at a GPU count is computed
  once per ranking and compared with each GPU type's usable HBM.
- Per (TP, PP) family (and per DeepSpeed-Ulysses degree of a data-parallel-only stack, per (TP, CP) of a ring-CP
  stack), its layouts in cost order
  (recompute none → selective → partial → full, less sharding first) and its most frugal one, each sized once per
  GPU count and micro-batch, for every machine of the ranking (for_machine). A partial-recompute entry stands for
  every recomputed-layer count: first_fitting bisects it against each GPU type's usable memory (fewest_fitting, as
  training.partial_fit does).
"""

from __future__ import annotations

import copy
from bisect import bisect_left

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.eager_activations import stack_layer
from app.scoring.training.layouts.expert_layouts import (
    ExpertGroup,
    expert_group_candidates,
    expert_groups,
    expert_split_fits,
)
from app.scoring.training.layouts.fit_search import LayoutMemory, layout_memory
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import (
    GB,
    OP_LEVEL_SAC_STACKS,
    PARTIAL_RECOMPUTE_STACKS,
    Layout,
    activation_bytes,
    fewest_fitting,
    live_param_bytes,
    logits_bytes,
    memory_needed_gb,
    model_state_bytes,
    partial_recompute_counts,
    usable_gb,
)
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.search_space import (
    context_splits,
    layout_families,
    recompute_levels,
    scaleup_domain,
    sequence_degrees,
    zero_stages,
)
from app.scoring.training.layouts.step_peak import StepPeak, workload_peak
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY, split_stack
from app.scoring.workload import TrainingWorkload


class LayoutSearch:
    """Memoised memory fits for one (model, workload), shared by every GPU type of a ranking."""

    def __init__(
        self, model: ModelSpec, workload: TrainingWorkload, e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY
    ) -> None:
        self.model, self.workload, self.e = model, workload, e
        self.adapters = lora_adapter_params(model, workload.lora_rank)
        self.recipe = state_recipe(workload)
        self.split_stack = split_stack(workload.framework, workload.method)  # whose sequence split it takes
        self.splits_sequence = self.split_stack in DATA_PARALLEL_ONLY  # may use DeepSpeed-Ulysses SP
        self.sac_rivals = workload.framework in OP_LEVEL_SAC_STACKS & PARTIAL_RECOMPUTE_STACKS  # training.sac_rival
        self._need: dict[tuple, float] = {}
        self._parts: dict[object, float] = {}  # memory components, keyed by what each depends on
        self._peaks: dict[tuple[int, int, int, int, int, int], StepPeak] = {}  # step_peak's, by what it reads
        self._tables: dict[tuple[int, int], list[tuple[int, list[list]]]] = {}
        self._sp_rows: dict[tuple[int, int], tuple[list[list], list[list]]] = {}
        self._cp_rows: dict[tuple[int, int], list[tuple[int, list]]] = {}
        self._layouts: dict[tuple[int, int, int, str, int, int, int | None], Layout] = {}
        self._ladders: dict[tuple[int, int, int, int, int], list[tuple[float, Layout]]] = {}
        self._partial: dict[tuple[Layout, int, float], Layout] = {}  # partial_layout's answers
        self._capped: dict[tuple[int, int], LayoutSearch] = {}  # capped's searches, by (Max GPUs, id of e)
        self._expert_groups: dict[tuple[int, int], list[ExpertGroup]] = {}  # expert_groups' answers
        self._experts: dict[tuple[int, float, int, ExpertGroup], list[Layout]] = {}  # expert_layouts' answers
        self._settings: dict[tuple[object, ...], LayoutSearch] = {}  # fits_with's searches
        self._memory: dict[tuple[Layout, int, float, float], LayoutMemory] = {}  # layout_memory's answers

    def for_machine(self, workload: TrainingWorkload, e: eff.TrainingEfficiency) -> LayoutSearch:
        """This search's memory fits for another machine of the ranking: its own Max GPUs and link speeds, which no
        memory need reads (memory.py reads only the model, the workload's shape and selective_activation_share), so
        every machine of a ranking sizes each layout once."""
        assert e.selective_activation_share == self.e.selective_activation_share
        assert workload.model_copy(update={"max_gpus": self.workload.max_gpus}) == self.workload
        other = copy.copy(self)  # shares the memo dicts
        other.workload, other.e = workload, e
        return other

    def capped(self, max_gpus: int, e: eff.TrainingEfficiency) -> LayoutSearch:
        """for_machine at a machine's Max GPUs (its own limit where that is lower) and efficiency, one search per pair:
        the machines of a ranking come in a few sizes and most share the default efficiency, so a ranking copies
        its workload once per size, not once per machine. Keyed by the efficiency's identity, the search holding
        it (so an id is never reused while its entry lives)."""
        key = (max_gpus, id(e))
        found = self._capped.get(key)
        if found is not None and found.e is e:
            return found
        w = self.workload
        capped = w if max_gpus == w.max_gpus else w.model_copy(update={"max_gpus": max_gpus})
        found = self._capped[key] = self.for_machine(capped, e)
        return found

    @property
    def layouts_sized(self) -> int:
        """Distinct (layout, GPU count) memory evaluations so far."""
        return len(self._need)

    def need_gb(
        self,
        stage: int,
        tp: int,
        pp: int,
        recompute: str,
        gpu_count: int,
        sp: int = 1,
        micro: int = 1,
        layers: int | None = None,
    ) -> float:
        """GB per GPU the layout needs (the reserve is counted in usable_gb): memory_needed_gb of
        memory_breakdown_gb and its step peak, the parts summed in the same order, each computed once per its own
        key. `layers`: the layers per stage a partial recompute recomputes."""
        key = (stage, tp, pp, recompute, gpu_count, sp, micro, layers)
        need = self._need.get(key)
        if need is not None:
            return need
        parts, dp = self._parts, max(1, gpu_count // (tp * pp))  # Layout.data_parallel
        states_key, live_key = ("states", stage, tp * pp, dp), ("live", stage, tp, dp > 1)
        # an eager stack's residual stream is fp32 without ZeRO (eager_activations.fp32_residual): the stage counts
        acts_key: tuple = (tp, recompute, sp, micro, stage == 0)
        if layers is not None:
            acts_key += (pp, layers)
        logits_key = (tp, sp, micro)
        states, live = parts.get(states_key), parts.get(live_key)
        acts, logits = parts.get(acts_key), parts.get(logits_key)
        if states is None or live is None or acts is None or logits is None:
            m, w, layout = self.model, self.workload, self.layout(stage, tp, pp, recompute, sp, micro, layers)
            states = parts[states_key] = (
                model_state_bytes(m, w.method, layout, gpu_count, w.lora_rank, self.recipe) / GB
            )
            live = parts[live_key] = live_param_bytes(m, w.method, layout, gpu_count) / GB
            eager = stack_layer(w.framework, w.method)
            acts = parts[acts_key] = (
                activation_bytes(m, w.seq_len, layout, self.e, w.framework, eager, w.method, self.recipe) / GB
            )
            logits = parts[logits_key] = logits_bytes(m, w.seq_len, layout, w.framework) / GB
        breakdown = {"model_states": states, "live_params": live, "activations": acts, "logits": logits}
        need = self._need[key] = memory_needed_gb(breakdown, self._peak(stage, tp, pp, gpu_count, sp, micro))
        return need

    def _peak(self, stage: int, tp: int, pp: int, gpu_count: int, sp: int, micro: int) -> StepPeak:
        """workload_peak of the layout (recompute does not change it), once per key."""
        key = (stage, tp, pp, gpu_count, sp, micro)
        peak = self._peaks.get(key)
        if peak is None:
            layout = self.layout(stage, tp, pp, "none", sp, micro)
            peak = self._peaks[key] = workload_peak(self.model, self.workload, layout, gpu_count)
        return peak

    def layout(
        self, stage: int, tp: int, pp: int, recompute: str, sp: int = 1, micro: int = 1, layers: int | None = None
    ) -> Layout:
        """One shared Layout object per split (a Layout does not hold the GPU count)."""
        key = (stage, tp, pp, recompute, sp, micro, layers)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = Layout(
                stage, tp, pp, recompute, micro, sequence_parallel=sp, recompute_layers=layers
            )
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
            inside, beyond = sequence_degrees(gpu, gpu_count, self.model, self.split_stack)
            found = self._sp_rows[key] = (
                [[1, None, None, sp] for sp in inside],
                [[1, None, None, sp] for sp in beyond],
            )
        return found

    def context_rows(self, gpu: GpuSpec, gpu_count: int) -> list[tuple[int, list]]:
        """training.context_splits, all of them (as where nothing fits without CP), as (TP, row [1, frugal GB,
        ladder, cp]) pairs, TP then CP ascending; empty for stacks without ring context parallelism."""
        key = (scaleup_domain(gpu), gpu_count)
        found = self._cp_rows.get(key)
        if found is None:
            splits = context_splits(gpu, gpu_count, self.model, self.workload, False)
            found = self._cp_rows[key] = [(tp, [1, None, None, cp]) for tp, cp in splits]
        return found

    def frugal_fits(self, row: list, tp: int, gpu_count: int, usable: float) -> bool:
        """Whether a table row's (TP, PP, SP) fits at all: its most frugal layout fits."""
        if row[1] is None:
            pp = row[0]
            row[1] = self.need_gb(max(zero_stages(tp, pp, gpu_count)), tp, pp, "full", gpu_count, row[3])
        return row[1] <= usable

    def fits(self, gpu: GpuSpec, gpu_count: int) -> bool:
        """training.fits_at: some (TP, PP) fits with its most frugal layout (most split, likeliest, first), or
        the largest SP degree does, or some TP's largest CP degree does."""
        usable = usable_gb(gpu, gpu_count)
        if any(
            self.frugal_fits(row, tp, gpu_count, usable)
            for tp, rows in reversed(self.table(gpu, gpu_count))
            for row in reversed(rows)
        ):
            return True
        if self.splits_sequence:
            inside, beyond = self.sequence_rows(gpu, gpu_count)
            widest = (beyond or inside)[-1:]
            return any(self.frugal_fits(row, 1, gpu_count, usable) for row in widest)
        widest_cp = {tp: row for tp, row in self.context_rows(gpu, gpu_count)}  # CP ascending: each TP's largest
        if any(self.frugal_fits(row, tp, gpu_count, usable) for tp, row in widest_cp.items()):
            return True
        return expert_split_fits(gpu, gpu_count, self.model, self.workload, self.e)  # a MoE only, not memoised

    def layout_memory(self, layout: Layout, gpu_count: int) -> LayoutMemory:
        """fit_search.layout_memory of a layout a slot keeps, once per (layout, count) for every machine of the ranking
        (of the seeded 8B LoRA ranking's 38 kept layouts, 12 differ). Memory reads no link speed or Max GPUs; the two
        efficiency shares it reads are in the key."""
        e = self.e
        key = (layout, gpu_count, e.selective_activation_share, e.eager_layer_share)
        found = self._memory.get(key)
        if found is None:
            found = self._memory[key] = layout_memory(gpu_count, self.model, self.workload, layout, e)
        return found

    def fits_with(self, gpu: GpuSpec, gpu_count: int, update: dict[str, str]) -> bool:
        """training.fits_at of the workload with `update`'s settings (the advice of a no-fit reason:
        frugal_settings.settings_that_fit), from a search of that workload shared by every machine of the ranking at
        this Max GPUs and efficiency: the machines that hold the model nowhere ask the same settings, and the GB a
        layout needs does not depend on the GPU type. Keyed by the efficiency's identity, the search holding it."""
        key = (tuple(update.items()), self.workload.max_gpus, id(self.e))
        found = self._settings.get(key)
        if found is None or found.e is not self.e:
            found = self._settings[key] = LayoutSearch(self.model, self.workload.model_copy(update=update), self.e)
        return found.fits(gpu, gpu_count)

    def expert_groups(self, gpu: GpuSpec, gpu_count: int) -> list[ExpertGroup]:
        """training.expert_groups, once per scale-up domain and count (layout_families reads nothing else of the
        GPU)."""
        key = (scaleup_domain(gpu), gpu_count)
        found = self._expert_groups.get(key)
        if found is None:
            found = self._expert_groups[key] = expert_groups(gpu, gpu_count, self.model, self.workload)
        return found

    def expert_layouts(self, gpu: GpuSpec, gpu_count: int, group: ExpertGroup) -> list[Layout]:
        """training.expert_group_candidates, once per scale-up domain, memory size, count and (TP, EP) group: the
        layouts and their fits read nothing else of the GPU."""
        key = (scaleup_domain(gpu), gpu.memory_gb, gpu_count, group)
        found = self._experts.get(key)
        if found is None:
            model, w = self.model, self.workload
            found = self._experts[key] = expert_group_candidates(gpu, gpu_count, model, w, self.e, group)
        return found

    def ladder(self, row: list, tp: int, gpu_count: int) -> list[tuple[float, Layout]]:
        """(need GB, layout) of a table row in training._first_fit order: recompute none → selective →
        full, less sharding first; the same for every GPU type."""
        if row[2] is None:
            row[2] = self.micro_ladder(tp, row[0], gpu_count, row[3], 1)
        return row[2]

    def micro_ladder(self, tp: int, pp: int, gpu_count: int, sp: int, micro: int) -> list[tuple[float, Layout]]:
        """ladder of a (TP, PP, SP) split at a micro-batch; its last layout is the most frugal (full recompute,
        most sharding). A partial-recompute entry holds its need at the most recomputed layers it may take (below
        all of them) and a layout without a count: first_fitting finds the count."""
        key = (tp, pp, gpu_count, sp, micro)
        ladder = self._ladders.get(key)
        if ladder is None:
            counts = partial_recompute_counts(self.workload.framework, self.model.layers, pp)
            ladder = self._ladders[key] = [
                (
                    self.need_gb(stage, tp, pp, recompute, gpu_count, sp, micro, counts[-1] if partial else None),
                    self.layout(stage, tp, pp, recompute, sp, micro),
                )
                for recompute in recompute_levels(self.workload, sp)
                for partial in (recompute == "partial",)
                if counts or not partial
                for stage in zero_stages(tp, pp, gpu_count)
            ]
        return ladder

    def first_fitting(self, ladder: list[tuple[float, Layout]], gpu_count: int, usable: float) -> Layout:
        """training.first_fit over a ladder whose last entry fits: the first entry that fits, a partial-recompute one
        at the fewest recomputed layers that fit (partial_layout)."""
        for need, layout in ladder:
            if need <= usable:
                return self.partial_layout(layout, gpu_count, usable) if layout.recompute == "partial" else layout
        raise ValueError("no layout of the ladder fits")

    def sac_rival(self, layout: Layout, gpu_count: int, usable: float) -> Layout | None:
        """training.sac_rival: a first fit at op-level selective recompute's partial rival, the first partial entry
        of its ladder that fits, at the fewest recomputed layers that fit (partial_layout); None elsewhere."""
        if layout.recompute != "selective" or not self.sac_rivals:
            return None
        tp, pp, sp, micro = (
            layout.tensor_parallel,
            layout.pipeline_parallel,
            layout.sequence_parallel,
            layout.micro_batch_seqs,
        )
        for need, entry in self.micro_ladder(tp, pp, gpu_count, sp, micro):
            if entry.recompute == "partial" and need <= usable:
                return self.partial_layout(entry, gpu_count, usable)
        return None

    def partial_layout(self, base: Layout, gpu_count: int, usable: float) -> Layout:
        """A ladder's partial-recompute entry at the fewest recomputed layers per stage that fit (fewest_fitting,
        with the test training.partial_fit uses); its largest count fits (the entry's need). Memory falls linearly
        with the count, so the first guess, read off the line through the smallest and largest counts' needs, is
        most often the answer: two sizings per GPU type instead of a bisection's seven. Remembered per usable GB
        (GPU types of one memory size share it)."""
        key = (base, gpu_count, usable)
        found = self._partial.get(key)
        if found is not None:
            return found
        z, tp, pp = base.zero_stage, base.tensor_parallel, base.pipeline_parallel
        sp, micro = base.sequence_parallel, base.micro_batch_seqs
        counts = partial_recompute_counts(self.workload.framework, self.model.layers, pp)

        def need(k: int) -> float:
            return self.need_gb(z, tp, pp, "partial", gpu_count, sp, micro, k)

        low, high = need(counts[0]), need(counts[-1])
        guess = 0
        if low > usable and low > high:
            wanted = counts[0] + (low - usable) / (low - high) * (counts[-1] - counts[0])
            guess = min(bisect_left(counts, wanted), len(counts) - 1)
        n = fewest_fitting(counts, lambda k: need(k) <= usable, guess)
        assert n is not None
        found = self._partial[key] = self.layout(z, tp, pp, "partial", sp, micro, n)
        return found
