"""A MoE efficiency factor spread over the layers that carry routed experts, for inference and training alike.

DeepSeek-V3 routes on 58 of its 61 layers (the first 3 are dense), Llama 4 Maverick on 24 of 48 (ModelSpec.moe_layers):
their dense layers' matmuls run at the dense rate, so a factor fitted or sourced for a model with experts on every
layer falls on the MoE layers' share only.
"""

from __future__ import annotations

from app.scoring.specs import ModelSpec


def moe_layer_share(model: ModelSpec) -> float:
    """MoE layers / layers: 1 for a model with experts on every layer, 0 for a dense one."""
    return model.moe_layers / model.layers if model.is_moe and model.layers else 0.0


def moe_layer_factor(factor: float, moe_layer_share: float) -> float:
    """A MoE efficiency factor applied to the MoE layers' share of the work only: 1 - (1 - factor) x share (the whole
    factor on a model with experts on every layer)."""
    return 1.0 - (1.0 - factor) * moe_layer_share
