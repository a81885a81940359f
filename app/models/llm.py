"""The model tables: LLM architectures (from config.json or the paper) and serverless per-token prices.

Units are in the field names; every spec and price row keeps its source."""

from __future__ import annotations

from datetime import date

from pydantic import ValidationInfo, field_validator, model_validator
from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.catalog import rules
from app.scoring.hf_config.adapter_layout_checks import fused_needs_experts, nope_completes_head_dim
from app.scoring.specs import RELEASE_PRECISIONS


class LlmModelBase(SQLModel):
    """A model architecture from its Hugging Face config.json or paper."""

    name: str = Field(max_length=120, description="display name")
    params_b: float = Field(gt=0, description="total parameters, billions")
    active_params_b: float = Field(gt=0, description="parameters active per token, billions (MoE: fewer than params_b)")
    layers: int = Field(ge=1, description="transformer layers")
    hidden_size: int = Field(description="model width (d_model)")
    num_attention_heads: int = Field(description="query heads per layer")
    num_kv_heads: int = Field(description="key/value heads per layer")
    head_dim: int = Field(description="width of one attention head")
    intermediate_size: int = Field(description="the dense FFN's hidden width")
    vocab_size: int = Field(description="tokens in the vocabulary")
    num_experts: int = Field(default=0, description="routed experts per MoE layer; 0 = dense")
    experts_per_token: int = Field(default=0, description="routed experts each token runs through (MoE)")
    moe_intermediate_size: int = Field(default=0, description="one routed expert's FFN hidden width")
    num_shared_experts: int = Field(default=0, description="experts every token runs through besides the routed")
    # Layers with routed experts (the rest have a dense FFN of intermediate_size); 0 for a MoE model: every layer.
    moe_layers: int = Field(
        default=0,
        ge=0,
        description="layers with routed experts (the rest: a dense FFN of intermediate_size); every layer of "
        "a MoE model where its config does not say",
    )
    attention: str = Field(default="gqa", max_length=8, description="mha | gqa | mla (DeepSeek's latent KV)")
    kv_lora_rank: int = Field(default=0, description="MLA's compressed KV width; 0 otherwise")
    qk_rope_head_dim: int = Field(default=0, description="MLA's per-head RoPE key width; 0 otherwise")
    # MLA's other projection sizes (config.json; 0 = not given: LoRA counts the attention as GQA) and experts held as
    # fused parameters that PEFT's all-linear leaves frozen (router_fused: the router too), as ModelSpec reads them.
    q_lora_rank: int = Field(default=0, ge=0, description="MLA: the query's latent rank (q_a_proj); 0 = one q_proj")
    qk_nope_head_dim: int = Field(
        default=0, ge=0, description="MLA: per-head query/key width without RoPE (+ qk_rope_head_dim = head_dim)"
    )
    v_head_dim: int = Field(default=0, ge=0, description="MLA: per-head value width (0: attention counted as GQA)")
    experts_fused: bool = Field(
        default=False,
        description="routed experts held as fused parameters that PEFT's all-linear leaves frozen (gpt-oss)",
    )
    router_fused: bool = Field(
        default=False, description="the router too is a bare parameter, not an nn.Linear (gpt-oss)"
    )
    max_context: int | None = Field(
        default=None, description="longest context the model takes, tokens (null: not stated)"
    )
    # Sliding-window attention: `sliding_layers` of the layers keep only the last `sliding_window` tokens.
    sliding_window: int = Field(default=0, ge=0, description="tokens a sliding-window layer attends to; 0 = none")
    sliding_layers: int = Field(default=0, ge=0, description="layers with the sliding window (0: none)")
    # The checkpoint's precision as released (bf16 | fp8 | mxfp4 | unknown: BF16 assumed), and where that was read.
    release_precision: str = Field(
        default="unknown",
        max_length=8,
        description="the checkpoint's precision as released: bf16 | fp8 | mxfp4 | unknown (BF16 assumed); an "
        "inference question without weight_dtype ranks it",
    )
    release_precision_source: str = Field(
        default="", max_length=500, description="where the release precision was read"
    )
    source_url: str = Field(max_length=500, description="where the architecture was read (config.json or the paper)")
    notes: str = Field(default="", max_length=4000, description="how the figures were read, and caveats")

    @field_validator("moe_layers")
    @classmethod
    def _moe_layers(cls, value: int, info: ValidationInfo) -> int:
        layers, experts = info.data.get("layers"), info.data.get("num_experts")
        if layers is not None and value > layers:
            raise ValueError(f"{value} MoE layers is more than the model's {layers} layers")
        if value and not experts:
            raise ValueError("MoE layers need routed experts (num_experts > 0)")
        if experts and not value:  # a row that does not say: every layer, as ModelSpec reads it
            return layers or 0
        return value

    @field_validator("qk_nope_head_dim")
    @classmethod
    def _nope_completes_head_dim(cls, value: int, info: ValidationInfo) -> int:
        if value and info.data.get("attention") != "mla":
            raise ValueError("qk_nope_head_dim is MLA's: attention must be mla")
        return nope_completes_head_dim(value, info.data.get("head_dim"), info.data.get("qk_rope_head_dim") or 0)

    @field_validator("experts_fused", "router_fused")
    @classmethod
    def _fused_needs_experts(cls, value: bool, info: ValidationInfo) -> bool:
        return fused_needs_experts(value, info.data.get("num_experts"))

    @field_validator("sliding_layers")
    @classmethod
    def _sliding_layers(cls, value: int, info: ValidationInfo) -> int:
        layers = info.data.get("layers")
        if layers is not None and value > layers:
            raise ValueError(f"{value} sliding layers is more than the model's {layers} layers")
        if value and not info.data.get("sliding_window"):
            raise ValueError("sliding layers need a sliding_window")
        return value

    @field_validator("release_precision")
    @classmethod
    def _release_precision(cls, value: str) -> str:
        if value not in RELEASE_PRECISIONS:
            raise ValueError(f"must be one of {', '.join(RELEASE_PRECISIONS)}, not {value[:20]!r}")
        return value

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class LlmModel(LlmModelBase, table=True):
    __tablename__ = "model"

    id: str = Field(primary_key=True, max_length=64)


class TokenPriceBase(SQLModel):
    """A serverless per-token price; model_id is null when the model is not in the catalog."""

    provider_id: str = Field(
        foreign_key="provider.id", index=True, max_length=64, description="the seller's catalog id"
    )
    model_id: str | None = Field(
        default=None,
        foreign_key="model.id",
        index=True,
        max_length=64,
        description="the catalog model it serves (null: a model not in the catalog)",
    )
    provider_model_id: str = Field(max_length=200, description="the model's id in the provider's API")
    model_name: str = Field(default="", max_length=200, description="the model's name as the provider lists it")
    input_usd_per_mtok: float = Field(ge=0, le=10_000, description="$ per million input (prompt) tokens")
    output_usd_per_mtok: float = Field(ge=0, le=10_000, description="$ per million output (generated) tokens")
    # Prompt tokens served from the provider's prefix cache (null = not published, not zero).
    cached_input_usd_per_mtok: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="$ per million prompt tokens served from the provider's prefix cache (null: not "
        "published, not zero)",
    )
    lora_serving: str = Field(default="unknown", max_length=10, description="yes | no | unknown")
    lora_source: str = Field(default="", max_length=1000, description="where lora_serving was read")
    as_of: date | None = Field(default=None, description="the day the price was read (null: undated)")
    # How as_of reads: exact (the day it was read), on_or_before (an upper bound: a maintained table read that
    # day, the entry's own date unknown), approximate (year only); "" = not stated, read as exact.
    as_of_basis: str = Field(default="", max_length=20, description="exact | on_or_before | approximate")
    # Flags carried from the reference: such a price is listed, labelled, and never the cheapest to compare with.
    unverified: bool = Field(default=False, description="the reference flags the price UNVERIFIED (placeholder-like)")
    deprecated: bool = Field(default=False, description="the provider has deprecated or retired the model")
    # Doubts carried from the reference that still let a price be compared, labelled
    # (app/scoring/pricing/token_prices.py): another source's figures (null = none), an endpoint the provider may have
    # retired, a source that does not back the figure.
    disputed_input_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="another source's input price for this entry (a CONFLICT)"
    )
    disputed_output_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="another source's output price for this entry (a CONFLICT)"
    )
    availability_unconfirmed: bool = Field(
        default=False, description="the reference asks to verify that the provider still serves the model"
    )
    weak_source: bool = Field(default=False, description="the source the figure was read from does not back it")
    status_note: str = Field(default="", max_length=500, description="the reference's words for each flag")
    source_url: str = Field(max_length=500, description="where the price was read")
    retrieved_via: str = Field(
        default="", max_length=500, description="how it was read, where not straight from source_url"
    )
    verification: str = Field(default="", max_length=500, description="primary or secondary, and how it was checked")
    notes: str = Field(
        default="", max_length=2000, description="anything else the reference says (regions, tiers, ...)"
    )

    @field_validator("as_of_basis")
    @classmethod
    def _as_of_basis(cls, value: str) -> str:
        return rules.as_of_basis(value)

    @model_validator(mode="after")
    def _disputed_pair(self) -> TokenPriceBase:
        if (self.disputed_input_usd_per_mtok is None) != (self.disputed_output_usd_per_mtok is None):
            raise ValueError(
                "disputed_input_usd_per_mtok and disputed_output_usd_per_mtok: give both of the other source's "
                "figures, or neither"
            )
        return self

    @field_validator("lora_serving")
    @classmethod
    def _lora_serving(cls, value: str) -> str:
        return rules.one_of(value, rules.LORA_SERVING)

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: date | None) -> date | None:
        return rules.not_future(value)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class TokenPrice(TokenPriceBase, table=True):
    __tablename__ = "token_price"
    __table_args__ = (UniqueConstraint("provider_id", "provider_model_id", name="uq_token_price_natural"),)

    id: int | None = Field(default=None, primary_key=True)
