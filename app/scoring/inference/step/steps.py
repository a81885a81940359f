"""Per-forward-pass timing of one inference configuration: pure float arithmetic, no strings.

`forward_parts` times one pass of one pipeline stage as the soft rooflines of its kernel classes (dense GEMMs,
routed experts, attention) plus communication and host time; continuous-batching and decode steps (with
speculative decoding) are built on it here, a prompt's prefill in prefill.py. Its pieces sit beside it: the
configuration in context.py, MBU and MFU in efficiency_factors.py (the rates they give, worked out once per
configuration, in pass_rates.py), all-reduces in communication.py, host time in host_overheads.py, routed-expert
coverage in routed_experts.py and data-parallel attention in dp_attention.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.scoring.efficiency.inference import CAUSAL_ATTENTION_FACTOR, InferenceEfficiency
from app.scoring.inference.step.communication import allreduce_ms, gathered_tokens, stage_send_ms
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.dp_attention import attending_seqs, dp_attention_flops
from app.scoring.inference.step.host_overheads import per_sequence_overhead_ms
from app.scoring.inference.step.memory import attended_tokens, prefill_attended_tokens
from app.scoring.inference.step.pass_rates import dense_weight_ms, pass_rates
from app.scoring.inference.step.routed_experts import busiest_group_coverage, expert_coverage
from app.scoring.records import hot_record


def roofline_ms(memory_ms: float, compute_ms: float, power: float) -> float:
    """Soft roofline of one kernel class: (m^p + c^p)^(1/p); p -> inf is max(m, c), p = 1 is no overlap.

    Never below max(m, c), so no prediction beats the roofline; near the ridge point the streams
    overlap only partly (BLIS trained physics: additive memory and compute terms).
    """
    high, low = (memory_ms, compute_ms) if memory_ms >= compute_ms else (compute_ms, memory_ms)
    if high <= 0:
        return 0.0
    return high * (1.0 + (low / high) ** power) ** (1.0 / power)


@dataclass(frozen=True, slots=True)
class StepDetail:
    """What a forward pass's totals are made of, kept for its explanation (terms.py); no timing reads it.

    Each kernel class is a (memory ms, compute ms) pair that roofline_ms combines: the dense GEMMs, the routed
    experts' grouped GEMMs (zero for a dense model) and the attention (KV reads vs QK^T/AV FLOPs)."""

    tokens: float  # tokens this pass carries per stage: decode (x verified drafts) + prefill
    attending_seqs: float  # sequences whose KV the step waits to read (attending_seqs)
    attended_tokens: float  # KV tokens each of them reads (sliding layers: their window)
    gemm_flops: float  # dense + routed-expert matmul FLOPs per GPU
    expert_flops: float  # the routed experts' part of gemm_flops
    attention_flops: float  # QK^T and AV FLOPs per GPU
    expert_coverage: float  # share of this GPU's routed-expert bytes the pass touches
    dense: tuple[float, float]
    experts: tuple[float, float]
    attention: tuple[float, float]
    host_sequences: float  # sequences paying the per-sequence host time (a prefill counts as one)
    host_ms: float  # launch and host overheads per step, layer and sequence
    moe_host_ms: float  # eager MoE prefill host time of the prefill passes this step stands for


@hot_record
class StepParts:
    """One forward pass of one pipeline stage (ms) and the work behind it.

    `memory_ms` / `compute_ms` are the totals; `busy_ms` is the time of the two kernel classes run in
    sequence: the GEMMs (weights vs matmul FLOPs) and the attention (KV reads vs QK/AV FLOPs).
    """

    weight_bytes: float
    kv_bytes: float
    flops: float
    memory_ms: float
    compute_ms: float
    comm_ms: float
    overhead_ms: float
    pipeline_stages: int
    busy_ms: float = 0.0
    draft_ms: float = 0.0  # speculative decoding's draft passes (techniques.py)
    tokens_per_step: float = 1.0  # tokens each sequence advances per pass (> 1 with speculative decoding)
    expert_busy_ms: float = 0.0  # the routed experts' grouped GEMMs (part of busy_ms): their own roofline
    prefill_tokens: float = 0.0  # prompt tokens this pass prefills beside the decode (per pipeline stage)
    # StepDetail's fields in order, a plain tuple: the hot path builds thousands of passes per ranking and only the
    # chosen point's terms read them (StepParts.breakdown makes the dataclass then)
    detail: tuple[Any, ...] | None = None

    @property
    def breakdown(self) -> StepDetail | None:
        return StepDetail(*self.detail) if self.detail is not None else None

    @property
    def total_ms(self) -> float:
        """Wall time for every sequence to advance one token (PP stages run micro-batches in turn)."""
        return (
            self.pipeline_stages
            * (self.busy_ms + self.comm_ms + self.overhead_ms + self.draft_ms)
            / self.tokens_per_step
        )

    @property
    def bound(self) -> str:
        return "memory" if self.memory_ms >= self.compute_ms else "compute"


def forward_parts(
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
    """A forward pass with `decode_seqs` decoding sequences at `context_tokens` plus prefill tokens
    (`tokens_per_seq` > 1: speculative verification of drafted tokens, one KV read per sequence).

    `prefill_passes`: eager prefill passes this step stands for (1 for a prefill; the share of a request
    prefilled per step in the continuous-batching steady state); each pays the host cost of an MoE layer.
    `prefill_requests`: the prompts those prefill tokens belong to (data-parallel attention runs each prompt's
    attention on one rank)."""
    pp = ctx.pipeline_parallel
    seqs, new_prefill = decode_seqs / pp, prefill_tokens / pp  # one micro-batch per stage
    tokens = seqs * tokens_per_seq + new_prefill
    # A ranking times a few hundred passes, most of them on layouts where several helpers below answer their own
    # identity (a dense model touches no routed experts, a full-attention model attends to its whole context, TP
    # attention waits for every sequence, TP1 has no all-reduce, one stage sends nothing): those calls are skipped
    # on the very conditions the helpers test first, so every float is theirs (guard: test_forward_parts_shortcuts).
    coverage = 0.0
    if ctx.experts_active_share > 0:
        coverage = expert_coverage(ctx.experts_active_share, tokens)
        if ctx.expert_parallel > 1:
            coverage = busiest_group_coverage(coverage, ctx.experts_per_group, ctx.expert_parallel)
    expert_bytes = ctx.expert_weight_bytes_per_gpu * coverage
    weights = ctx.dense_weight_bytes_per_gpu + expert_bytes
    attended = context_tokens  # sliding layers: their window
    if ctx.sliding_window > 0:
        attended = attended_tokens(context_tokens, ctx.sliding_window, ctx.sliding_share)
    dp = ctx.attention_dp
    attending = seqs if dp <= 1 else attending_seqs(ctx, seqs)
    kv = attending * ctx.kv_bytes_per_token_per_gpu * attended
    shards = ctx.tensor_parallel * pp
    gemm_flops = tokens * ctx.flops_per_token / shards
    attention_flops = (
        attending * tokens_per_seq * ctx.attention_flops_per_token_ctx * attended + prefill_attention_flops / pp
    ) / shards
    if dp > 1:  # the busiest rank's attention work; the MLP/experts split over TP as before
        gemm_flops, attention_flops = dp_attention_flops(
            ctx, seqs, tokens_per_seq, attended, new_prefill, prefill_requests, prefill_attention_flops
        )
    rates = pass_rates(ctx, eff)  # bytes and FLOP per ms at this configuration's MBU and MFU
    bandwidth, peak, power = rates.bandwidth, rates.peak, eff.overlap_power
    # routed experts are their own kernel class: each expert multiplies only the tokens routed to it (k / E of
    # them), so its grouped GEMM stays memory-bound at batches where the dense GEMMs are compute-bound
    expert_flops = tokens * ctx.routed_flops_per_token / shards
    expert_flops = gemm_flops if gemm_flops < expert_flops else expert_flops  # min(expert_flops, gemm_flops)
    dense_read = ctx.dense_weight_bytes_per_gpu / bandwidth if ctx.attention_dp <= 1 else dense_weight_ms(ctx, rates)
    dense_gemm = (dense_read, (gemm_flops - expert_flops) / peak)
    expert_gemm, expert_ms = (0.0, 0.0), 0.0  # a dense model (its MoE constants stay unread)
    if expert_bytes or expert_flops:
        expert_gemm = (expert_bytes / rates.expert_bandwidth, expert_flops / peak)
        expert_ms = roofline_ms(*expert_gemm, power)
    attention = (kv / rates.kv_bandwidth, attention_flops / rates.attention_rate)
    # roofline_ms of the dense GEMMs and the attention, written out: the same operations on the same floats, without
    # two calls a pass (guard: test_forward_parts_shortcuts, whose reference calls roofline_ms)
    high, low = dense_gemm if dense_gemm[0] >= dense_gemm[1] else (dense_gemm[1], dense_gemm[0])
    busy = high * (1.0 + (low / high) ** power) ** (1.0 / power) if high > 0 else 0.0
    high, low = attention if attention[0] >= attention[1] else (attention[1], attention[0])
    busy = busy + expert_ms + (high * (1.0 + (low / high) ** power) ** (1.0 / power) if high > 0 else 0.0)
    host_sequences = seqs + (1.0 if new_prefill else 0.0)
    # host_overheads.overhead_ms and moe_prefill_ms, their per-configuration parts read from the rates
    host_ms = rates.step_host_ms + host_sequences * rates.sequence_host_ms
    moe_host_ms = prefill_passes * rates.moe_prefill_ms
    comm_ms = (
        allreduce_ms(ctx, eff, tokens, gathered_tokens(ctx, attending, tokens_per_seq, new_prefill) if dp > 1 else None)
        if ctx.tensor_parallel > 1
        else 0.0
    ) + (stage_send_ms(ctx, tokens) if pp > 1 else 0.0)
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
    # by position, the defaults spelt out (draft_ms 0, one token a step): StepParts' field order
    return StepParts(
        weights,
        kv,
        gemm_flops + attention_flops,
        dense_gemm[0] + expert_gemm[0] + attention[0],
        dense_gemm[1] + expert_gemm[1] + attention[1],
        comm_ms,
        host_ms + moe_host_ms,
        pp,
        busy,
        0.0,
        1.0,
        expert_ms,
        new_prefill,
        detail,
    )


def prefill_attention_flops(ctx: InferenceContext, requests: float, input_len: float) -> float:
    """Causal QK^T and AV FLOPs of prefilling `requests` prompts of `input_len` tokens (whole model)."""
    attended = prefill_attended_tokens(input_len, ctx.sliding_window, ctx.sliding_share)
    flops = requests * CAUSAL_ATTENTION_FACTOR * ctx.attention_flops_per_token_ctx * input_len * attended
    return flops * ctx.techniques.uncached_attention_share


def prompts_per_step(ctx: InferenceContext, batch: float, output_len: float, others_only: bool = False) -> float:
    """Prompts a continuous-batching step prefills, on average: the requests whose prompts it carries (the other
    batch - 1 with `others_only`) x the tokens a step advances each / the output length. Above 1 the step's eager MoE
    prefill host time is charged once (mixed_step_parts' prefill_passes, min(share, 1)): its prompts share a pass."""
    # max(batch - 1.0, 0.0) and max(output_len, 1.0) written out (operating_point's hot path: two calls a point)
    others = batch - 1.0
    prefilling = (0.0 if others < 0.0 else others) if others_only else batch
    return prefilling * ctx.techniques.tokens_per_step / (1.0 if output_len < 1.0 else output_len)


def one_prompt_batch(ctx: InferenceContext, output_len: float, others_only: bool = False) -> float:
    """The running batch at which a step prefills exactly one prompt (prompts_per_step = 1): from there up the MoE
    prefill host time is charged once a step."""
    return max(output_len, 1.0) / ctx.techniques.tokens_per_step + (1.0 if others_only else 0.0)


def mixed_step_parts(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    batch: float,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
    others_only: bool = False,
) -> StepParts:
    """Continuous batching steady state: each step also carries batch x input/output prefill tokens.

    With beam search every request decodes `beam_width` sequences (own KV each) but is prefilled once.
    `others_only`: the steps a request decodes in carry the other batch - 1 requests' prefills (its own
    prefill is in its TTFT), as a closed or open loop sees it; a lone request decodes undisturbed.
    A load below one request in flight (an open loop's trickle, a light latency-bound load) still decodes a whole
    request in the steps its requests see: the step reads at least one sequence's KV cache.
    """
    context = input_len + output_len / 2
    share = prompts_per_step(ctx, batch, output_len, others_only)
    seqs = (1.0 if batch < 1.0 else batch) * beam_width  # max(batch, 1.0) written out, and min(share, 1.0) below
    prefill_tokens = share * input_len * ctx.techniques.uncached_share
    attention = prefill_attention_flops(ctx, share, input_len)
    passes = 1.0 if share > 1.0 else share
    if ctx.techniques.speculative:
        return decode_parts(ctx, eff, seqs, context, prefill_tokens, attention, passes, share)
    # without speculative decoding decode_parts is its verifying pass alone, one token a sequence: called here directly
    # (an open loop's search times ~600 passes a ranking; found by speed23)
    return forward_parts(ctx, eff, seqs, context, prefill_tokens, attention, 1.0, passes, share)


def decode_parts(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    decode_seqs: float,
    context_tokens: float,
    prefill_tokens: float = 0.0,
    prefill_attention: float = 0.0,
    prefill_passes: float = 0.0,
    prefill_requests: float = 0.0,
) -> StepParts:
    """A decode step. With speculative decoding: one pass verifies k drafted tokens per sequence, k draft
    passes precede it, and the step yields `tokens_per_step` tokens per sequence (techniques.py)."""
    t = ctx.techniques
    speculative = t.speculative
    verify = forward_parts(
        ctx,
        eff,
        decode_seqs,
        context_tokens,
        prefill_tokens,
        prefill_attention,
        t.spec_draft_tokens + 1 if speculative else 1.0,
        prefill_passes,
        prefill_requests,
    )
    if not speculative:
        return verify
    plain = forward_parts(ctx, eff, decode_seqs, context_tokens)
    # each draft pass runs the draft model (MTP module or EAGLE head: one decoder layer), so its fixed cost is that
    # layer's launch, not a whole model's step overhead; it still pays the host time per running sequence (vLLM's
    # Python scheduler prepares every pass), so at large batches the drafts cost more than the tokens they save
    pass_overhead_ms = eff.layer_overhead_ms + decode_seqs * per_sequence_overhead_ms(ctx, eff)
    draft_ms = t.spec_draft_tokens * (t.draft_cost_share * plain.busy_ms + pass_overhead_ms)
    return replace(verify, draft_ms=draft_ms, tokens_per_step=t.tokens_per_step)
