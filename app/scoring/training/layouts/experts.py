"""Expert parallelism (EP) of a mixture-of-experts model: the routed experts' weights, the EP degree a layout runs and
the degrees a layout search tries (expert_degrees).

EP splits the routed experts over EP ranks, each holding num_experts / EP of them whole, and trades tokens with the
others by all-to-all (Megatron-Core MoE docs, "Expert Parallelism": expert_model_parallel_size; DeepSpeed-MoE,
Rajbhandari et al. 2022 §4: experts partitioned over "expert-parallel" ranks carved out of the data-parallel ones;
DeepSeek-V3 report §3.2: 64-way EP beside 16-way PP and ZeRO-1 DP). The attention, dense and shared-expert weights
stay split as without EP (TP/PP/ZeRO). Pure functions.
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


def expert_data_parallel(dp: int, ep: int) -> int:
    """Ranks that hold the same experts and shard or reduce them together: DP / EP (Megatron-Core's
    expert-data-parallel group; torchtitan shards experts by FSDP over dp_shard / EP)."""
    return max(1, dp // max(1, ep))


def held_params(model: ModelSpec, layout: Layout) -> float:
    """Weights one data-parallel rank's copy holds before TP/PP/ZeRO split them: every weight, but under EP only
    num_experts / EP of the routed experts (the model's parameters exactly where EP is 1)."""
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return model.params_b * 1e9
    return model.params_b * 1e9 - all_expert_params(model) * (1.0 - 1.0 / ep)


def expert_degrees(model: ModelSpec, data_parallel: int) -> tuple[int, ...]:
    """EP degrees above 1 a layout search tries: powers of two up to the expert count that divide it and the
    data-parallel size (EP ranks are carved out of the data-parallel ones); none for a dense model."""
    if not model.is_moe:
        return ()
    degrees, ep = [], 2
    while ep <= model.num_experts:
        if model.num_experts % ep == 0 and data_parallel % ep == 0:
            degrees.append(ep)
        ep *= 2
    return tuple(degrees)
