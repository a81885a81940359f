"""Explain a solved inference configuration: its memory at the batch, terms, bands, limits and the assumption
notes (engine caps, queueing, layout, weak spots) an estimate shows."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from app.scoring.efficiency.bands import FIXED_LOAD_SCENARIOS, band_ratio
from app.scoring.explain import Band, LazyTerms, Term, WrittenOnce, batch_words, fixed, significant
from app.scoring.hardware.dtypes import WEIGHT_BYTES
from app.scoring.hardware.engine_support import ENGINE_NAMES
from app.scoring.inference.bands.latency_bands import latency_bands
from app.scoring.inference.bands.limits import (
    LIMITS_APPLIED,
    holding_limit_words,
    limit_multiples,
    limits_at_risk,
    one_token_note,
    over_limits,
    unapplied_limits_note,
)
from app.scoring.inference.bands.moe_host_reach import moe_host_reach
from app.scoring.inference.batching.operating_points import OperatingPoint, operating_point
from app.scoring.inference.batching.queueing import sustained_requests_per_s
from app.scoring.inference.batching.running_batch import engine_batch_cap, running_cap
from app.scoring.inference.estimates.results import InferenceEstimate, Solution
from app.scoring.inference.explanation.dp_attention_note import dp_attention_lost_note, dp_attention_switch
from app.scoring.inference.explanation.light_load import light_load_note, light_load_reason, light_load_terms
from app.scoring.inference.explanation.terms import p99_latencies_ms, step_terms
from app.scoring.inference.explanation.throughput import throughput_term
from app.scoring.inference.explanation.tpot_floor import near_tpot_floor_note
from app.scoring.inference.step.efficiency_factors import software_constants
from app.scoring.inference.step.memory import (
    GB,
    attention_params,
    kv_replicated_under_tp,
    memory_at_batch_gb,
    request_kv_tokens,
)
from app.scoring.inference.step.techniques import NO_TECHNIQUES, technique_terms
from app.scoring.pricing.price_terms import STARTUP_DETAIL, STARTUP_HOURS
from app.scoring.workload import ACTIVATION_DTYPE_KV_ENGINES, InferenceWorkload


def _queue_note(point: OperatingPoint) -> list[str]:
    """A closed loop beyond the running batch: its clients queue for a slot, and TTFT includes the wait."""
    if point.waiting <= 0:
        return []
    return [
        f"overloaded: {significant(point.waiting)} of the clients wait for a free slot ({significant(point.batch)} run "
        f"at once); TTFT includes {fixed(point.queue_ms / 1e3, 1)} s of queueing"
    ]


def _holding_cap(s: Solution) -> tuple[str, str] | None:
    """The engine cap that holds the batch, as (a few words for the option's reason, the term's detail); None where
    memory or the latency limits hold it."""
    w = s.workload
    if w.scenario == "fixed_batch":  # the question's own batch: no cap holds it
        return None
    cap = engine_batch_cap(w, s.ctx)
    if s.batch >= cap:
        origin = "max_num_seqs" if w.max_num_seqs else f"the {w.engine} default"
        return (
            f"held at the engine batch cap {cap}",
            f"batch held at the engine batch cap {cap} ({origin}); raise max_num_seqs if memory allows more",
        )
    if s.batch >= running_cap(s.ctx, w):
        budget = w.max_num_batched_tokens or s.ctx.default_token_budget or 0
        origin = "max_num_batched_tokens" if w.max_num_batched_tokens else f"the {w.engine} default"
        return (
            f"held by the engine's {budget:,}-token step budget",
            f"batch held at {s.batch} by the engine's {budget:,}-token step budget ({origin}): each step carries the "
            f"batch's decode tokens and the prompts arriving meanwhile ({significant(w.input_len)} prompt tokens per "
            f"{significant(w.output_len)} output tokens); raise max_num_batched_tokens to run more",
        )
    return None


def _held_by(s: Solution, held: tuple[str, str] | None, ttft_p99_ms: float, multiples: tuple[float, float]) -> str:
    """What holds the batch, in the option's reason: memory where the batch is the most whose KV cache fits (max_batch
    counts only that), else an engine cap (`held`: _holding_cap), else (latency_bound) the latency limit the batch is
    held to."""
    if s.batch >= s.max_batch:
        return "" if s.workload.scenario in FIXED_LOAD_SCENARIOS else "; held by memory (KV cache)"
    if held:
        return f"; {held[0]}"
    if s.workload.scenario not in LIMITS_APPLIED:
        return ""
    eff = s.efficiency.slo_tpot_utilisation
    return "; " + holding_limit_words(s.workload, eff, ttft_p99_ms, s.point.tpot_ms, multiples)


def _fits_words(s: Solution, held: tuple[str, str] | None, ttft_p99_ms: float, multiples: tuple[float, float]) -> str:
    """The option's reason, written when first read (InferenceEstimate.reason): a ranking explains every (GPU, machine)
    slot's kept layout and an answer shows few rows (found by speed28). `held`: _holding_cap."""
    return light_load_reason(s) or (
        f"fits: {_load_words(s)} of max {s.max_batch} on {s.tensor_parallel * s.pipeline_parallel}×{s.gpu.name}"
        + _held_by(s, held, ttft_p99_ms, multiples)
    )


def _cap_note(held: tuple[str, str] | None) -> list[str]:
    """The detail of the engine cap holding the batch (`held`: _holding_cap), if one does."""
    return [held[1]] if held else []


def explain(solved: Solution) -> InferenceEstimate:
    """The full estimate of a solved configuration: memory at its batch, terms, band and assumptions."""
    s, point, w = solved, solved.point, solved.workload
    ttft_p99, tpot_p99 = p99_latencies_ms(point, s.efficiency, s.workload.prompt_p99_over_mean)
    regime = s.band_regime
    multiples = limit_multiples(w, regime)
    low, high, evidence = band_ratio("output_tok_s_per_gpu", *regime)
    latency = latency_bands(regime, ttft_p99, tpot_p99)
    tokens_per_s = point.tokens_per_s
    job = s.job
    if job is not None:
        tokens_per_s = job.output_tokens_per_s
    reach_tokens_per_s, reach_notes = moe_host_reach(s.ctx, s.efficiency, point, tokens_per_s)
    held = _holding_cap(s)  # the reason's words and the assumption's detail: the engine caps read once
    return InferenceEstimate(
        feasible=True,
        reason_words=WrittenOnce(partial(_fits_words, s, held, ttft_p99, multiples)),
        gpu_id=s.gpu.id,
        gpu_count=s.gpu_count,
        tensor_parallel=s.tensor_parallel,
        pipeline_parallel=s.pipeline_parallel,
        memory_footprint_gb=WrittenOnce(lambda: _memory_gb(solved)),
        max_batch=s.max_batch,
        batch=s.batch,
        ttft_ms=point.ttft_ms,
        tpot_ms=point.tpot_ms,
        ttft_median_ms=point.ttft_median_ms,
        ttft_p99_ms=ttft_p99,
        tpot_p99_ms=tpot_p99,
        output_tokens_per_s=tokens_per_s,
        output_tokens_per_s_per_gpu=tokens_per_s / s.gpu_count,
        terms=LazyTerms(lambda: _terms(solved)),
        band=Band(tokens_per_s * low, max(tokens_per_s * high, reach_tokens_per_s)),
        ttft_p99_band=latency.ttft_p99,
        tpot_p99_band=latency.tpot_p99,
        bound=point.step.bound,
        assumption_notes=WrittenOnce(
            lambda: _assumptions(solved, held, ttft_p99, tpot_p99, multiples, reach_notes, latency.note, evidence)
        ),
        attention_parallel="dp" if s.ctx.attention_dp > 1 else "tp",
        expert_parallel="ep" if s.ctx.expert_parallel > 1 else "tp",
        job_hours=job.hours if job else None,
        job_replicas=job.replicas if job else 1,
        over_limits=over_limits(w, ttft_p99, tpot_p99, multiples),
        limits_at_risk_words=""
        if job
        else WrittenOnce(lambda: limits_at_risk(w, ttft_p99, tpot_p99, *latency.p99_highs, multiples)),
        requests_in_flight=point.batch if _below_one(s) else None,
        requests_per_s=_requests_per_s(s, tokens_per_s),
        software_constants=software_constants(s.ctx),
    )


def _assumptions(
    s: Solution,
    held: tuple[str, str] | None,
    ttft_p99_ms: float,
    tpot_p99_ms: float,
    multiples: tuple[float, float],
    reach_notes: list[str],
    latency_note: str,
    evidence: str,
) -> list[str]:
    """The estimate's assumption notes, written when first read (InferenceEstimate.assumptions): a ranking explains
    every (GPU, machine) slot's kept layout and an answer shows the notes of few rows, and some notes time more (the
    TPOT floor's lone request; a heads split's data-parallel attention, searched in full where a ceiling skipped it:
    dp_attention_lost_note). `held`, the p99s, `multiples`, the reach notes, the latency band's note and `evidence`:
    what explain worked out for the estimate's other fields (found by speed26)."""
    w = s.workload
    return [
        *s.ctx.assumptions,
        *_layout_notes(s),
        *_small_batch_moe_note(s),
        *_rocm_note(s),
        *_cap_note(held),
        *near_tpot_floor_note(s, ttft_p99_ms, multiples),
        *_queue_note(s.point),
        *light_load_note(s),
        *_job_note(s),
        *_kv_default_note(w),
        *unapplied_limits_note(w, ttft_p99_ms, tpot_p99_ms, multiples),
        *one_token_note(w),
        *reach_notes,
        latency_note,
        evidence,
    ]


def _memory_gb(s: Solution) -> dict[str, float]:
    """GB per GPU by part at the solution's batch: written when first read (estimate.memory_gb), as a refusal's
    footprint is, since a ranking explains every slot's layout and a results page shows the memory of few."""
    w = s.workload
    return memory_at_batch_gb(
        s.gpu,
        s.model,
        w.weight_dtype,
        w.kv_dtype_effective,
        request_kv_tokens(w.input_len, w.output_len, w.beam_width),
        s.batch,
        s.tensor_parallel,
        s.pipeline_parallel,
        s.ctx.attention_dp,
        w.engine,
    )


def _terms(s: Solution) -> list[Term]:
    """The estimate's terms: the step's parts, the serving techniques, the cap holding the batch, the output tokens/s
    (or the batch job)."""
    w, job = s.workload, s.job
    return (
        step_terms(s.ctx, s.efficiency, s.point, w.input_len, w.beam_width, w.prompt_p99_over_mean)
        + _technique_terms(s)
        + [Term("running batch", s.batch, "sequences", note) for note in _cap_note(_holding_cap(s))]
        + light_load_terms(s)
        + throughput_term(s)
        + ([job.term(), Term("start-up", STARTUP_HOURS, "h", STARTUP_DETAIL)] if job else [])
    )


def _kv_default_note(w: InferenceWorkload) -> list[str]:
    """Where FP8 weights run a BF16 cache by the engine's default (workload.default_kv_dtype), say so: the cache
    dtype is not in the question, and an FP8 one would hold twice the sequences."""
    if w.kv_dtype is not None or w.weight_dtype != "fp8" or w.engine not in ACTIVATION_DTYPE_KV_ENGINES:
        return []
    return [
        f"KV cache BF16: {ENGINE_NAMES[w.engine]}'s default keeps the activation dtype for FP8 weights; set kv_dtype "
        "fp8 for an FP8 cache (half the bytes a token)"
    ]


def _requests_per_s(s: Solution, tokens_per_s: float) -> float:
    """Requests/s one replica serves: a batch job's over the job, else sustained at its operating point."""
    p, out = s.point, s.workload.output_len
    if s.job is not None:
        return tokens_per_s / max(out, 1)
    return sustained_requests_per_s(p.batch, p.ttft_ms, p.tpot_ms, out, p.tokens_per_s)


def _job_note(s: Solution) -> list[str]:
    """What a batch job's TTFT means: requests beyond the running batch wait for a slot first."""
    if s.job is None or s.job.time.requests <= s.batch:
        return []
    return [
        f"batch job: {s.batch:,} of a replica's {s.job.time.requests:,} requests run at once and the rest wait for a "
        "slot; the TTFT shown counts from when a request gets one"
    ]


# Fine-grained MoE (many narrow experts) decoding a handful of tokens a step: the routed experts are timed at the
# dense streaming rate, as the public SGLang and vLLM rows (batch 8 and up) fit. On an H200, grouped-GEMM kernels
# took a fixed 25-97 us per MoE layer on top of streaming below 32 tokens, and a ~45 us per layer floor worked out by
# hand put DeepSeek-R1 and Qwen3-30B-A3B at batch 1 at x0.71-0.74 of this estimate's tokens/s
# (docs/measurements/h200-2026-12-04-moe-served.json); no public row at batch 1-4 confirms or refutes it.
# The run timed 128 and 256 experts (gpt-oss-120b, Qwen3-30B-A3B, DeepSeek-R1) short of the rate and Mixtral's 8 wide
# ones at it; 32 (gpt-oss-20b) is the smallest served fine-grained count. At 8 tokens the grouped GEMMs reached
# 0.81-0.89 of their plateau and the public rows at concurrency 8 fit, so the spot ends at 4.
FINE_GRAINED_EXPERTS = 32
SMALL_MOE_BATCH = 4


def _below_one(s: Solution) -> bool:
    """Whether the answer runs below one request in flight: a light-load point, or an open loop's trickle (0.03
    requests/s keep 0.06 in flight, not "batch 1")."""
    return s.light_load or (s.workload.scenario == "request_rate" and s.point.batch < 1)


def _load_words(s: Solution) -> str:
    """The solution's batch, or below one request in flight its mean in flight."""
    return batch_words(s.point.batch) if _below_one(s) else f"batch {s.batch}"


def _small_batch_moe_note(s: Solution) -> list[str]:
    """Says where the estimate sits in a listed weak spot: fine-grained MoE at one to four sequences."""
    if s.model.num_experts < FINE_GRAINED_EXPERTS or s.batch > SMALL_MOE_BATCH:
        return []
    return [
        f"weak spot: {s.model.num_experts} fine-grained experts at {_load_words(s)}: the routed experts are timed at "
        "the dense streaming rate, which public rows confirm from batch 8; GPU kernel timings of this regime "
        "suggest decode may be up to ~1.4× slower than estimated (docs/measurements)"
    ]


def _rocm_note(s: Solution) -> list[str]:
    """Says where the estimate sits in a listed weak spot: a PyTorch engine on ROCm, whose two public sources
    (argonne's stock vLLM 0.6.1 build of 2024, AMD's tuned MLPerf v4.1 run) disagree 2-5x on matmuls."""
    if not s.ctx.amd or s.ctx.engine not in ("vllm", "sglang"):
        return []
    return [
        "weak spot: vLLM/SGLang on ROCm: the ROCm factors are a compromise between a stock 2024 vLLM build and AMD's "
        "tuned MLPerf run, which disagree 2-5× on matmuls; held out, either source is missed by up to 2× (the band "
        "shows how far, and a current ROCm build may well run faster)"
    ]


def _layout_notes(s: Solution) -> list[str]:
    """Assumption lines for how the TP group splits experts and attention."""
    ep = s.ctx.expert_parallel
    experts = (
        [
            f"expert parallel over {ep} GPUs: {significant(s.ctx.experts_per_group)} whole experts each; the GPU whose "
            "experts a step touches most sets its pace (uniform routing, expected busiest of the GPUs)"
        ]
        if ep > 1
        else []
    )
    return experts + _attention_dp_note(s)


def _attention_dp_note(s: Solution) -> list[str]:
    dp = s.ctx.attention_dp
    if dp <= 1:
        if kv_replicated_under_tp(s.model, s.tensor_parallel):
            return [
                f"attention split over TP{s.tensor_parallel}: every GPU keeps the whole KV cache (MLA / few KV heads)"
                + dp_attention_lost_note(s)
            ]
        return []
    attention_gb = attention_params(s.model) * WEIGHT_BYTES[s.workload.weight_dtype] / s.pipeline_parallel / GB
    return [
        f"data-parallel attention over the {dp} GPUs ({dp_attention_switch(s.workload.engine)}): each keeps its own "
        f"requests' KV cache (1/{dp} of the TP copy) and a full copy of the attention weights "
        f"({fixed(attention_gb, 1)} GB)"
    ]


def _technique_terms(s: Solution) -> list[Term]:
    """Prefix cache / speculative decoding lines, against the same batch without them."""
    if not s.ctx.techniques.active:
        return []
    w = s.workload
    plain_ctx = replace(s.ctx, techniques=NO_TECHNIQUES)
    scenario = "concurrency" if w.scenario == "request_rate" else w.scenario  # both run loops of requests
    batch = s.point.batch if scenario == "concurrency" else s.batch
    base = operating_point(plain_ctx, s.efficiency, scenario, batch, w.input_len, w.output_len, w.beam_width)
    return technique_terms(s.ctx.techniques, s.point, base)
