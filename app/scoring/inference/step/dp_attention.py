"""Data-parallel attention (SGLang --enable-dp-attention): the sequences and FLOPs of the busiest rank, whose
attention the step waits for, while the MLP and experts stay split over tensor parallelism."""

from __future__ import annotations

from app.scoring.inference.step.context import InferenceContext


def attending_seqs(ctx: InferenceContext, seqs: float) -> float:
    """Sequences whose attention the step waits for, in units of the per-GPU KV share: all of them under TP
    attention; under data-parallel attention the busiest rank's, max(seqs / dp, one sequence if any) x dp."""
    dp = ctx.attention_dp
    if dp <= 1:
        return seqs
    return max(seqs / dp, min(seqs, 1.0)) * dp


def dp_attention_flops(
    ctx: InferenceContext,
    seqs: float,
    tokens_per_seq: float,
    attended: float,
    prefill_tokens: float,
    prefill_requests: float,
    prefill_attention: float,
) -> tuple[float, float]:
    """(GEMM, score/AV) FLOPs of the busiest GPU of one pipeline stage under data-parallel attention.

    The MLP/experts stay split over TP; a request's attention projections and score/AV run on the one rank that
    holds it, so that rank decodes max(seqs / dp, one sequence) and prefills max(1 / dp, one prompt's share) of
    the prompts. Balanced (seqs >= dp, many prompts) this equals TP's split; a lone long prompt is not split."""
    dp, tp, pp, a = ctx.attention_dp, ctx.tensor_parallel, ctx.pipeline_parallel, ctx.attention_gemm_share
    busiest = max(seqs / dp, min(seqs, 1.0))
    prefill_busy = max(1.0 / dp, 1.0 / max(prefill_requests, 1.0)) if prefill_tokens > 0 else 0.0
    per_token = ctx.flops_per_token / pp
    gemm = seqs * tokens_per_seq * per_token * (1 - a) / tp + busiest * tokens_per_seq * per_token * a
    gemm += prefill_tokens * per_token * (a * prefill_busy + (1 - a) / tp)
    score = busiest * tokens_per_seq * ctx.attention_flops_per_token_ctx * attended / pp
    score += prefill_attention / pp * prefill_busy / pp
    return gemm, score
