"""The workloads a user describes: validated at the edge, with units in every field name."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.scoring.adapter_layout_checks import fused_needs_experts, nope_completes_head_dim
from app.scoring.dtypes import INT8_W8A8
from app.scoring.efficiency.inference import DP_ATTENTION_ENGINES, ENGINE_TOKEN_BUDGET
from app.scoring.json_bounds import check_bounded_object
from app.scoring.numbers_only import NumbersNotBooleans
from app.scoring.price_terms import INTERRUPTIBLE

# One request in ~12 days: the least traffic any rate field takes. Below it $ per token overflows (a replica
# that is all idle time), and a denormal rate (5e-324) made infinite costs, serialised as null.
MIN_REQUESTS_PER_S = 1e-6
# A replica's GPU limit when none is given: eight nodes of eight. Layouts across nodes are tried only when no single
# node holds the model (a 1T-parameter MoE on Hopper, 405B in bf16), so for every model that fits one node this
# changes nothing; below it, a 2 x 8 H200 replica of Kimi-K2 was never considered.
REPLICA_MAX_GPUS = 64

Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]  # an element's: KV cache, stored weights
# A weight precision as the engine runs it: its element dtype (int8 and int4 weight-only, W8A16 / W4A16; fp8 and fp4
# W8A8 / W4A4 where the GPU has the peak), or int8_w8a8, INT8 weights and activations on the INT8 tensor peak
# (dtypes.INT8_W8A8). A KV cache has no such choice: kv_dtype stays a Dtype.
WeightDtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int8_w8a8", "int4", "fp4"]
# Engines whose KV cache, left at its default, is stored at the model's activation dtype (BF16) whatever the weights:
# vLLM and SGLang `--kv-cache-dtype auto` ("auto will use the model data type"), llama.cpp's f16 cache, Transformers'.
# TensorRT-LLM builds an FP8 checkpoint's cache in FP8 (ModelOpt's kv_cache_quant_algo FP8 in its quantization recipes).
ACTIVATION_DTYPE_KV_ENGINES = frozenset({"vllm", "sglang", "llamacpp", "hf"})
KV_DTYPE_DEFAULT = (
    "default: bf16 on vllm, sglang, llamacpp and hf (their 'auto' keeps the activation dtype); on trtllm the weight "
    "dtype for 8/16-bit weights, else bf16"
)


def default_kv_dtype(weight_dtype: str, engine: str) -> str:
    """The KV-cache dtype an engine uses where the question names none: the weights' dtype for 8/16-bit weights on
    TensorRT-LLM (and engines of unknown kind), BF16 on the engines that keep the activation dtype and for any 4-bit
    or INT8 weights (dequantised to BF16 activations)."""
    if engine in ACTIVATION_DTYPE_KV_ENGINES and weight_dtype == "fp8":
        return "bf16"
    return weight_dtype if weight_dtype in ("fp32", "bf16", "fp16", "fp8") else "bf16"


Engine = Literal["trtllm", "vllm", "sglang", "llamacpp", "hf"]
Scenario = Literal["latency_bound", "max_throughput", "fixed_batch", "concurrency", "request_rate", "single_stream"]
Method = Literal["pretrain", "full_ft", "lora", "qlora"]
FULL_WEIGHT_METHODS = ("pretrain", "full_ft")  # no adapters: lora_rank means nothing to them
Precision = Literal["bf16", "fp16", "fp8", "fp4"]
AttentionParallel = Literal["auto", "tp", "dp"]
ExpertParallel = Literal["tp", "ep"]
Framework = Literal["auto", "megatron", "nemo", "llm-foundry", "torchtitan", "hf", "pytorch"]
Optimizer = Literal["adamw", "adamw_bf16", "adamw_8bit"]  # training.optimizer.STATE_BYTES
Offload = Literal["none", "cpu"]
PriceType = Literal["on_demand", "spot", "reserved", "marketplace", "capacity_block"]  # specs.PRICE_TYPES
RankBy = Literal["auto", "output_tokens", "all_tokens", "requests", "fleet"]
# Where on a p99 latency's p10-p90 band (inference.latency_bands) the TTFT and TPOT limits must hold.
LimitsAt = Literal["estimate", "band_high"]
LIMITS_AT_DESCRIPTION = (
    "where the p99 TTFT and TPOT limits must hold: estimate (or unset) = on the estimated p99; band_high = even at "
    "the slow end of its p10-p90 band (/methodology): a smaller batch and fewer tokens per GPU, never 'limits at "
    "risk'. latency_bound picks the batch by it, request_rate, concurrency and single_stream rank rows over it last, "
    "fixed_batch and max_throughput only report the limits"
)

TRAINING_LIMITS_AT_DESCRIPTION = (
    "where the deadline (and budget) must hold: estimate (or unset) = on the estimated tokens/s; band_high = even at "
    "the slow end of its p10-p90 band (/methodology): a run counts as on time and within budget only if it is at the "
    "band's low tokens/s, so more GPUs or a faster GPU, never 'deadline at risk'"
)


def estimate_is_unset(value: str | None) -> str | None:
    """limits_at estimate is read as unset, so a question without it is written, linked and echoed exactly as before
    the field existed."""
    return None if value == "estimate" else value


ShortId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._\-]+$")]
# Validation context of an architecture whose params_b hf_config counted from the shape itself: nothing to check.
PARAMS_COUNTED = "params_counted"


class ModelArchitecture(NumbersNotBooleans):
    """A custom model, for models not in the catalog (fields as in the catalog's model table)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("custom", min_length=1, max_length=80)
    params_b: float = Field(ge=0.001, le=10_000, description="total parameters, billions (at least 1 M)")
    active_params_b: float | None = Field(None, ge=0.001, le=10_000, description="active per token (MoE)")
    layers: int = Field(ge=1, le=1_000)
    hidden_size: int = Field(ge=64, le=131_072)
    num_attention_heads: int = Field(ge=1, le=1_024)
    num_kv_heads: int | None = Field(None, ge=1, le=1_024)
    head_dim: int | None = Field(None, ge=8, le=1_024, validate_default=True)
    intermediate_size: int = Field(ge=1, le=1_048_576)
    vocab_size: int = Field(32_000, ge=1, le=2_000_000)
    num_experts: int = Field(0, ge=0, le=1_024)
    experts_per_token: int = Field(0, ge=0, le=64, validate_default=True)
    moe_intermediate_size: int = Field(0, ge=0, le=1_048_576)
    num_shared_experts: int = Field(0, ge=0, le=64)
    moe_layers: int | None = Field(
        None, ge=0, le=1_000, description="layers with routed experts (the rest: a dense FFN); blank = every layer"
    )
    attention: Literal["mha", "gqa", "mla"] = "gqa"
    kv_lora_rank: int = Field(0, ge=0, le=65_536, validate_default=True)
    qk_rope_head_dim: int = Field(0, ge=0, le=1_024)
    # MLA's other projection sizes and fused experts: what a LoRA run adapts (training.lora_adapters).
    q_lora_rank: int = Field(0, ge=0, le=65_536, description="MLA: the query's latent rank (q_a_proj); 0 = one q_proj")
    qk_nope_head_dim: int = Field(
        0, ge=0, le=1_024, description="MLA: per-head query/key width without RoPE (+ qk_rope_head_dim = head_dim)"
    )
    v_head_dim: int = Field(0, ge=0, le=1_024, description="MLA: per-head value width (0: attention counted as GQA)")
    experts_fused: bool = Field(
        False, description="routed experts held as fused parameters that PEFT's all-linear leaves frozen (gpt-oss)"
    )
    router_fused: bool = Field(False, description="the router too is a bare parameter, not an nn.Linear (gpt-oss)")
    max_context: int | None = Field(None, ge=1, le=10_000_000)
    # The checkpoint as released, where a pasted config.json's quantization_config says (app.scoring.hf_quantization):
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
            raise ValueError(f"the active parameters ({value:g} B) cannot exceed the total, params_b ({total:g} B)")
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
            raise ValueError(f"hidden_size ({hidden}) is not divisible by num_attention_heads ({heads}); give head_dim")
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
        """params_b must be near what the layers and widths hold (app.scoring.params_check): the error names
        params_b, the field to change, though every other field is read to judge it."""
        if (info.context or {}).get(PARAMS_COUNTED):
            return self
        from app.scoring.params_check import params_b_problem  # it counts with hf_config, which imports this module

        problem = params_b_problem(self.params_b, self)
        if problem is not None:
            error = PydanticCustomError("value_error", "{problem}", {"problem": problem})
            details = [InitErrorDetails(type=error, loc=("params_b",), input=self.params_b)]
            raise ValidationError.from_exception_data(type(self).__name__, details)
        return self


class Filters(NumbersNotBooleans):
    """Which offers may be ranked; empty lists mean 'any', except price types (empty = on-demand only)
    and stale prices (left out unless asked for)."""

    providers: list[ShortId] = Field(default_factory=list, max_length=100)
    price_types: list[PriceType] = Field(
        default_factory=list,
        max_length=10,
        description="price terms to rank; empty = on-demand only (add spot, reserved, marketplace, capacity_block)",
    )
    gpus: list[ShortId] = Field(default_factory=list, max_length=100)
    vendors: list[ShortId] = Field(default_factory=list, max_length=20)
    include_stale: bool = Field(False, description="also rank prices older than the stale-after days (marked stale)")
    trains: ClassVar[bool] = False  # a training workload: managed inference endpoints are left out


class ModelChoice(Filters):
    """The model a question is about: a catalog id, a custom architecture or a pasted config.json (one of them); the
    workloads' and the GPU mix's."""

    model_config = ConfigDict(extra="forbid")

    model: ShortId | None = Field("llama-3.1-8b", description="catalog model id")
    custom_model: ModelArchitecture | None = Field(None, description="architecture when not in the catalog")
    hf_config: dict[str, object] | None = Field(
        None, description="a pasted Hugging Face config.json (at most 200 keys, depth 4, 64 KB)"
    )

    @field_validator("hf_config")
    @classmethod
    def _bounded_config(cls, value: dict[str, object] | None) -> dict[str, object] | None:
        return None if value is None else check_bounded_object(value)

    @model_validator(mode="after")
    def _one_model(self) -> ModelChoice:
        given = [x is not None for x in (self.custom_model, self.hf_config)]
        if sum(given) > 1:
            raise ValueError("hf_config: give either custom_model or hf_config, not both")
        if any(given) and "model" in self.model_fields_set and self.model is not None:  # not silently one of them
            other = "custom_model" if self.custom_model is not None else "hf_config"
            raise ValueError(f"model: give a catalog model id or a {other}, not both")
        if any(given):
            self.model = None
        elif not self.model:
            raise ValueError("model: give a catalog model id, a custom_model or an hf_config")
        return self


# Engines without a feature a workload may ask for, and why (each engine's serving docs).
NO_EXPERT_PARALLEL_ENGINES = {
    "llamacpp": "llama.cpp splits a model over GPUs by layer or by row (--split-mode), never expert by expert",
}
# Engines that load no INT8 W8A8 checkpoint (SmoothQuant, compressed-tensors quantized.w8a8), and what they run instead.
NO_W8A8_ENGINES = {
    "llamacpp": "its 8-bit format is GGUF Q8_0, weight_dtype int8, whose measured speed (int8 dot products in its "
    "MMQ kernels included) its own factors were fitted on",
    "hf": "Transformers decompresses a compressed-tensors W8A8 checkpoint's weights to 16-bit for its matmuls, which "
    "weight_dtype int8 prices",
}
NO_PREFIX_CACHE_ENGINES = {
    "hf": "HF generate() builds each request's KV cache anew; vLLM's automatic prefix caching, SGLang's "
    "RadixAttention, TensorRT-LLM's KV cache reuse and llama.cpp's --cache-reuse keep prompts between requests",
}


def w8a8_lack(engine: str) -> str:
    """What `engine` (one of NO_W8A8_ENGINES) lacks, in words: no INT8 W8A8, and what it runs instead."""
    return f"engine {engine} runs no INT8 W8A8 ({NO_W8A8_ENGINES[engine]})"


def w8a8_refusal(engine: str) -> str:
    """Why `engine` (one of NO_W8A8_ENGINES) cannot rank weight_dtype int8_w8a8, naming the field to change."""
    return f"weight_dtype: {w8a8_lack(engine)}: choose weight_dtype int8, or engine vllm, sglang or trtllm"


def _engine_lacks(info: ValidationInfo, lacking: dict[str, str], what: str, instead: str) -> None:
    """Refuse a setting the workload's engine has no such feature for, saying why (`lacking`: engine -> reason)."""
    engine = info.data.get("engine")
    if engine in lacking:
        raise ValueError(f"engine {engine} {what} ({lacking[engine]}): {instead}")


# Each load-setting scenario's own field: required under it, meaningless under the others.
SCENARIO_OF_LOAD_FIELD = {"batch": "fixed_batch", "concurrency": "concurrency", "requests_per_s": "request_rate"}
SCENARIO_LOAD_UNITS = {
    "batch": "requests together",
    "concurrency": "requests in flight",
    "requests_per_s": "arrivals per second",
}


class InferenceWorkload(ModelChoice):
    """Serve a model to users at a latency target."""

    weight_dtype: WeightDtype = Field(
        "bf16",
        description="unset: the model's release precision (fp8 for an FP8 release such as DeepSeek-V3, int4 W4A16 for "
        "gpt-oss's MXFP4, bf16 for a BF16 or unknown one; catalog /api/v1/models release_precision); int8 is "
        "weight-only (W8A16), int8_w8a8 INT8 weights and activations on the INT8 tensor peak (vllm, sglang, trtllm)",
    )
    kv_dtype: Dtype | None = Field(None, description=KV_DTYPE_DEFAULT)
    input_len: int = Field(2_000, ge=1, le=1_000_000, description="mean prompt tokens")
    output_len: int = Field(400, ge=1, le=200_000, description="mean generated tokens")
    ttft_ms: float = Field(1_000, gt=0, le=600_000, description="p99 time to first token limit")
    tpot_ms: float = Field(50, gt=0, le=60_000, description="p99 time per output token limit")
    prompt_p99_over_mean: float | None = Field(
        None,
        ge=1.0,
        le=20.0,
        description="the p99 prompt's length over the mean prompt's (1 = every prompt the same length): a p99 first "
        "token's own prefill runs that much longer than the mean's, its waits the fitted p99 / mean ratio; unset: "
        "the whole TTFT x the fitted p99_ttft_over_mean (/methodology)",
    )
    limits_at: LimitsAt | None = Field(None, description=LIMITS_AT_DESCRIPTION)
    engine: Engine = "vllm"
    max_num_seqs: int | None = Field(
        None,
        ge=1,
        le=65_536,
        description="engine batch cap (vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM max_batch_size, "
        "llama.cpp --parallel); default: the engine's (vllm 1024 on a GPU of 70 GiB or more but an A100, else 256; "
        "sglang 2048, trtllm 2048, llamacpp 4, hf 64)",
    )
    max_num_batched_tokens: int | None = Field(
        None,
        ge=64,
        le=1_048_576,
        description="tokens one engine step may carry, decode tokens and prompt chunks together (TensorRT-LLM "
        "max_num_tokens, vLLM max_num_batched_tokens); default: the engine's (trtllm 8192; vllm 8192 on a GPU of "
        "70 GiB or more but an A100, else 2048); trtllm and vllm only: SGLang "
        "prefills in batches of its own and llama.cpp and HF batch statically, so they have no such cap",
    )
    attention_parallel: AttentionParallel = Field(
        "auto",
        description="how a tensor-parallel group splits attention: tp = by heads (engine default), dp = data-parallel "
        "attention (SGLang --enable-dp-attention, vLLM, TensorRT-LLM; not hf or llamacpp: each GPU keeps its own "
        "requests' KV cache and a full copy of the attention weights), auto = dp where the engine has it, TP would "
        "copy the KV cache onto every GPU (MLA, few KV heads) and dp serves more tokens/s",
    )
    expert_parallel: ExpertParallel = Field(
        "tp",
        description="MoE experts: tp = each expert sharded over the tensor-parallel GPUs (engine default), "
        "ep = experts placed whole, E / TP per GPU (SGLang --ep-size, vLLM --enable-expert-parallel): at small "
        "batches the GPU whose experts the batch touches most sets the pace",
    )
    scenario: Scenario = Field(
        "latency_bound",
        description="latency_bound: the batch that meets the TTFT and TPOT limits; concurrency, request_rate, "
        "single_stream: that load as it runs, rows over the limits ranked after those that meet them; fixed_batch, "
        "max_throughput: that batch, the limits reported only",
    )
    batch: int | None = Field(
        None, ge=1, le=65_536, validate_default=True, description="fixed_batch: requests together (required there)"
    )
    concurrency: int | None = Field(
        None, ge=1, le=65_536, validate_default=True, description="concurrency: requests in flight (required there)"
    )
    requests_per_s: float | None = Field(
        None,
        validate_default=True,
        ge=MIN_REQUESTS_PER_S,
        le=1_000_000,
        description=f"request_rate: Poisson arrivals per second at one replica (at least {MIN_REQUESTS_PER_S:g})",
    )
    peak_requests_per_s: float | None = Field(
        None, ge=MIN_REQUESTS_PER_S, le=1_000_000, description=f"for replicas (at least {MIN_REQUESTS_PER_S:g})"
    )
    peak_concurrency: int | None = Field(
        None,
        ge=1,
        le=10_000_000,
        description="for replicas: clients in flight at the peak, each sending its next request when its last one "
        "ends; each replica serves as many as its batch",
    )
    job_requests: int | None = Field(
        None,
        ge=1,
        le=1_000_000_000,
        description="max_throughput: a batch job of this many requests, submitted at once; ranks each offer by "
        "what the job costs and shows how long it takes",
    )
    job_deadline_hours: float | None = Field(
        None,
        gt=0,
        le=8_760,
        description="a batch job's deadline in hours: the job is split over the fewest replicas that finish it in time",
    )
    max_gpus: int = Field(
        REPLICA_MAX_GPUS,
        ge=1,
        le=72,
        description="largest GPU count per replica (several nodes only when one cannot serve)",
    )
    beam_width: int = Field(1, ge=1, le=16, description="beam search width (1 = greedy/sampling)")
    # Serving techniques: unset = off, so answers without them are unchanged (inference/techniques.py).
    prefix_cache_hit: float | None = Field(
        None, ge=0, le=0.99, description="share of prompt tokens served from the prefix cache (0-0.99)"
    )
    spec_acceptance: float | None = Field(
        None, ge=0, le=0.99, description="speculative decoding: chance a drafted token is accepted (0-0.99)"
    )
    spec_draft_tokens: int | None = Field(
        None,
        ge=1,
        le=16,
        description="speculative decoding: tokens drafted per step (default 1, MTP depth 1); needs spec_acceptance",
    )
    rank_by: RankBy = Field(
        "auto",
        description="$ per million output tokens, per million tokens in and out, per 1k requests, or fleet: $ a month "
        "for the replicas a peak needs (whole instances where an offer rents them so); auto = fleet where a peak "
        "is given, else output tokens",
    )

    _estimate_is_unset = field_validator("limits_at")(estimate_is_unset)

    @field_validator("max_num_batched_tokens")
    @classmethod
    def _engine_has_a_step_budget(cls, value: int | None, info: ValidationInfo) -> int | None:
        engine = info.data.get("engine")
        if value is not None and engine is not None and engine not in ENGINE_TOKEN_BUDGET:
            raise ValueError(
                f"engine {engine} has no per-step token budget (SGLang prefills in batches of its own, llama.cpp and "
                f"HF batch statically): leave max_num_batched_tokens empty, or choose engine "
                f"{' or '.join(ENGINE_TOKEN_BUDGET)}"
            )
        return value

    @field_validator("attention_parallel")
    @classmethod
    def _engine_runs_dp_attention(cls, value: str, info: ValidationInfo) -> str:
        engine = info.data.get("engine")
        if value == "dp" and engine is not None and engine not in DP_ATTENTION_ENGINES:
            raise ValueError(
                f"engine {engine} has no data-parallel attention (only {', '.join(DP_ATTENTION_ENGINES)} run it): "
                "choose tp or auto, or another engine"
            )
        return value

    @field_validator("expert_parallel")
    @classmethod
    def _engine_places_experts(cls, value: str, info: ValidationInfo) -> str:
        if value == "ep":
            _engine_lacks(info, NO_EXPERT_PARALLEL_ENGINES, "has no expert parallelism", "choose tp, or another engine")
        return value

    @field_validator("prefix_cache_hit")
    @classmethod
    def _engine_keeps_a_prefix_cache(cls, value: float | None, info: ValidationInfo) -> float | None:
        if value:
            _engine_lacks(
                info,
                NO_PREFIX_CACHE_ENGINES,
                "keeps no prefix cache across requests",
                "leave prefix_cache_hit empty, or choose vllm, sglang, trtllm or llamacpp",
            )
        return value

    @field_validator("spec_acceptance")
    @classmethod
    def _drafts_decode_one_beam(cls, value: float | None, info: ValidationInfo) -> float | None:
        beams = info.data.get("beam_width") or 1
        if value and beams > 1:
            raise ValueError(
                f"speculative decoding drafts and verifies one sequence a request, and the engines run it at beam "
                f"width 1 only (beam_width is {beams}): leave spec_acceptance empty, or set beam_width 1"
            )
        return value

    @field_validator("spec_draft_tokens")
    @classmethod
    def _drafts_need_an_acceptance(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and "spec_acceptance" in info.data and not info.data["spec_acceptance"]:  # bad: its own
            raise ValueError(
                "drafted tokens speed decoding only as far as they are accepted: give spec_acceptance (above 0, the "
                "chance a drafted token is accepted) too, or leave spec_draft_tokens empty"
            )
        return value

    @field_validator("rank_by")
    @classmethod
    def _fleet_needs_a_peak(cls, value: str, info: ValidationInfo) -> str:
        if value == "fleet" and not (info.data.get("peak_requests_per_s") or info.data.get("peak_concurrency")):
            raise ValueError("fleet prices the replicas a peak needs: give peak_requests_per_s or peak_concurrency")
        return value

    @field_validator("batch", "concurrency", "requests_per_s")
    @classmethod
    def _load_of_the_scenario(cls, value: float | None, info: ValidationInfo) -> float | None:
        """The scenario's own load field is required (a default of 1 was a question nobody asked); another
        scenario's is an error, as a batch job outside max_throughput: dropping it answered a question not asked."""
        name = str(info.field_name)
        scenario, owner = info.data.get("scenario"), SCENARIO_OF_LOAD_FIELD[name]
        if scenario is None:  # the scenario itself is invalid: its own error says so
            return value
        if scenario != owner and value is not None:
            raise ValueError(
                f"{name} ({SCENARIO_LOAD_UNITS[name]}) is read only under scenario {owner}, not {scenario}: "
                f"choose scenario {owner}, or leave {name} empty"
            )
        if scenario == owner and value is None:
            raise ValueError(f"required for scenario {owner} ({SCENARIO_LOAD_UNITS[name]})")
        return value

    @field_validator("peak_concurrency")
    @classmethod
    def _one_peak(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("peak_requests_per_s"):
            raise ValueError("give the peak as requests/s (peak_requests_per_s) or as clients, not both")
        scenario = info.data.get("scenario")
        if value is not None and scenario is not None and scenario != "latency_bound":
            raise ValueError(
                "peak clients size replicas that meet the latency limits (scenario latency_bound), each serving as "
                f"many clients as its batch; scenario {scenario} fixes a replica's load itself"
            )
        return value

    @field_validator("job_requests")
    @classmethod
    def _job_at_max_throughput(cls, value: int | None, info: ValidationInfo) -> int | None:
        scenario = info.data.get("scenario")
        if value is not None and scenario is not None and scenario != "max_throughput":
            raise ValueError(
                f"a batch job runs at scenario max_throughput (its requests are submitted at once), not {scenario}"
            )
        peak = next((name for name in ("peak_requests_per_s", "peak_concurrency") if info.data.get(name)), None)
        if value is not None and peak:
            raise ValueError(
                "a batch job's replicas come from its deadline (job_deadline_hours), not from peak traffic: "
                f"leave {peak} empty"
            )
        return value

    @field_validator("job_deadline_hours")
    @classmethod
    def _deadline_of_a_job(cls, value: float | None, info: ValidationInfo) -> float | None:
        if value is not None and "job_requests" in info.data and info.data["job_requests"] is None:  # absent: invalid
            raise ValueError("a deadline needs a batch job: set job_requests (the requests to finish in time)")
        return value

    @model_validator(mode="after")
    def _engine_runs_w8a8(self) -> InferenceWorkload:
        """INT8 W8A8 on an engine without it: the error names weight_dtype (the engine is checked first, by field)."""
        if self.weight_dtype == INT8_W8A8 and self.engine in NO_W8A8_ENGINES:
            raise ValueError(w8a8_refusal(self.engine))
        return self

    @property
    def ranked_by(self) -> str:
        """rank_by with auto resolved: with a peak the fleet it needs is what a buyer pays (a replica's $ per
        token at full load hides the rounding up to whole replicas and instances), else $ per output token."""
        if self.rank_by != "auto":
            return self.rank_by
        return "fleet" if self.peak_requests_per_s or self.peak_concurrency else "output_tokens"

    @property
    def kv_dtype_effective(self) -> str:
        return self.kv_dtype or default_kv_dtype(self.weight_dtype, self.engine)


class TrainingWorkload(ModelChoice):
    """Train or fine-tune a model on a token budget."""

    trains: ClassVar[bool] = True  # offers that only serve (managed inference endpoints) cannot run it

    method: Method = "lora"
    precision: Precision = Field(
        "bf16",
        description="matmul precision: bf16/fp16 mixed precision; fp8 (TransformerEngine, torchao float8/MXFP8); fp4 "
        "(NVFP4 on Blackwell, MXFP4 on CDNA 4; a GPU without FP4 tensor cores runs it in FP8, one without FP8 in BF16)",
    )
    seq_len: int = Field(4_096, ge=16, le=1_048_576)
    global_batch_seqs: int = Field(64, ge=1, le=1_000_000, description="sequences per optimizer step")
    total_tokens: float = Field(2e9, gt=0, le=1e15, description="training token budget")
    lora_rank: int = Field(16, ge=1, le=4_096, description="adapter rank of method lora or qlora")
    framework: Framework = "auto"
    optimizer: Optimizer = Field(
        "adamw",
        description="optimizer states of the trained weights: adamw = mixed precision, fp32 master + m + v "
        "(16 B/param); adamw_bf16 = pure bf16 weights, gradients and moments (8 B/param; updates can round away); "
        "adamw_8bit = bitsandbytes 8-bit moments on bf16 weights (6 B/param)",
    )
    offload: Offload = Field(
        "none",
        description="cpu: gradients and optimizer states in host memory, the optimizer step on the CPU (ZeRO-Offload, "
        "FSDP CPU offload, torchtune); the GPU keeps the bf16 weights, each step pays PCIe copies and the CPU's Adam",
    )
    max_gpus: int = Field(64, ge=1, le=65_536, description="largest job size to consider")
    max_days: float = Field(30, gt=0, le=3_650, description="deadline: the run must finish within this many days")
    budget_usd: float | None = Field(None, gt=0, le=1e10, description="optional cap on the run's total cost")
    limits_at: LimitsAt | None = Field(None, description=TRAINING_LIMITS_AT_DESCRIPTION)
    checkpoint_interval_hours: float = Field(
        1.0, gt=0, le=168, description="spot: work since the last checkpoint is lost at each interruption"
    )
    interruptions_per_node_month: float | None = Field(
        None, ge=0, le=1_000, description="spot: override the provider class's sourced interruption rate"
    )

    _estimate_is_unset = field_validator("limits_at")(estimate_is_unset)

    @field_validator("lora_rank")
    @classmethod
    def _rank_of_an_adapter(cls, value: int, info: ValidationInfo) -> int:
        method = info.data.get("method")
        if method in FULL_WEIGHT_METHODS and value != cls.model_fields["lora_rank"].default:
            raise ValueError(
                f"lora_rank sizes the adapters of method lora or qlora; method {method} trains every weight and has "
                "none: leave lora_rank empty, or choose lora"
            )
        return value

    @field_validator("checkpoint_interval_hours", "interruptions_per_node_month")
    @classmethod
    def _spot_terms_need_spot(cls, value: float | None, info: ValidationInfo) -> float | None:
        """Only spot offers are interrupted (price_terms.INTERRUPTIBLE): without spot among the price types these
        change no answer. The form shows the default interval filled in, so the default is no choice."""
        name = str(info.field_name)
        given = value is not None and value != cls.model_fields[name].default
        if given and "price_types" in info.data and not INTERRUPTIBLE.intersection(info.data["price_types"]):
            raise ValueError(
                f"{name} prices spot interruptions, and price_types has no spot: add spot to price_types, or leave "
                f"{name} empty"
            )
        return value

    @field_validator("precision")
    @classmethod
    def _qlora_matmuls_run_in_16_bit(cls, value: str, info: ValidationInfo) -> str:
        # QLoRA dequantises its NF4 base weights to BF16 before each matmul (QLoRA paper §3; bitsandbytes/PEFT,
        # Unsloth and torchtune all do): no QLoRA stack runs FP8 or FP4 matmuls on them, so no speedup to price.
        if value in ("fp8", "fp4") and info.data.get("method") == "qlora":
            raise ValueError(
                f"QLoRA dequantises its NF4 base weights to BF16 before every matmul (bitsandbytes/PEFT, Unsloth, "
                f"torchtune): no QLoRA stack runs {value.upper()} matmuls on them. Use bf16 or fp16 with qlora, "
                f"or method lora (a bf16 base) with {value}"
            )
        return value
