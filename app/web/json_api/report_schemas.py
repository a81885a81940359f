"""Response pieces the feature APIs (/rank, /plan, /disagg, /mix, /own, /precision) share, for /docs."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field


class TermOut(BaseModel):  # one term of a cost or latency sum (no docstring: it would show in /docs)
    name: str = Field(description="what the term is (decode weight read, prefill, $ per GPU-hour)")
    value: float = Field(description="the term's value, in `unit`")
    unit: str = Field(description="the value's unit (ms, GB, $/h, tokens/s, ×); empty for a pure number")
    detail: str = Field(description="how it was computed: the formula with its figures, and its source")


CATALOG_VERSION = "the catalog this was answered from (changes with any price, offer or staleness change)"


class ModelRef(BaseModel):
    id: str = Field(description="catalog model id; custom for a custom model or a pasted config.json")
    name: str = Field(description="display name")
    params_b: float = Field(description="parameters, billions")


class PriceProvenanceOut(BaseModel):  # beside a row's price: its note, its caveats' labels, the page it was read from
    price_note: str = Field("", description="the price's terms in words, as the source gives them")
    price_caveats: list[str] = Field(default_factory=list, description="labels of the note's caveats")
    price_source_url: str = Field("", description="where the price was read")
    stale: bool = Field(False, description="older than the stale-after days, or undated")


class MeanLatencyOut(BaseModel):
    """A feature page's latencies: means, named as the rank API names them, beside their deprecated old names."""

    ttft_mean_ms: float = Field(description="mean time to first token, ms (a limit ttft_ms is a p99)")
    tpot_mean_ms: float = Field(description="mean time per output token after the first, ms (a limit tpot_ms is a p99)")
    ttft_ms: float = Field(description="deprecated name of ttft_mean_ms (the same value: the mean)", deprecated=True)
    tpot_ms: float = Field(description="deprecated name of tpot_mean_ms (the same value: the mean)", deprecated=True)


# The rank rows' words for the p99s (option_schemas takes them from here, so every face says them alike).
TTFT_P99 = "p99 time to first token, ms: what the request's ttft_ms limit is checked against"
TPOT_P99 = "p99 time per output token, ms: what the request's tpot_ms limit is checked against"


class P99LatencyOut(BaseModel):
    """Beside a feature page's means, the p99s its limits are checked against, named as the rank rows name them."""

    ttft_p99_ms: float = Field(description=TTFT_P99)
    tpot_p99_ms: float = Field(description=TPOT_P99)


class ModelOut(BaseModel):
    """The model as the estimate read it (a catalog entry, a custom_model or a pasted config.json)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="catalog id; custom for a custom_model or hf_config")
    name: str = Field(description="display name")
    params_b: float = Field(description="parameters, billions")
    active_params_b: float = Field(description="parameters active per token, billions (a mixture of experts: fewer)")
    layers: int = Field(description="transformer layers")
    hidden_size: int = Field(description="model width (d_model)")
    num_attention_heads: int = Field(description="query heads per layer")
    num_kv_heads: int = Field(description="key/value heads per layer (fewer than the query heads: GQA)")
    head_dim: int = Field(description="width of one attention head")
    intermediate_size: int = Field(description="the dense FFN's hidden width")
    vocab_size: int = Field(description="tokens in the vocabulary")
    num_experts: int = Field(description="0 for a dense model")
    experts_per_token: int = Field(description="routed experts each token runs through; 0 for a dense model")
    moe_intermediate_size: int = Field(description="one routed expert's FFN hidden width; 0 for a dense model")
    num_shared_experts: int = Field(description="experts every token runs through besides the routed ones")
    attention: str = Field(description="mha | gqa | mla")
    kv_lora_rank: int = Field(description="MLA's compressed KV width; 0 otherwise")
    qk_rope_head_dim: int = Field(description="MLA's per-head RoPE key width; 0: not MLA")
    max_context: int | None = Field(description="tokens; null: not stated")
    source_url: str = Field(description="where the architecture was read (the config.json); empty for a custom model")
    sliding_window: int = Field(
        description="tokens the sliding-window layers attend to (chunked attention: one chunk, its upper bound); "
        "0 = none"
    )
    sliding_layers: int = Field(description="layers that attend to the sliding window only")
    release_precision: str = Field(
        description="the checkpoint as released: bf16 | fp8 | mxfp4 | unknown (BF16 assumed); a custom model's "
        "config.json may also give int4 | fp4 | int8 | int8_w8a8; an inference ranking without a weight_dtype ranks "
        "this precision"
    )
    release_precision_source: str = Field(description="where the release precision was read")
    moe_layers: int = Field(
        description="layers with routed experts (the others have a dense FFN of intermediate_size); 0 for a dense model"
    )
    quantization: str = Field(
        description="a custom model's config.json quantization_config, in words (quant_method fp8); empty otherwise"
    )
    q_lora_rank: int = Field(description="MLA's query latent rank (q_a_proj width); 0: one q_proj, or not MLA")
    qk_nope_head_dim: int = Field(description="MLA's per-head query/key width without RoPE; 0: not MLA or not given")
    v_head_dim: int = Field(description="MLA's per-head value width; 0: not MLA or not given")
    experts_fused: bool = Field(
        description="routed experts held as fused parameters that PEFT's all-linear LoRA leaves frozen "
        "(gpt-oss, Llama 4)"
    )
    router_fused: bool = Field(description="the router too is a bare parameter, not an nn.Linear (gpt-oss)")


class ServerlessQuoteFields(BaseModel):
    """A per-token API price for the model (or a comparable listed one), with its labels."""

    model_config = ConfigDict(extra="forbid")

    provider: str = Field(description="provider id")
    provider_name: str = Field(description="provider display name")
    model_id: str = Field(description="catalog id of the model priced (a substitute's own id)")
    model_name: str = Field(description="display name of the model priced")
    input_usd_per_mtok: float = Field(description="$ per million prompt tokens (a disputed price: the higher figure)")
    output_usd_per_mtok: float = Field(description="$ per million output tokens (a disputed price: the higher figure)")
    usd_per_request: float = Field(description="$ per request at the workload's lengths")
    as_of: date | None = Field(description="the price's date; null: undated")
    source_url: str = Field(description="the page the price was read from")
    substitute: bool = Field(
        description="priced for a comparable model (same dense/MoE kind, near in active and total parameters), "
        "not the one asked about"
    )
    substitute_reason: str = Field(description="a substitute: which model stood in and why it is comparable")
    lora_serving: str = Field(description="yes | no | unknown: the provider serves your LoRA adapter at this price")
    cached_input_usd_per_mtok: float | None = Field(
        description="$ per million cached prompt tokens; null: not published"
    )
    prefix_cache_hit: float = Field(description="share of prompt tokens billed at the cached-input price")
    cache_note: str = Field(description="how the prompt was billed where prefix_cache_hit was given")
    provider_model_id: str = Field(description="the provider's name for the model (two entries of one model differ)")
    as_of_basis: str = Field(description="exact | on_or_before | approximate; empty: not stated")
    as_of_label: str = Field(description="the date as the reference gives it: 2026-11-05, ≤2026-12-01, ~2025, undated")
    unverified: bool = Field(description="the reference flags the price UNVERIFIED: listed, never compared with")
    deprecated: bool = Field(description="the provider has deprecated or retired the model: listed, never compared")
    stale: bool = Field(description="older than the stale-after days, or undated: compared only with include_stale")
    flags: list[str] = Field(description="the price's labels: why it is not compared, a doubt on it, stale")
    status_note: str = Field(description="the reference's words for each of the flags")
    comparable: bool = Field(description="may be the cheapest compared price (current and verified, or stale if asked)")
    disputed: bool = Field(
        description="another source gives other figures: input/output_usd_per_mtok are the higher of each"
    )
    listed_input_usd_per_mtok: float | None = Field(
        description="a disputed price: the catalog entry's own $ per million prompt tokens; null: not disputed"
    )
    listed_output_usd_per_mtok: float | None = Field(
        description="a disputed price: the catalog entry's own $ per million output tokens; null: not disputed"
    )
    disputed_input_usd_per_mtok: float | None = Field(
        description="a disputed price: the other source's $ per million prompt tokens; null: not disputed"
    )
    disputed_output_usd_per_mtok: float | None = Field(
        description="a disputed price: the other source's $ per million output tokens; null: not disputed"
    )
    usd_per_request_lower: float | None = Field(description="a disputed price's request at the lower figures")
    availability_unconfirmed: bool = Field(
        description="the provider may no longer serve the model (the reference says verify): compared, labelled"
    )
    weak_source: bool = Field(description="the page the figure was read from does not back it: compared, labelled")
    provider_model_name: str = Field(
        description="the model as the provider lists it, which may be its own variant (DeepSeek-R1-0528 for the "
        "catalog's DeepSeek-R1): the verdict and break-even name it where it differs from model_name"
    )


class WeightsOut(BaseModel):
    """The weight dtype an inference answer ranked, and whether it is the model's release precision."""

    model_config = ConfigDict(extra="forbid")

    weight_dtype: str = Field(description="the dtype ranked (the workload's weight_dtype)")
    from_release: bool = Field(description="the question left weight_dtype unset: the release precision's dtype")
    release_precision: str = Field(
        description="bf16 | fp8 | mxfp4 (a custom model's config.json: also int4 | fp4 | int8 | int8_w8a8): the model "
        "as released (mxfp4 ranks as int4 W4A16; int8_w8a8 as int8 W8A16 on llamacpp and hf, which run no W8A8)"
    )
    release_assumed: bool = Field(description="the catalog does not know the release precision: BF16 assumed")
    release_source: str = Field(description="where the release precision was read")
    note: str = Field(description="the same in words (also the last of the notes)")


# /plan's, /mix's and /disagg's aggregated idle_gpus_at_peak and fleet_note: GPUs spare at the peak, not idle as a
# /disagg pool's are (no copy runs on them); one word said both before (found by small2)
SPARE_AT_PEAK = (
    "spare, billed beyond the copies the peak needs: the peak's requests are counted onto those copies, each timed at "
    "the load the ranking sized it for, whether or not the rented instances hold more copies (not a /disagg pool's "
    "idle_gpus_at_peak, GPUs no copy runs on, whose every copy serves a share of the peak); the name is kept"
)
SPARE_WORDS = (
    "idle_gpus_at_peak in words: 'one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are billed, "
    "spare at peak'; empty where none is spare"
)
# /plan's and /disagg's aggregated fleet_note where its instances are the ranked row's (spread2)
SPARE_OR_SPREAD_WORDS = SPARE_WORDS + (
    "; where the spare GPUs would hold whole copies, what running them says instead (the ranked row's "
    "copies_at_peak_if_spread, spread_ttft_p99_ms and spread_tpot_p99_ms): 'one copy serves the peak; run 8 copies "
    "on the 8 billed GPUs and the peak's p99 TTFT falls to 62 ms, TPOT to 9.1 ms'"
)
