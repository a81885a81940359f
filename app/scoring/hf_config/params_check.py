"""custom_model.params_b held to the architecture it describes: weights are params_b × bytes, so a 70B shape
typed as 0.5 B "fit" one RTX 4090 with 1 GB of weights.

The shape counts its parameters as most checkpoints are built (param_count.shape_param_count: gated MLP, untied
embeddings, experts on its MoE layers: every layer when moe_layers is not given), which the catalog's 76 models and
the validation rows' (all catalog models) hold to within 0.66× (MPT-125M) and 1.01× (Llama 4 Scout). What the shape
cannot say moves a checkpoint below that count, never above it by much: tied embeddings and a 2-matrix MLP (MPT-125M:
0.66×), MoE in half the layers with moe_layers left blank (Llama 4 Maverick: 0.51×), MLA's low-rank query with
q_lora_rank left blank (counted as one q_proj: 678.8 B for DeepSeek-V3's 671.0 B, 0.99×; given, it is counted as its
two projections and norm, as config.json is); and a vision tower or MTP module
outside the text shape adds a few tenths (Llama 3.2 90B Vision: 88.6 B on a 70 B text shape, 1.27×). A factor of 3
either way takes all of these, and still refuses what would mislead: a count in the wrong unit (0.5 for 70 B, 7000
for 7 B) and a MoE's active parameters typed as its total (Mixtral 12.9 B on a 46.7 B shape: 0.28×), which would
size memory for a fraction of the weights. tests/scoring/test_params_check.py runs every catalog model through it.
"""

from __future__ import annotations

from typing import Any

from app.scoring.explain import figure, significant
from app.scoring.hf_config.param_count import shape_param_count

PARAMS_FACTOR = 3.0  # see the module docstring: the catalog spans 0.66-1.01× of the count (0.51× without moe_layers)


def params_b_problem(params_b: float, shape: Any) -> str | None:
    """Why params_b cannot be this shape's total (None when it can)."""
    counted_b = shape_param_count(shape) / 1e9
    if counted_b / PARAMS_FACTOR <= params_b <= counted_b * PARAMS_FACTOR:
        return None
    moe_layers = getattr(shape, "moe_layers", None) or shape.layers
    experts = f", experts on {moe_layers} of {shape.layers} layers" if shape.num_experts else ""
    return (
        f"{significant(params_b)} billion parameters is not this architecture's total: its layers, widths and "
        f"vocabulary hold about {figure(counted_b, 3)} billion parameters (gated MLP, untied embeddings{experts}); "
        f"give the total in billions, within a factor of {significant(PARAMS_FACTOR)} of that count"
    )
