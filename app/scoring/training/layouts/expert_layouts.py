"""The expert-parallel layouts of a MoE a training layout search tries (expert_candidates), after its other splits:
each (TP, PP) of layout_families with each EP degree of experts.expert_degrees, on the stacks that run EP.

Beside attention TP the routed experts run at expert-tensor-parallel 1 and the EP ranks fold over the TP x DP ranks
(Megatron-Core MoE docs, "MoE Parallel Folding": --expert-tensor-parallel-size 1, the EP group carved from the
TP x CP x DP ranks, the world size divisible by ETP x EP x PP): EP divides TP x DP, as CP is not combined with EP
here. Real MoE runs pair attention TP > 1 with EP this way (Mixtral 8x7B at TP2 EP8; NeMo's DeepSeek-V3 and
Qwen3-MoE recipes: as cited when this search was added, not re-read from the recipes here).

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_degrees
from app.scoring.training.layouts.fit_search import first_fit, frugal_fits, with_micro_batches
from app.scoring.training.layouts.memory import GB, Layout, frozen_base_bytes_per_param, usable_gb
from app.scoring.training.layouts.optimizer import gpu_state_bytes_per_param, state_recipe
from app.scoring.training.layouts.search_space import (
    data_parallel_only_method,
    layout_families,
    recompute_levels,
    whole_model_levels,
)
from app.scoring.workload import TrainingWorkload

# Stacks that split a MoE's routed experts over EP ranks: Megatron-LM and NeMo (Megatron-Core
# expert_model_parallel_size), torchtitan (its expert_parallel_degree) and "auto", the tuned stack priced as one of
# them. HF Trainer, LLM Foundry's FSDP and plain PyTorch/torchtune train every expert on every rank.
EXPERT_PARALLEL_STACKS = frozenset({"megatron", "megatron-lm", "nemo", "torchtitan", "auto"})

ExpertGroup = tuple[int, int, tuple[int, ...]]  # (TP, EP, the PPs tried, ascending)

# Relative slack of states_overflow's test: a numerical guard (float sums differ from the even spread's by ~1e-15),
# not a physical quantity; far above rounding, far below any real difference in memory.
STATES_MARGIN = 1e-6


def expert_splits(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[tuple[int, int, int]]:
    """(TP, PP, EP) splits of a MoE a layout search tries, TP then EP then PP ascending: each (TP, PP) of
    layout_families with each EP degree of experts.expert_degrees over its TP x DP ranks. At TP 1 the attention
    beside the experts runs data parallel, as DeepSeek-V3 trained (TP1 PP16 EP64, its report §3.2); at TP 2-8 it is
    split by TP inside the scale-up domain while the experts stay whole (expert-TP 1), EP folded over TP x DP. Only
    on the stacks that run EP (EXPERT_PARALLEL_STACKS), and not for QLoRA (data parallel only)."""
    if not model.is_moe or w.framework not in EXPERT_PARALLEL_STACKS or data_parallel_only_method(w.method):
        return []
    families = layout_families(gpu, gpu_count, model, w.framework, w.method)
    splits = [(tp, pp, ep) for tp, pp in families for ep in expert_degrees(model, gpu_count // pp)]
    return sorted(splits, key=lambda split: (split[0], split[2], split[1]))


def expert_groups(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[ExpertGroup]:
    """expert_splits gathered by (TP, EP), in their order, each with its PPs ascending."""
    groups: dict[tuple[int, int], list[int]] = {}
    for tp, pp, ep in expert_splits(gpu, gpu_count, model, w):
        groups.setdefault((tp, ep), []).append(pp)
    return [(tp, ep, tuple(pps)) for (tp, ep), pps in groups.items()]


def states_overflow(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> bool:
    """Whether the model's states, spread evenly over every GPU (ZeRO-3's share, the least any split holds: each
    other stage or split keeps more on some GPU), already pass a GPU's usable memory, so no EP layout can fit: the
    search then skips their memory checks (the margin keeps rounding from turning a fit away)."""
    n = model.params_b * 1e9
    if w.method in ("pretrain", "full_ft"):
        least = n * gpu_state_bytes_per_param(state_recipe(w), 3, 1) / gpu_count
    else:
        least = n * frozen_base_bytes_per_param(w.method) / gpu_count
    return least / GB * (1.0 - STATES_MARGIN) > usable_gb(gpu, gpu_count)


def expert_group_candidates(gpu, gpu_count, model, w, e, group: ExpertGroup, partial: bool = True) -> list[Layout]:
    """One (TP, EP) group's layouts: the first fit without PP, at the smallest PP that fits and, while that one
    recomputes, at each deeper PP up to the first that fits at the cheapest recompute level, each with its larger
    micro-batches (with_micro_batches); none where the states overflow every split (states_overflow).

    Whole experts at TP 1 leave little room for activations, and practitioners deepen the pipeline rather than
    recompute: NVIDIA's Megatron-Bridge 0.6.2 DeepSeek-V3 B200 perf recipes run TP1 PP8 EP8 (256 GPUs, GBS 4096) and
    TP1 PP16 EP8 (its GBS 256 proxy), recomputing only the MLA up-projections; DeepSeek-V3 itself ran PP16 EP64
    (report §3.2). The smallest PP alone would time such a group only at its recomputing fit."""
    tp, ep, pps = group
    found: list[Layout] = []
    if states_overflow(gpu, gpu_count, model, w):
        return found
    cheapest = (recompute_levels(w) if partial else whole_model_levels(w))[0]
    for pp in pps:
        if pp > 1 and any(layout.pipeline_parallel > 1 and layout.recompute == cheapest for layout in found):
            break
        layout = first_fit(gpu, gpu_count, model, w, tp, pp, e, partial=partial, ep=ep)
        if layout is not None:
            found.extend(with_micro_batches(gpu, gpu_count, model, w, tp, pp, e, layout, partial=partial))
    return found


def expert_candidates(gpu, gpu_count, model, w, e, partial: bool = True) -> list[Layout]:
    """Per (TP, EP) of expert_groups (ascending), expert_group_candidates: the EP layouts choose_layout times after
    the others."""
    groups = expert_groups(gpu, gpu_count, model, w)
    if not groups or states_overflow(gpu, gpu_count, model, w):
        return []
    return [layout for g in groups for layout in expert_group_candidates(gpu, gpu_count, model, w, e, g, partial)]


def expert_split_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> bool:
    """Some (TP, PP)'s largest EP degree of expert_splits fits at its most frugal: memory falls as EP grows (each GPU
    holds fewer experts' states, nothing grows), so it is that split's most frugal EP degree."""
    widest: dict[tuple[int, int], int] = {}
    for tp, pp, ep in expert_splits(gpu, gpu_count, model, w):
        widest[tp, pp] = max(ep, widest.get((tp, pp), 1))
    if not widest or states_overflow(gpu, gpu_count, model, w):  # a dense model's search stops at the first test
        return False
    return any(frugal_fits(gpu, gpu_count, model, w, tp, pp, e, ep=ep) for (tp, pp), ep in widest.items())
