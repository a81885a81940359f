"""Expert parallelism (EP) of a mixture-of-experts model: the routed experts' weights, the EP degree a layout runs and
the degrees a layout search tries (expert_degrees).

EP splits the routed experts over EP ranks, each holding num_experts / EP of them whole, and trades tokens with the
others by all-to-all (Megatron-Core MoE docs, "Expert Parallelism": expert_model_parallel_size; DeepSpeed-MoE,
Rajbhandari et al. 2022 §4: experts partitioned over "expert-parallel" ranks carved out of the data-parallel ones;
DeepSeek-V3 report §3.2: 64-way EP beside 16-way PP and ZeRO-1 DP). The attention, dense and shared-expert weights
stay split as without EP (TP/PP/ZeRO). Beside attention TP the experts run at expert-tensor-parallel 1 with the EP
ranks folded over the TP x DP ranks (Megatron-Core MoE docs, "MoE Parallel Folding": --expert-tensor-parallel-size 1,
the EP group carved from the TP x CP x DP ranks; with ETP 1 the world size must divide by EP x PP, i.e. EP divides
TP x DP here, where EP runs without CP). Pure functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.scoring.specs import ModelSpec

if TYPE_CHECKING:  # memory.Layout imports nothing from here at run time
    from app.scoring.training.layouts.memory import Layout


def all_expert_params(model: ModelSpec) -> float:
    """Every routed expert's weights: MoE layers × experts × 3 matrices × hidden × expert width (SwiGLU experts), at
    most the model's parameters; what expert parallelism splits (0 for a dense model)."""
    if not model.is_moe:
        return 0.0
    experts = model.moe_layers * model.num_experts * 3.0 * model.hidden_size * model.moe_intermediate_size
    return min(experts, model.params_b * 1e9)


def expert_parallel(layout: Layout, model: ModelSpec) -> int:
    """GPUs that split the routed experts: the layout's EP degree on a MoE model, else 1."""
    return (layout.expert_parallel or 1) if model.is_moe else 1


def expert_data_parallel(dp: int, ep: int, tp: int = 1) -> int:
    """Ranks that hold the same experts and shard or reduce them together: TP x DP / EP (Megatron-Core's
    expert-data-parallel group under parallel folding at expert-TP 1; DP / EP at TP 1; torchtitan shards experts by
    FSDP over dp_shard / EP)."""
    return max(1, tp * dp // max(1, ep))


def held_params(model: ModelSpec, layout: Layout) -> float:
    """Weights one data-parallel rank's copy holds before TP/PP/ZeRO split them: every weight, but under EP only
    num_experts / EP of the routed experts (the model's parameters exactly where EP is 1). The experts stay whole
    beside attention TP (expert-TP 1), so under TP they count TP / EP of the experts: divided by TP, a GPU holds the
    other weights / TP and the experts / EP."""
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return model.params_b * 1e9
    return model.params_b * 1e9 - all_expert_params(model) * (1.0 - layout.tensor_parallel / ep)


def expert_degrees(model: ModelSpec, folded_ranks: int) -> tuple[int, ...]:
    """EP degrees above 1 a layout search tries: powers of two up to the expert count that divide it and the
    `folded_ranks` the EP ranks are carved out of, TP x DP (the data-parallel size at TP 1; Megatron-Core's
    "MoE Parallel Folding" at expert-TP 1); none for a dense model."""
    if not model.is_moe:
        return ()
    degrees, ep = [], 2
    while ep <= model.num_experts:
        if model.num_experts % ep == 0 and folded_ranks % ep == 0:
            degrees.append(ep)
        ep *= 2
    return tuple(degrees)
