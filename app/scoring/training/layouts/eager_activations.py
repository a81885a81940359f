"""What an eager (uncompiled) PyTorch Llama layer saves for its backward, tensor by tensor, in bytes per token.

Korthikanti et al.'s count (memory.activation_bytes: 18 × hidden + 6 × FFN width bytes a token a layer) is of fused
kernels. An eager layer saves, per token:
- each of its two RMSNorms: the input's fp32 upcast (4 B × hidden: `x.float()`, the residual itself where it is fp32),
  the normalized tensor in the residual's dtype where the norm's scale is trained (its gradient needs it), and the
  bf16 output the next matmul saves (2 B × hidden); a fused F.rms_norm saves only its input and that output;
- attention: q, k and v after RoPE (bf16; k and v repeated to every query head where the stack expands them before
  SDPA), the attention output the o-projection saves (bf16, the same tensor), and the kernel's fp32 logsumexp per head;
- the gated MLP: the gate and up projections' outputs, SiLU's output and their product (bf16, 8 B × FFN width).
The residual stream is fp32 where full-weight training keeps fp32 weights under autocast (mixed-precision AdamW on one
replica: the embedding's output is fp32 and each block adds its bf16 output to it), bf16 otherwise (a bf16 base under
LoRA, pure-bf16 AdamW, FSDP's or DeepSpeed's bf16 compute weights).
Measured: a plain eager loop (benchmarks/device/train_step.py, PLAIN_LOOP_LAYER) stores this to within 0.5 % on every
no-recompute row of docs/measurements/h200-2026-12-04-train-step.json (forward_end − start − the loss's fp32
log-probabilities − autocast's bf16 weight copies, which model_states' bf16 weights stand for).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.specs import ModelSpec
from app.scoring.training.layouts.optimizer import StateRecipe
from app.scoring.training.step.frameworks import split_stack

FP32_BYTES, BF16_BYTES = 4.0, 2.0


@dataclass(frozen=True, slots=True)
class EagerLayer:
    """How a stack's eager Llama layer is written: RMSNorm as separate ops or one fused kernel, and whether k and v
    are repeated to every query head before attention (grouped-query attention expanded) or passed as they are."""

    decomposed_norm: bool
    expanded_kv: bool
    source: str


# torchtune (the "pytorch" stack's recipes, `compile: False` by default): torchtune/modules/rms_norm.py RMSNorm
# (`x_fp32 = x.float()`, `x_normed = (...).type_as(x)`, `x_normed * self.scale`), modules/attention.py
# MultiHeadAttention (`k.unsqueeze(2).expand(expand_shape).flatten(1, 2)` before SDPA), modules/feed_forward.py.
TORCHTUNE_LAYER = EagerLayer(
    decomposed_norm=True,
    expanded_kv=True,
    source="torchtune's RMSNorm (x.float(), type_as, × scale), k/v expanded to every head before SDPA",
)
# HF Trainer (no torch.compile unless `torch_compile=True`): transformers models/llama/modeling_llama.py LlamaRMSNorm
# (`hidden_states.to(torch.float32)`, `self.weight * hidden_states.to(input_dtype)`), and sdpa_attention_forward's
# repeat_kv wherever an attention mask is passed (integrations/sdpa_attention.py use_gqa_in_sdpa: enable_gqa only
# without one), taken as the stack's default on the side that never under-sizes.
HF_LAYER = EagerLayer(
    decomposed_norm=True,
    expanded_kv=True,
    source="transformers' LlamaRMSNorm (to(float32), × weight), repeat_kv before SDPA where a mask is passed",
)
# Stacks that run eager by default, with how each writes its layer. torchtitan (FSDP2 + `compile.enable` in its
# published runs, fused RMSNorm), Megatron-LM and NeMo (Transformer Engine's fused LayerNormLinear, fused SwiGLU) and
# LLM Foundry (flash-attn's fused kernels) keep the fused count.
EAGER_STACK_LAYERS = {"pytorch": TORCHTUNE_LAYER, "hf": HF_LAYER}
# The H200 run's plain loop: F.rms_norm (one fused kernel) and SDPA with enable_gqa (k and v as they are).
PLAIN_LOOP_LAYER = EagerLayer(
    decomposed_norm=False, expanded_kv=False, source="F.rms_norm and SDPA with enable_gqa (benchmarks/device)"
)


def stack_layer(framework: str, method: str = "") -> EagerLayer | None:
    """The eager layer a stack runs by default, None for a stack whose kernels are fused or compiled. QLoRA under
    "auto" runs HF Trainer + PEFT (frameworks.split_stack): HF's layer, which the split it takes must hold."""
    return EAGER_STACK_LAYERS.get(split_stack(framework, method))


def fp32_residual(method: str, recipe: StateRecipe, zero_stage: int) -> bool:
    """The residual stream is fp32: full-weight mixed-precision AdamW with the states on the GPU and no ZeRO/FSDP
    (PyTorch AMP on fp32 weights); ZeRO and FSDP compute in bf16 weights, LoRA on a bf16 base."""
    full_weight = method in ("pretrain", "full_ft")
    return full_weight and recipe.optimizer == "adamw" and recipe.offload == "none" and zero_stage == 0


@dataclass(frozen=True, slots=True)
class EagerCoefficients:
    """Bytes per token of one eager layer as multiples of its widths: hidden, query width (heads × head dim), k/v
    width (kv heads × head dim), heads (logsumexp) and FFN width."""

    hidden: float
    query: float
    kv: float
    heads: float = FP32_BYTES
    ffn: float = 4 * BF16_BYTES  # gate and up outputs, SiLU's output, their product

    def bytes_per_token(self, model: ModelSpec, ffn_width: float) -> float:
        kv_width = model.num_kv_heads * model.head_dim
        query_width = model.num_attention_heads * model.head_dim
        return (
            self.hidden * model.hidden_size
            + self.query * query_width
            + self.kv * kv_width
            + self.heads * model.num_attention_heads
            + self.ffn * ffn_width
        )


def eager_coefficients(layer: EagerLayer, fp32_stream: bool, full_weight: bool) -> EagerCoefficients:
    """The bytes per token of each width for `layer` (module docstring): two norms, q/k/v, the attention output."""
    residual = FP32_BYTES if fp32_stream else BF16_BYTES
    if layer.decomposed_norm:
        norm = FP32_BYTES + (residual if full_weight else 0.0) + BF16_BYTES
    else:
        norm = residual + BF16_BYTES
    query = 2 * BF16_BYTES  # q and the attention output
    kv = 2 * BF16_BYTES  # k and v
    if layer.expanded_kv:
        return EagerCoefficients(hidden=2 * norm, query=query + kv, kv=0.0)
    return EagerCoefficients(hidden=2 * norm, query=query, kv=kv)
