"""_StepFloor.of reads what no length changes from its context's _ContextFloor (worked out once a context, found by
speed28): every floor a ranking asks, on dense, MoE, data-parallel attention, multi-stage and multi-node layouts, equals
the floor worked out whole (the function as it was, kept here as the reference), field for field, to the last bit."""

import math

import pytest

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.estimates import throughput_ceiling as tc
from app.scoring.inference.step.communication import GATHER_SCATTER_ENGINES, allreduce_ms, stage_send_ms
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.memory import attended_tokens
from app.scoring.inference.step.pass_rates import dense_weight_ms, pass_rates
from app.scoring.inference.step.routed_experts import expert_coverage
from app.scoring.inference.step.steps import prefill_attention_flops
from app.scoring.workload import InferenceWorkload
from app.service.rank import ranking
from benchmarks.bench_data import bench_snapshot


def whole_floor(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, output_len: float) -> tc._StepFloor:
    rates = pass_rates(ctx, eff)
    pp, tp = ctx.pipeline_parallel, ctx.tensor_parallel
    attended = attended_tokens(input_len + output_len / 2, ctx.sliding_window, ctx.sliding_share)
    share = ctx.techniques.tokens_per_step / max(output_len, 1.0)
    tokens = 1.0 + share * input_len * ctx.techniques.uncached_share
    attention_ranks = ctx.attention_dp if ctx.attention_dp > 1 else tp
    a = ctx.attention_gemm_share if ctx.attention_dp > 1 else 0.0
    gemm_flops = tokens * ctx.flops_per_token / pp * ((1.0 - a) / tp + a / attention_ranks)
    dense_ms = max(gemm_flops - tokens * ctx.routed_flops_per_token / (tp * pp), 0.0) / rates.peak
    prefilling = 1.0 if tokens > 1.0 else 0.0
    score_flops = ctx.attention_flops_per_token_ctx * attended
    score_flops += prefilling * prefill_attention_flops(ctx, share, input_len)
    score_ms = score_flops / (attention_ranks * pp) / rates.attention_rate
    kv_ms = ctx.kv_bytes_per_token_per_gpu * attended / rates.kv_bandwidth
    least = ctx.attention_dp > 1 and ctx.engine in GATHER_SCATTER_ENGINES
    comm_fixed = pp * (allreduce_ms(ctx, eff, 0.0, 0.0 if least else None) + stage_send_ms(ctx, 0.0))
    comm_per_token = (
        pp * (allreduce_ms(ctx, eff, 1.0 / pp, 1.0 / pp if least else None) + stage_send_ms(ctx, 1.0 / pp)) - comm_fixed
    )
    power = eff.overlap_power if eff.overlap_power >= 1.0 else math.inf
    weights_ms = pp * dense_weight_ms(ctx, rates)
    experts_bytes_ms = 0.0
    if ctx.expert_parallel <= 1:
        experts_bytes_ms = pp * ctx.expert_weight_bytes_per_gpu / rates.expert_bandwidth
    experts_least_ms = experts_bytes_ms * expert_coverage(ctx.experts_active_share, 0.0)
    return tc._StepFloor(
        weights_ms=weights_ms,
        dense_ms=dense_ms,
        attention_ms=tc._norm(kv_ms, score_ms, power),
        per_request_ms=rates.sequence_host_ms + max(comm_per_token * tokens, 0.0),
        fixed_ms=pp * (rates.step_host_ms + prefilling * rates.sequence_host_ms) + comm_fixed,
        power=power,
        tokens_per_request=tokens,
        stages=pp,
        prompt_share=share,
        experts_bytes_ms=experts_bytes_ms,
        active_share=ctx.experts_active_share,
        moe_prefill_ms=pp * rates.moe_prefill_ms,
        light_load_ms=weights_ms + pp * rates.step_host_ms + kv_ms + rates.sequence_host_ms + experts_least_ms,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2345},
        {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 3000},
        {"model": "llama-3.1-405b", "weight_dtype": "fp8", "max_gpus": 16, "output_len": 77},
        {"model": "qwen3-30b-a3b", "ttft_ms": 800, "tpot_ms": 40},
    ],
)
def test_step_floor_equals_the_floor_worked_out_whole(fields, monkeypatch):
    asked: list[tuple] = []
    of = tc._StepFloor.of.__func__

    def recording(cls, ctx, eff, input_len, output_len):  # type: ignore[no-untyped-def]
        asked.append((ctx, eff, input_len, output_len))
        return of(cls, ctx, eff, input_len, output_len)

    monkeypatch.setattr(tc._StepFloor, "of", classmethod(recording))
    ranking.rank("inference", InferenceWorkload.model_validate(fields), bench_snapshot(1))
    assert len(asked) > 10
    for ctx, eff, input_len, output_len in asked:
        assert of(tc._StepFloor, ctx, eff, input_len, output_len) == whole_floor(ctx, eff, input_len, output_len)
