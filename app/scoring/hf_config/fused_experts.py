"""Model families whose routed experts are fused parameter tensors, not nn.Linear modules, so PEFT's all-linear
(which adapts nn.Linear only) leaves them frozen; keyed by config.json `model_type`.

gpt_oss: transformers `GptOssExperts` holds gate_up_proj (experts x hidden x 2·width) and down_proj as nn.Parameter,
and `GptOssTopKRouter` its weight and bias as nn.Parameter too, so all-linear adapts attention alone: OpenAI's
gpt-oss-20b LoRA cookbook (r 8, all-linear plus six expert parameters) prints 15,040,512 trainable parameters, exactly
24 layers x 8 x (q 6,976 + k 3,392 + v 3,392 + o 6,976) plus the six expert adapters, with no router adapter.
llama4 / llama4_text: `Llama4TextExperts` holds gate_up_proj and down_proj as nn.Parameter; `Llama4Router` subclasses
nn.Linear and the shared expert is an nn.Linear MLP (`Llama4TextMLP`), so those are adapted.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FusedExperts:
    experts_fused: bool = False
    router_fused: bool = False


NOT_FUSED = FusedExperts()
FUSED_FAMILIES = {
    "gpt_oss": FusedExperts(experts_fused=True, router_fused=True),
    "llama4": FusedExperts(experts_fused=True),
    "llama4_text": FusedExperts(experts_fused=True),
}


def fused_experts(model_type: str) -> FusedExperts:
    """What a config.json's model_type holds as fused parameters (nothing for the families not listed)."""
    return FUSED_FAMILIES.get(model_type, NOT_FUSED)
