"""The expert-parallel layouts of a MoE a training layout search tries (expert_candidates), after its other splits:
TP 1 with each PP of layout_families and each EP degree of experts.expert_degrees, on the stacks that run EP.

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_degrees
from app.scoring.training.layouts.fit_search import first_fit, frugal_fits, with_micro_batches
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.layouts.search_space import data_parallel_only_method, layout_families
from app.scoring.workload import TrainingWorkload

# Stacks that split a MoE's routed experts over EP ranks: Megatron-LM and NeMo (Megatron-Core
# expert_model_parallel_size), torchtitan (its expert_parallel_degree) and "auto", the tuned stack priced as one of
# them. HF Trainer, LLM Foundry's FSDP and plain PyTorch/torchtune train every expert on every rank.
EXPERT_PARALLEL_STACKS = frozenset({"megatron", "megatron-lm", "nemo", "torchtitan", "auto"})


def expert_splits(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[tuple[int, int]]:
    """(PP, EP) splits of a MoE a layout search tries, EP then PP ascending: at TP 1 (experts stay whole, and the
    attention beside them runs data parallel, as DeepSeek-V3 trained: TP1 PP16 EP64, its report §3.2), each PP of
    layout_families with each EP degree of experts.expert_degrees over its data-parallel ranks. Only on the stacks
    that run EP (EXPERT_PARALLEL_STACKS), and not for QLoRA (data parallel only)."""
    if not model.is_moe or w.framework not in EXPERT_PARALLEL_STACKS or data_parallel_only_method(w.method):
        return []
    pps = [pp for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method) if tp == 1]
    splits = [(pp, ep) for pp in pps for ep in expert_degrees(model, gpu_count // pp)]
    return sorted(splits, key=lambda split: (split[1], split[0]))


def expert_candidates(gpu, gpu_count, model, w, e, partial: bool = True) -> list[Layout]:
    """Per EP degree of expert_splits (ascending), the first fit without PP and at the smallest PP that fits, each
    with its larger micro-batches (with_micro_batches): the EP layouts choose_layout times after the others."""
    found: list[Layout] = []
    done: set[tuple[int, bool]] = set()
    for pp, ep in expert_splits(gpu, gpu_count, model, w):
        if (ep, pp > 1) in done:
            continue
        layout = first_fit(gpu, gpu_count, model, w, 1, pp, e, partial=partial, ep=ep)
        if layout is not None:
            done.add((ep, pp > 1))
            found.extend(with_micro_batches(gpu, gpu_count, model, w, 1, pp, e, layout, partial=partial))
    return found


def expert_split_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> bool:
    """Some PP's largest EP degree of expert_splits fits at its most frugal: memory falls as EP grows (each GPU holds
    fewer experts' states, nothing grows), so it is that PP's most frugal EP split."""
    widest: dict[int, int] = {}
    for pp, ep in expert_splits(gpu, gpu_count, model, w):
        widest[pp] = max(ep, widest.get(pp, 1))
    return any(frugal_fits(gpu, gpu_count, model, w, 1, pp, e, ep=ep) for pp, ep in widest.items())
