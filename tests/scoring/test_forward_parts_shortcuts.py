"""forward_parts skips the helpers that answer their own identity on a layout (no routed experts, no sliding window,
attention by heads, so no weights held whole, TP1, one stage): every pass it times, on every kind of layout, equals
the pass that calls them all (the function as it was before the shortcuts, kept here as the reference)."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.inference.step.communication import allreduce_ms, gathered_tokens, stage_send_ms
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.dp_attention import attending_seqs, dp_attention_flops
from app.scoring.inference.step.memory import attended_tokens
from app.scoring.inference.step.pass_rates import dense_weight_ms, pass_rates
from app.scoring.inference.step.routed_experts import busiest_group_coverage, expert_coverage
from app.scoring.inference.step.steps import StepParts, forward_parts, roofline_ms

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def every_helper_called(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    decode_seqs: float,
    context_tokens: float,
    prefill_tokens: float = 0.0,
    prefill_attention_flops: float = 0.0,
    tokens_per_seq: float = 1.0,
    prefill_passes: float = 0.0,
    prefill_requests: float = 0.0,
) -> StepParts:
    pp = ctx.pipeline_parallel
    seqs, new_prefill = decode_seqs / pp, prefill_tokens / pp
    tokens = seqs * tokens_per_seq + new_prefill
    coverage = expert_coverage(ctx.experts_active_share, tokens)
    if ctx.expert_parallel > 1:
        coverage = busiest_group_coverage(coverage, ctx.experts_per_group, ctx.expert_parallel)
    expert_bytes = ctx.expert_weight_bytes_per_gpu * coverage
    weights = ctx.dense_weight_bytes_per_gpu + expert_bytes
    attended = attended_tokens(context_tokens, ctx.sliding_window, ctx.sliding_share)
    attending = attending_seqs(ctx, seqs)
    kv = attending * ctx.kv_bytes_per_token_per_gpu * attended
    shards = ctx.tensor_parallel * pp
    gemm_flops = tokens * ctx.flops_per_token / shards
    attention_flops = (
        attending * tokens_per_seq * ctx.attention_flops_per_token_ctx * attended + prefill_attention_flops / pp
    ) / shards
    if ctx.attention_dp > 1:
        gemm_flops, attention_flops = dp_attention_flops(
            ctx, seqs, tokens_per_seq, attended, new_prefill, prefill_requests, prefill_attention_flops
        )
    rates = pass_rates(ctx, eff)
    peak = rates.peak
    expert_flops = min(tokens * ctx.routed_flops_per_token / shards, gemm_flops)
    dense_gemm = (dense_weight_ms(ctx, rates), (gemm_flops - expert_flops) / peak)
    expert_gemm, expert_ms = (0.0, 0.0), 0.0
    if expert_bytes or expert_flops:
        expert_gemm = (expert_bytes / rates.expert_bandwidth, expert_flops / peak)
        expert_ms = roofline_ms(*expert_gemm, eff.overlap_power)
    attention = (kv / rates.kv_bandwidth, attention_flops / rates.attention_rate)
    busy = roofline_ms(*dense_gemm, eff.overlap_power) + expert_ms + roofline_ms(*attention, eff.overlap_power)
    host_sequences = seqs + (1.0 if new_prefill else 0.0)
    host_ms = rates.step_host_ms + host_sequences * rates.sequence_host_ms
    moe_host_ms = prefill_passes * rates.moe_prefill_ms
    detail = (
        tokens,
        attending,
        attended,
        gemm_flops,
        expert_flops,
        attention_flops,
        coverage,
        dense_gemm,
        expert_gemm,
        attention,
        host_sequences,
        host_ms,
        moe_host_ms,
    )
    return StepParts(
        weights,
        kv,
        gemm_flops + attention_flops,
        dense_gemm[0] + expert_gemm[0] + attention[0],
        dense_gemm[1] + expert_gemm[1] + attention[1],
        allreduce_ms(ctx, eff, tokens, gathered_tokens(ctx, attending, tokens_per_seq, new_prefill))
        + stage_send_ms(ctx, tokens),
        host_ms + moe_host_ms,
        pp,
        busy,
        expert_busy_ms=expert_ms,
        prefill_tokens=new_prefill,
        detail=detail,
    )


# decode sequences (a trickle to thousands), context tokens (a sliding-window model's below and beyond its window),
# (prefill tokens, prefill attention FLOPs, prefill passes, prefill requests) and tokens a sequence verifies
SEQS = (1e-6, 0.4, 1.0, 3.0, 64.0, 2_048.0)
CONTEXTS = (0.0, 1.0, 700.0, 2_031.5, 131_072.0)
PREFILLS = ((0.0, 0.0, 0.0, 0.0), (1_500.0, 4e12, 0.3, 0.3), (60_000.0, 9e14, 1.0, 12.0))
VERIFIED = (1.0, 3.0)


def test_forward_parts_times_every_pass_as_the_pass_that_calls_every_helper() -> None:
    checked, shortcut = 0, 0
    for gpu_id, model_id, (tp, pp), fabric in itertools.product(
        ("H100-SXM", "L4", "MI300X", "A100-PCIE-80GB"),
        ("llama-3.1-70b", "llama-3.1-8b", "deepseek-r1", "qwen3-30b-a3b", "gpt-oss-120b", "gemma-3-4b"),
        ((1, 1), (2, 1), (8, 1), (1, 4), (4, 2), (8, 2)),
        (0.0, 50.0),
    ):
        for dp, ep in itertools.product({1, tp}, {1, tp}):
            ctx = build_context(GPUS[gpu_id], MODELS[model_id], "fp8", "fp8", "sglang", tp, pp, fabric, dp, ep)
            shortcut += ctx.experts_active_share <= 0 or ctx.sliding_window <= 0 or tp == 1 or pp == 1
            for seqs, context, prefill, verified in itertools.product(SEQS, CONTEXTS, PREFILLS, VERIFIED):
                tokens, flops, passes, requests = prefill
                args = (ctx, DEFAULT_EFFICIENCY, seqs, context, tokens, flops, verified, passes, requests)
                where = (gpu_id, model_id, tp, pp, dp, ep, seqs, context, prefill, verified)
                assert repr(forward_parts(*args)) == repr(every_helper_called(*args)), where
                checked += 1
    assert checked > 100_000 and shortcut > 500
