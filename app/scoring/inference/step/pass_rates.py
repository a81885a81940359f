"""What every forward pass of one configuration divides by: its bandwidths and FLOP rates at the efficiency it runs
at, and its host times that do not grow with the batch. They depend on the (context, efficiency) pair alone, and a
solve times a few hundred passes of one pair, so they are worked out once per pair (forward_parts reads them) with
the very operations forward_parts used to repeat per pass: the same floats."""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.efficiency_factors import attention_flop_rate, mbu, mfu
from app.scoring.inference.step.host_overheads import moe_prefill_ms, overhead_ms, per_sequence_overhead_ms


@dataclass(frozen=True, slots=True)
class PassRates:
    bandwidth: float  # bytes per ms of the dense weights' streaming (mbu)
    # bytes per ms of the KV cache's reads: bandwidth x kv_mbu_factor; under data-parallel attention whole_bandwidth x
    # kv_mbu_factor (each GPU reads its own requests' whole KV, no 1/TP shard of it: the TP factor's reason is absent)
    kv_bandwidth: float
    expert_bandwidth: float  # bytes per ms of the routed experts' grouped GEMMs (mbu without the TP penalty)
    whole_bandwidth: float  # bytes per ms of weights held whole on every GPU (mbu without the TP penalty)
    peak: float  # FLOP per ms of the matmuls (mfu)
    attention_rate: float  # FLOP per ms of QK^T and AV (attention_flop_rate)
    step_host_ms: float  # launch and sync per step and layer (host_overheads.overhead_ms without its sequences)
    sequence_host_ms: float  # host time per running sequence (per_sequence_overhead_ms)
    moe_prefill_ms: float  # an eager prefill pass's MoE host time (moe_prefill_ms)


def _rates(ctx: InferenceContext, eff: InferenceEfficiency) -> PassRates:
    bandwidth = ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff) / 1e3
    peak = ctx.peak_tflops * 1e12 * mfu(ctx, eff) / 1e3
    whole_bandwidth = ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff, tp_penalty=False) / 1e3
    return PassRates(
        bandwidth=bandwidth,
        kv_bandwidth=(whole_bandwidth if ctx.attention_dp > 1 else bandwidth) * eff.kv_mbu_factor,
        expert_bandwidth=ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff, tp_penalty=False) * eff.moe_mbu_factor / 1e3,
        whole_bandwidth=whole_bandwidth,
        peak=peak,
        attention_rate=attention_flop_rate(ctx, eff, peak),
        step_host_ms=overhead_ms(ctx, eff, 0.0),
        sequence_host_ms=per_sequence_overhead_ms(ctx, eff),
        moe_prefill_ms=moe_prefill_ms(ctx, eff),
    )


# Rates per (context, efficiency) object, keyed by identity as efficiency_factors' memo is: the objects are kept
# beside the value so that an id is never reused while its entry lives; cleared when full. Contexts are shared
# across rankings (context.build_context's cache), so one ranking's rates serve the next.
_RATES_MEMO: dict[tuple[int, int], tuple[object, object, PassRates]] = {}
_RATES_MEMO_LIMIT = 4096


# The last pair answered, one tuple read and replaced whole (threads may share it): a search times every pass of one
# pair in a row, and this skips the memo's key and lookup. Holding the pair keeps their ids from being reused.
_last: tuple[object, object, PassRates | None] = (None, None, None)


def pass_rates(ctx: InferenceContext, eff: InferenceEfficiency) -> PassRates:
    global _last
    last_ctx, last_eff, last_rates = _last
    if last_ctx is ctx and last_eff is eff and last_rates is not None:
        return last_rates
    rates = _memoised_rates(ctx, eff)
    _last = (ctx, eff, rates)
    return rates


def _memoised_rates(ctx: InferenceContext, eff: InferenceEfficiency) -> PassRates:
    key = (id(ctx), id(eff))
    hit = _RATES_MEMO.get(key)
    if hit is not None and hit[0] is ctx and hit[1] is eff:
        return hit[2]
    rates = _rates(ctx, eff)
    if len(_RATES_MEMO) >= _RATES_MEMO_LIMIT:
        _RATES_MEMO.clear()
    _RATES_MEMO[key] = (ctx, eff, rates)
    return rates


def dense_weight_ms(ctx: InferenceContext, rates: PassRates) -> float:
    """One stage's dense weights streamed, ms: the TP shards at the dense MBU (its TP factor: a shard's matrices
    shrink as TP grows) and the weights held whole on every GPU (data-parallel attention's attention weights: the
    matrices of TP1) at the MBU without that factor, as the routed experts' grouped GEMM. Without whole weights the
    very float of dense bytes / bandwidth."""
    whole = ctx.whole_weight_bytes_per_gpu
    if whole <= 0:
        return ctx.dense_weight_bytes_per_gpu / rates.bandwidth
    return (ctx.dense_weight_bytes_per_gpu - whole) / rates.bandwidth + whole / rates.whole_bandwidth
