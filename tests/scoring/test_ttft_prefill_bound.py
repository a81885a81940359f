"""no_load_meets_ttft refuses a layout from a lower bound on a lone prompt's first prefill (its dense GEMMs' compute)
before timing that prefill: the bound must never exceed the prefill timed, for any context, or a layout that meets
the TTFT limit would be refused."""

from dataclasses import replace
from itertools import product

import pytest

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.hardware.machines import machine_gpu, machine_of
from app.scoring.inference.batching.operating_points import first_prefill_ms
from app.scoring.inference.estimates import throughput_ceiling
from app.scoring.inference.estimates.configurations import multi_node_layouts, single_node_layouts
from app.scoring.inference.estimates.throughput_ceiling import CEILING_ROUNDING_SLACK as SLACK
from app.scoring.inference.estimates.throughput_ceiling import _TtftRoom, no_load_meets_ttft
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.inference.step.techniques import ServingTechniques
from app.scoring.workload.engine_rules import default_kv_dtype
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
# dense, MoE, MLA (by heads and data-parallel), quantised and FP4 models on the engines that serve them
MODELS = [
    ("llama-3.1-70b", "fp8", "vllm"),
    ("llama-3.1-8b", "bf16", "trtllm"),
    ("qwen3-30b-a3b", "bf16", "vllm"),
    ("deepseek-r1", "fp8", "sglang"),
    ("qwen2.5-72b", "int4", "vllm"),
    ("gpt-oss-120b", "fp4", "vllm"),
]
PREFIX_CACHE = ServingTechniques(prefix_cache_hit=0.5)
# limits as multiples of the p99 first prefill the check compares: just under it (missed) and at or over it (met)
LIMIT_MULTIPLES = (0.5, 0.99, 0.999999, 1.0, 1.000001, 1.01, 1.3, 2.0)


def _contexts() -> list[InferenceContext]:
    contexts: set[InferenceContext] = set()
    for offer, (name, wdt, engine) in product(SNAPSHOT.offers, MODELS):
        gpu = SNAPSHOT.gpus[offer.gpu_id]
        machine, model = machine_of(offer, gpu), SNAPSHOT.models[name]
        for count, tp, pp in single_node_layouts(machine, 64, model.layers) + multi_node_layouts(machine, 64, 61):
            fabric = machine.fabric_gbs() if count > machine.gpus_per_node else 0.0
            for dp in {1, tp}:
                wired = machine_gpu(gpu, machine)
                ctx = build_context(wired, model, wdt, default_kv_dtype(wdt, engine), engine, tp, pp, fabric, dp)
                contexts |= {ctx, replace(ctx, techniques=PREFIX_CACHE)}
    return sorted(contexts, key=repr)


CONTEXTS = _contexts()


@pytest.mark.parametrize("input_len", [1_000, 8_000])
def test_the_prefill_bound_refuses_only_what_the_timed_prefill_refuses(input_len: int) -> None:
    eff = DEFAULT_EFFICIENCY
    by_bound = 0
    for ctx in CONTEXTS:
        first_ms = first_prefill_ms(ctx, eff, input_len, prefill_parts(ctx, eff, 1, input_len))
        bound_ms = throughput_ceiling._prefill_gemm_ms(ctx, eff, input_len)
        assert bound_ms <= first_ms
        for spread, multiple in product((None, 2.0), LIMIT_MULTIPLES):
            own_ratio = eff.p99_ttft_over_mean if spread is None else spread
            limit_ms = first_ms * own_ratio * multiple
            timed = _TtftRoom.of(ctx, eff, input_len, limit_ms, spread).own_prefill_misses
            assert no_load_meets_ttft(ctx, eff, input_len, limit_ms, spread) == timed, (ctx, limit_ms, spread)
            assert timed == (multiple < 1.0)
            by_bound += bound_ms * own_ratio * (1.0 - SLACK) ** 2 > limit_ms * (1.0 + SLACK)
    assert len(CONTEXTS) > 500
    assert by_bound > len(CONTEXTS) // 2  # the bound decides many refusals (data-parallel attention has none)
