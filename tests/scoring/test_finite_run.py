"""A finite run replayed step by step: bursts drain a step budget at a time, overloaded open loops queue for the run."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, ENGINE_TOKEN_BUDGET, PREFILL_CHUNK_TOKENS
from app.scoring.inference.batching.finite_run import replay_run
from app.scoring.inference.batching.loops import open_loop_point
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.steps import decode_parts, prefill_attention_flops

GPUS, MODELS = load_gpu_specs(), load_model_specs()
EFF = DEFAULT_EFFICIENCY


def _ctx(engine: str = "trtllm"):
    return build_context(GPUS["H100-SXM"], MODELS["llama-3.1-8b"], "bf16", "bf16", engine, 1)


def test_a_burst_drains_its_prompts_a_step_budget_at_a_time():
    """500 prompts of 467 tokens at once: 8,192 tokens a step, so the last first token comes ~29 steps in and the
    mean TTFT is about half of that (TensorRT-LLM v0.14 measured 3.3 s mean on one H100 for Llama-3.1-8B)."""
    run = replay_run(_ctx(), EFF, 500, None, 500, 467, 256)
    assert run is not None and len(run.ttfts_ms) == 500
    budget = ENGINE_TOKEN_BUDGET["trtllm"]
    first_step_ms = decode_parts(
        _ctx(), EFF, 0, 467 + 128, budget, prefill_attention_flops(_ctx(), budget / 467, 467), 1.0, budget / 467
    ).total_ms
    assert run.ttfts_ms[0] == pytest.approx(first_step_ms)  # the first prompts finish with the first full step
    steps = 500 * 467 / budget
    assert run.ttfts_ms[-1] > 0.9 * steps * first_step_ms
    assert run.mean_ttft_ms == pytest.approx(run.ttfts_ms[-1] / 2, rel=0.15)
    assert 2_000 < run.mean_ttft_ms < 4_500


def test_a_burst_twice_as_large_waits_about_twice_as_long():
    small = replay_run(_ctx(), EFF, 250, None, 500, 467, 256)
    large = replay_run(_ctx(), EFF, 500, None, 500, 467, 256)
    assert small is not None and large is not None
    assert 1.7 < large.mean_ttft_ms / small.mean_ttft_ms < 2.3


def test_a_run_produces_every_requests_tokens_and_its_rate_is_tokens_over_its_length():
    run = replay_run(_ctx(), EFF, 300, None, 128, 467, 256)
    assert run is not None
    assert run.output_tokens == 300 * 256
    assert run.output_tok_s == pytest.approx(300 * 256 / run.makespan_ms * 1e3)
    assert run.peak_running == 128  # the slots hold the rest back


def test_slots_gate_admission_so_later_requests_wait_for_earlier_ones_to_finish():
    few = replay_run(_ctx(), EFF, 400, None, 50, 200, 200)
    many = replay_run(_ctx(), EFF, 400, None, 400, 200, 200)
    assert few is not None and many is not None
    assert few.mean_ttft_ms > 3 * many.mean_ttft_ms  # 8 waves of 50: each waits for the one before it
    assert few.mean_tpot_ms < many.mean_tpot_ms  # smaller running batches step faster


def test_an_open_loop_below_capacity_does_not_queue_and_above_it_queues_for_the_run():
    ctx = _ctx()
    capacity = open_loop_point(ctx, EFF, 1e6, 256, 1000, 200).tokens_per_s / 200  # requests/s at the running cap
    calm = [replay_run(ctx, EFF, n, 0.5 * capacity, 256, 1000, 200) for n in (500, 1000)]
    busy = [replay_run(ctx, EFF, n, 2.0 * capacity, 256, 1000, 200) for n in (500, 1000)]
    assert all(run is not None for run in calm + busy)
    assert calm[1].mean_ttft_ms == pytest.approx(calm[0].mean_ttft_ms, rel=0.1)  # steady: the run's length is moot
    assert busy[0].mean_ttft_ms > 10 * calm[0].mean_ttft_ms
    # the backlog grows with the run: twice the requests wait more than twice as long on average (the first ones,
    # which find free slots, are a smaller share of the longer run)
    assert busy[1].mean_ttft_ms > 2 * busy[0].mean_ttft_ms


def test_sglang_prefills_a_burst_first_in_batches_of_its_chunk():
    """SGLang runs queued prompts as prefill batches of their own, before decoding again: in a burst every prompt's
    first token comes before any second token, and its prompts drain without decode tokens in their steps."""
    sglang = replay_run(_ctx("sglang"), EFF, 200, None, 200, 1000, 100)
    trtllm = replay_run(_ctx("trtllm"), EFF, 200, None, 200, 1000, 100)
    assert sglang is not None and trtllm is not None
    per_chunk = PREFILL_CHUNK_TOKENS / 1000
    chunk_ms = decode_parts(
        _ctx("sglang"),
        EFF,
        0,
        1050,
        PREFILL_CHUNK_TOKENS,
        prefill_attention_flops(_ctx(), per_chunk, 1000),
        1.0,
        per_chunk,
    ).total_ms
    assert sglang.ttfts_ms[-1] == pytest.approx(200 * 1000 / PREFILL_CHUNK_TOKENS * chunk_ms, rel=0.05)
    assert sglang.mean_ttft_ms < trtllm.mean_ttft_ms  # TensorRT-LLM's steps carry the first prompts' decodes


def test_static_batching_engines_and_oversized_runs_are_not_replayed():
    assert replay_run(_ctx("llamacpp"), EFF, 10, None, 4, 100, 100) is None
    assert replay_run(_ctx(), EFF, 0, None, 4, 100, 100) is None
    assert replay_run(_ctx(), EFF, 10, None, 0, 100, 100) is None


def test_the_ttft_quantiles_are_nearest_rank():
    run = replay_run(_ctx(), EFF, 100, None, 100, 467, 16)
    assert run is not None
    assert run.ttft_quantile_ms(0.5) == run.ttfts_ms[49]
    assert run.ttft_quantile_ms(0.99) == run.ttfts_ms[98]
    assert run.ttft_quantile_ms(1.0) == run.ttfts_ms[-1]


def test_sglangs_prefill_chunk_follows_the_gpus_memory_as_its_server_args_do():
    from app.scoring.efficiency.inference import sglang_prefill_chunk

    tiers = {"L4": 2048, "L40S": 4096, "H100-SXM": 8192, "H200": 8192, "B200": 16384, "MI300X": 16384}
    assert {g: sglang_prefill_chunk(GPUS[g]) for g in tiers} == tiers
    b200 = build_context(GPUS["B200"], MODELS["llama-3.1-8b"], "bf16", "bf16", "sglang", 1)
    assert b200.prefill_chunk_tokens == 16384
