"""A custom model's architecture, as the catalog's model table holds one, and the rules its fields must meet."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.scoring.explain import significant
from app.scoring.hf_config.adapter_layout_checks import fused_needs_experts, nope_completes_head_dim
from app.scoring.input_checks.numbers_only import NumbersNotBooleans

# Validation context of an architecture whose params_b hf_config counted from the shape itself: nothing to check.
PARAMS_COUNTED = "params_counted"


class ModelArchitecture(NumbersNotBooleans):
    """A custom model, for models not in the catalog (fields as in the catalog's model table)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("custom", min_length=1, max_length=80, description="display name")
    params_b: float = Field(ge=0.001, le=10_000, description="total parameters, billions (at least 1 M)")
    active_params_b: float | None = Field(None, ge=0.001, le=10_000, description="active per token (MoE)")
    layers: int = Field(ge=1, le=1_000, description="transformer layers")
    hidden_size: int = Field(ge=64, le=131_072, description="model width (d_model)")
    num_attention_heads: int = Field(ge=1, le=1_024, description="query heads per layer")
    num_kv_heads: int | None = Field(
        None, ge=1, le=1_024, description="key/value heads per layer; blank = num_attention_heads"
    )
    head_dim: int | None = Field(
        None, ge=8, le=1_024, validate_default=True, description="width of one head; blank = hidden_size ÷ heads"
    )
    intermediate_size: int = Field(ge=1, le=1_048_576, description="the dense FFN's hidden width")
    vocab_size: int = Field(32_000, ge=1, le=2_000_000, description="tokens in the vocabulary")
    num_experts: int = Field(0, ge=0, le=1_024, description="routed experts per MoE layer; 0 = dense")
    experts_per_token: int = Field(
        0, ge=0, le=64, validate_default=True, description="routed experts each token runs through (MoE)"
    )
    moe_intermediate_size: int = Field(0, ge=0, le=1_048_576, description="one routed expert's FFN hidden width")
    num_shared_experts: int = Field(0, ge=0, le=64, description="experts every token runs through besides the routed")
    moe_layers: int | None = Field(
        None, ge=0, le=1_000, description="layers with routed experts (the rest: a dense FFN); blank = every layer"
    )
    attention: Literal["mha", "gqa", "mla"] = Field("gqa", description="mha | gqa | mla (DeepSeek's latent KV)")
    kv_lora_rank: int = Field(
        0, ge=0, le=65_536, validate_default=True, description="MLA's compressed KV width; 0 otherwise"
    )
    qk_rope_head_dim: int = Field(0, ge=0, le=1_024, description="MLA's per-head RoPE key width; 0 otherwise")
    # MLA's other projection sizes and fused experts: what a LoRA run adapts (training.layouts.lora_adapters).
    q_lora_rank: int = Field(0, ge=0, le=65_536, description="MLA: the query's latent rank (q_a_proj); 0 = one q_proj")
    qk_nope_head_dim: int = Field(
        0, ge=0, le=1_024, description="MLA: per-head query/key width without RoPE (+ qk_rope_head_dim = head_dim)"
    )
    v_head_dim: int = Field(0, ge=0, le=1_024, description="MLA: per-head value width (0: attention counted as GQA)")
    experts_fused: bool = Field(
        False, description="routed experts held as fused parameters that PEFT's all-linear leaves frozen (gpt-oss)"
    )
    router_fused: bool = Field(False, description="the router too is a bare parameter, not an nn.Linear (gpt-oss)")
    max_context: int | None = Field(None, ge=1, le=10_000_000, description="tokens; blank = not stated")
    # Sliding-window attention (config.json sliding_window, layer_types: app.scoring.hf_config.sliding): those layers
    # attend to, and cache, only the last sliding_window tokens.
    sliding_window: int = Field(
        0, ge=0, le=10_000_000, description="tokens a sliding-window layer attends to; 0 = none"
    )
    sliding_layers: int | None = Field(
        None, ge=0, le=1_000, description="layers with the sliding window; blank = every layer when there is one"
    )
    # The checkpoint as released, where a pasted config.json's quantization_config says
    # (app.scoring.hf_config.quantization):
    # the weight dtype ranked when the question names none, as a catalog model's release_precision.
    release_precision: Literal["unknown", "bf16", "fp8", "mxfp4", "int4", "fp4", "int8", "int8_w8a8"] = Field(
        "unknown", description="the precision the weights are released in; unknown: BF16 assumed"
    )
    quantization: str = Field(
        "", max_length=120, description="the config.json quantization_config the release precision was read from"
    )

    # Checks across fields are field validators on the later field, so an error names the field to change.
    @field_validator("active_params_b")
    @classmethod
    def _active_within_total(cls, value: float | None, info: ValidationInfo) -> float | None:
        total = info.data.get("params_b")
        if value is not None and total is not None and value > total:
            raise ValueError(
                f"the active parameters ({significant(value)} B) cannot exceed the total, params_b "
                f"({significant(total)} B)"
            )
        return value

    @field_validator("num_kv_heads")
    @classmethod
    def _kv_heads_fit(cls, value: int | None, info: ValidationInfo) -> int | None:
        heads = info.data.get("num_attention_heads")
        if value and heads and value > heads:
            raise ValueError(f"num_kv_heads ({value}) cannot exceed num_attention_heads ({heads})")
        if value and heads and heads % value:
            raise ValueError(f"must divide num_attention_heads ({heads}): each KV head serves a group of query heads")
        return value

    @field_validator("head_dim")
    @classmethod
    def _heads_divide_hidden(cls, value: int | None, info: ValidationInfo) -> int | None:
        hidden, heads = info.data.get("hidden_size"), info.data.get("num_attention_heads")
        if value is None and hidden and heads and hidden % heads:  # as hf_config's check
            raise ValueError(
                f"hidden_size ({hidden:,}) is not divisible by num_attention_heads ({heads}); give head_dim"
            )
        return value

    @field_validator("experts_per_token")
    @classmethod
    def _experts_exist(cls, value: int, info: ValidationInfo) -> int:
        experts = info.data.get("num_experts")
        if experts is not None and value > experts:
            raise ValueError(f"experts_per_token ({value}) cannot exceed num_experts ({experts})")
        if value == 0 and experts:  # as hf_config's num_experts_per_tok
            raise ValueError("a mixture of experts (num_experts > 0) routes each token to at least 1 expert")
        return value

    @field_validator("moe_layers")
    @classmethod
    def _moe_layers_within_layers(cls, value: int | None, info: ValidationInfo) -> int | None:
        layers, experts = info.data.get("layers"), info.data.get("num_experts")
        if value is None:
            return value
        if layers is not None and value > layers:
            raise ValueError(f"{value} MoE layers is more than the model's {layers} layers")
        if experts and value == 0:
            raise ValueError("a mixture of experts (num_experts > 0) has at least 1 MoE layer; blank = every layer")
        if value and experts == 0:
            raise ValueError("MoE layers need routed experts (num_experts > 0)")
        return value

    @field_validator("sliding_layers")
    @classmethod
    def _sliding_layers_within_layers(cls, value: int | None, info: ValidationInfo) -> int | None:
        layers, window = info.data.get("layers"), info.data.get("sliding_window")
        if value and not window:
            raise ValueError("sliding layers need a sliding window (sliding_window > 0)")
        if value is not None and layers is not None and value > layers:
            raise ValueError(f"{value} sliding layers is more than the model's {layers} layers")
        return value

    @field_validator("attention")
    @classmethod
    def _mha_has_every_kv_head(cls, value: str, info: ValidationInfo) -> str:
        kv_heads, heads = info.data.get("num_kv_heads"), info.data.get("num_attention_heads")
        if value == "mha" and kv_heads is not None and heads is not None and kv_heads != heads:
            raise ValueError(
                f"mha keeps one KV head per attention head ({heads}), not {kv_heads}: use gqa for fewer KV heads"
            )
        return value

    @field_validator("kv_lora_rank")
    @classmethod
    def _mla_has_a_latent(cls, value: int, info: ValidationInfo) -> int:
        if info.data.get("attention") == "mla" and value < 1:  # MLA caches the latent: rank 0 means no KV at all
            raise ValueError("attention mla needs kv_lora_rank >= 1")
        return value

    @field_validator("q_lora_rank", "qk_nope_head_dim", "v_head_dim")
    @classmethod
    def _mla_sizes_need_mla(cls, value: int, info: ValidationInfo) -> int:
        if value and info.data.get("attention") != "mla":
            raise ValueError(f"{info.field_name} is MLA's: give attention mla, or leave it 0")
        return value

    @field_validator("qk_nope_head_dim")
    @classmethod
    def _nope_completes_head_dim(cls, value: int, info: ValidationInfo) -> int:
        data = info.data
        heads = max(1, data.get("num_attention_heads") or 1)
        head_dim = data.get("head_dim") or (data.get("hidden_size") or 0) // heads  # blank: hidden ÷ heads
        return nope_completes_head_dim(value, head_dim, data.get("qk_rope_head_dim") or 0)

    @field_validator("experts_fused", "router_fused")
    @classmethod
    def _fused_needs_experts(cls, value: bool, info: ValidationInfo) -> bool:
        return fused_needs_experts(value, info.data.get("num_experts"))

    @model_validator(mode="after")
    def _params_fit_the_shape(self, info: ValidationInfo) -> ModelArchitecture:
        """params_b must be near what the layers and widths hold (app.scoring.hf_config.params_check): the error names
        params_b, the field to change, though every other field is read to judge it."""
        if (info.context or {}).get(PARAMS_COUNTED):
            return self
        # it counts with hf_config, which imports this module
        from app.scoring.hf_config.params_check import params_b_problem

        problem = params_b_problem(self.params_b, self)
        if problem is not None:
            error = PydanticCustomError("value_error", "{problem}", {"problem": problem})
            details = [InitErrorDetails(type=error, loc=("params_b",), input=self.params_b)]
            raise ValidationError.from_exception_data(type(self).__name__, details)
        return self
