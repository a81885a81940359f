"""The inference workload: serve a model at a latency target, its load set by the scenario."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from app.scoring.efficiency.inference import DP_ATTENTION_ENGINES, ENGINE_TOKEN_BUDGET
from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.workload.engine_rules import (
    KV_DTYPE_DEFAULT,
    NO_EXPERT_PARALLEL_ENGINES,
    NO_PREFIX_CACHE_ENGINES,
    NO_W8A8_ENGINES,
    _engine_lacks,
    default_kv_dtype,
    w8a8_refusal,
)
from app.scoring.workload.field_types import (
    EXPERT_PLACEMENT_NOT_DEGREE,
    MIN_LATENCY_LIMIT_MS,
    MIN_REQUESTS_PER_S,
    REPLICA_MAX_GPUS,
    AttentionParallel,
    Dtype,
    Engine,
    ExpertParallel,
    RankBy,
    Scenario,
    WeightDtype,
)
from app.scoring.workload.limits_at import LIMITS_AT_DESCRIPTION, LimitsAt, estimate_is_unset
from app.scoring.workload.model_choice import ModelChoice
from app.scoring.workload.scenario_load import (
    deadline_of_a_job,
    fleet_needs_a_peak,
    job_at_max_throughput,
    load_of_the_scenario,
    one_peak,
)


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
    ttft_ms: float = Field(
        1_000.0, ge=MIN_LATENCY_LIMIT_MS, le=600_000, description="p99 time to first token limit, ms"
    )
    tpot_ms: float = Field(50.0, ge=MIN_LATENCY_LIMIT_MS, le=60_000, description="p99 time per output token limit, ms")
    prompt_p99_over_mean: float | None = Field(
        None,
        ge=1.0,
        le=20.0,
        description="the p99 prompt's length over the mean prompt's (1 = every prompt the same length): a p99 first "
        "token's own prefill runs that much longer than the mean's, its waits the fitted p99 / mean ratio; unset: "
        "the whole TTFT × the fitted p99_ttft_over_mean (/methodology)",
    )
    limits_at: LimitsAt | None = Field(None, description=LIMITS_AT_DESCRIPTION)
    engine: Engine = Field(
        "vllm",
        description="the serving engine: trtllm (TensorRT-LLM), vllm, sglang, llamacpp (llama.cpp) or hf "
        "(Transformers generate, static batches)",
    )
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
        "batches the GPU whose experts the batch touches most sets the pace. A placement, not a degree: a number "
        "is refused (a training layout's expert_parallel is its EP degree, an int its search picks)",
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
        description=f"request_rate: Poisson arrivals per second at one rented instance, spread evenly over the copies "
        f"it holds (at least {MIN_REQUESTS_PER_S:g})",
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
    # Serving techniques: unset = off, so answers without them are unchanged (inference/step/techniques.py).
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

    @field_validator("expert_parallel", mode="before")
    @classmethod
    def _placement_not_degree(cls, value: Any) -> Any:
        """A training layout's EP degree (8) given here: say what this field takes, not only pydantic's literals."""
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number or (isinstance(value, str) and value.strip().isdigit()):
            raise ValueError(EXPERT_PLACEMENT_NOT_DEGREE.format(value=value))
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

    @field_validator("batch")
    @classmethod
    def _batch_within_the_engine_cap(cls, value: int | None, info: ValidationInfo) -> int | None:
        """A fixed batch above the max_num_seqs given cannot run at once: answering it ignored one of the two."""
        cap = info.data.get("max_num_seqs")
        if info.data.get("scenario") == "fixed_batch" and value is not None and cap is not None and value > cap:
            raise ValueError(
                f"batch {value} is above max_num_seqs {cap}, the engine's cap on requests run together: raise "
                f"max_num_seqs to {value} at least, or lower batch"
            )
        return value

    _fleet_needs_a_peak = field_validator("rank_by")(fleet_needs_a_peak)
    _load_of_the_scenario = field_validator("batch", "concurrency", "requests_per_s")(load_of_the_scenario)
    _one_peak = field_validator("peak_concurrency")(one_peak)
    _job_at_max_throughput = field_validator("job_requests")(job_at_max_throughput)
    _deadline_of_a_job = field_validator("job_deadline_hours")(deadline_of_a_job)

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
    def tpot_limit_ms(self) -> float:
        """The TPOT limit the estimate holds: none (infinite) where a request emits a single token, which has no time
        per output token; the limit given stays in the question and its link."""
        return self.tpot_ms if self.output_len > 1 else math.inf

    @property
    def kv_dtype_effective(self) -> str:
        return self.kv_dtype or default_kv_dtype(self.weight_dtype, self.engine)
