"""Sliding-window attention from a config.json: the window, and how many layers use it.

Those layers attend to, and cache, only the last `sliding_window` tokens (ModelSpec.sliding_window, sliding_layers).
Read in this order, as transformers and vLLM read them:
- `use_sliding_window: false` (Qwen2/Qwen3, whose configs carry a window they do not use): none;
- no `sliding_window`, or null or 0: none;
- `layer_types` (gpt-oss, newer Gemma and Qwen configs): the layers named "sliding_attention";
- `sliding_window_pattern` p (Gemma 3): every p-th layer is global, the others slide;
- `max_window_layers` m with use_sliding_window true (Qwen2): the layers from m on slide;
- model types whose layers alternate (Gemma 2, Cohere 2): half of them;
- otherwise (Mistral 7B v0.1, Phi-3): every layer.
"""

from __future__ import annotations

from typing import Any

from app.scoring.hf_config import keys

SLIDING = "sliding_attention"  # transformers' layer_types name for a windowed layer
ALTERNATING = frozenset({"gemma2", "cohere2"})  # one sliding layer, one global, in turn (transformers' modelling code)


def read_sliding(config: dict[str, Any], layers: int, model_type: str) -> tuple[int, int]:
    """(window tokens, layers with the window); (0, 0) for a model without one. ValueError names a bad key."""
    if config.get("use_sliding_window") is False:
        return 0, 0
    window = keys.pick(config, ("sliding_window",), required=False, allow_zero=True) or 0
    if not window:
        return 0, 0
    types = config.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise ValueError("hf_config: 'layer_types' must be a list of layer type names")
        if len(types) != layers:
            raise ValueError(f"hf_config: 'layer_types' lists {len(types)} layers, the model has {layers}")
        return window, sum(t == SLIDING for t in types)
    pattern = keys.pick(config, ("sliding_window_pattern",), required=False)
    if pattern:
        return window, layers - layers // pattern
    first = keys.pick(config, ("max_window_layers",), required=False, allow_zero=True)
    if config.get("use_sliding_window") is True and first is not None:
        return window, max(layers - first, 0)
    if model_type in ALTERNATING:
        return window, layers // 2
    return window, layers
