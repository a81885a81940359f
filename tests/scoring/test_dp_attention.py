"""Data-parallel attention (SGLang --enable-dp-attention) as a serving layout: memory, step work and the choice."""

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY as EFF
from app.scoring.inference.estimates import estimate
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.communication import allreduce_call_ms
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.efficiency_factors import mbu
from app.scoring.inference.step.memory import (
    attention_params,
    kv_bytes_per_token_per_gpu,
    kv_replicated_under_tp,
    max_sequences,
    weight_bytes_per_gpu,
)
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.inference.step.steps import decode_parts, forward_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
R1, H200 = MODELS["deepseek-r1"], GPUS["H200"]


def r1(**kw) -> InferenceWorkload:
    base = dict(model="deepseek-r1", weight_dtype="fp8", engine="sglang", ttft_ms=10_000)
    return InferenceWorkload(**{**base, **kw})


def test_attention_weights_and_which_models_copy_their_kv_under_tp():
    # DeepSeek-V3/R1: 11.4 B of attention; the MLA estimate takes out the 3 dense layers' MLPs and the 58 MoE layers'
    # shared experts: 10.95 B (4 % low); with every layer counted as a MoE layer it was 12.0 B
    assert 10.8e9 < attention_params(R1) < 11.4e9
    assert attention_params(replace(R1, moe_layers=61)) == pytest.approx(12.0e9, rel=0.01)
    # Llama-3.1-70B: 80 layers x 8192 x (2 x 8192 + 2 x 1024) = 12.08 B
    assert attention_params(MODELS["llama-3.1-70b"]) == pytest.approx(80 * 8192 * (2 * 8192 + 2 * 1024))
    assert kv_replicated_under_tp(R1, 8) and not kv_replicated_under_tp(R1, 1)
    assert not kv_replicated_under_tp(MODELS["llama-3.1-70b"], 8)  # 8 KV heads over 8 ranks: split, not copied


def test_dp_attention_splits_the_kv_cache_and_copies_the_attention_weights():
    tp_kv, dp_kv = (kv_bytes_per_token_per_gpu(R1, "fp8", 8, 1, dp) for dp in (1, 8))
    assert dp_kv == pytest.approx(tp_kv / 8)
    tp_w, dp_w = (weight_bytes_per_gpu(R1, "fp8", 8, 1, dp) for dp in (1, 8))
    assert dp_w - tp_w == pytest.approx(attention_params(R1) * (1 - 1 / 8))  # FP8: one byte per weight
    # so the KV room grows about 5-6x at a long context even after the extra weights
    tp_seqs, dp_seqs = (max_sequences(H200, R1, "fp8", "fp8", 9000, 8, 1, dp) for dp in (1, 8))
    assert 4 * tp_seqs < dp_seqs < 8 * tp_seqs


def test_a_rank_does_its_own_requests_attention():
    tp, dp = (build_context(H200, R1, "fp8", "fp8", "sglang", 8, 1, 0.0, a) for a in (1, 8))
    # balanced decode at a large batch: each rank reads 1/8 of the KV; one sequence is read whole by its rank
    assert decode_parts(dp, EFF, 256, 4000).kv_bytes == pytest.approx(decode_parts(tp, EFF, 256, 4000).kv_bytes / 8)
    assert decode_parts(dp, EFF, 1, 4000).kv_bytes == pytest.approx(decode_parts(tp, EFF, 1, 4000).kv_bytes)
    # a lone 32k prompt: its attention runs on one rank instead of over 8 heads-shards, so the prefill is slower
    assert prefill_parts(dp, EFF, 1, 32_000).total_ms > 2 * prefill_parts(tp, EFF, 1, 32_000).total_ms
    # many prompts at once spread over the ranks: the FLOPs match TP's split
    assert prefill_parts(dp, EFF, 64, 1000).flops == pytest.approx(prefill_parts(tp, EFF, 64, 1000).flops)


def test_auto_picks_dp_attention_for_decode_heavy_traffic_and_tp_for_long_prompts():
    reasoning = {
        a: estimate_inference(H200, 8, R1, r1(input_len=1000, output_len=8000, tpot_ms=100, attention_parallel=a))
        for a in ("tp", "dp", "auto")
    }
    assert reasoning["dp"].output_tokens_per_s > 1.5 * reasoning["tp"].output_tokens_per_s
    assert reasoning["auto"].attention_parallel == "dp"
    assert reasoning["auto"].output_tokens_per_s == reasoning["dp"].output_tokens_per_s
    assert any("data-parallel attention" in a for a in reasoning["auto"].assumptions)
    long_prompt = estimate_inference(H200, 8, R1, r1(input_len=32_000, output_len=1000, tpot_ms=100))
    assert long_prompt.attention_parallel == "tp"
    assert any("keeps the whole KV cache" in a for a in long_prompt.assumptions)
    # a GQA model whose KV heads split over TP is never switched by auto
    llama = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=1000, output_len=8000, tpot_ms=100)
    assert estimate_inference(GPUS["H100-SXM"], 8, MODELS["llama-3.1-70b"], llama).attention_parallel == "tp"


def test_dp_attention_is_refused_where_the_attention_copy_does_not_fit():
    from dataclasses import replace

    from app.scoring.efficiency.inference import USABLE_MEMORY_FRACTION
    from app.scoring.inference.step.memory import GB, reserve_gb

    # a 141 GB-class GPU shrunk until R1's FP8 weights fit at TP8 (83.9 GB) but not with the attention copy (94.4)
    memory_gb = (89.0 + reserve_gb(8)) / USABLE_MEMORY_FRACTION
    small = replace(H200, memory_gb=memory_gb)
    assert weight_bytes_per_gpu(R1, "fp8", 8) / GB < 89.0 < weight_bytes_per_gpu(R1, "fp8", 8, 1, 8) / GB
    w = r1(input_len=1000, output_len=1000)
    dp = estimate_inference(small, 8, R1, w.model_copy(update={"attention_parallel": "dp"}))
    assert not dp.feasible and "full copy of the attention weights" in dp.reason
    auto = estimate_inference(small, 8, R1, w)
    assert auto.feasible and auto.attention_parallel == "tp"  # auto falls back to the layout that fits


@pytest.mark.parametrize("engine", ["hf", "llamacpp"])
def test_auto_never_picks_dp_attention_on_an_engine_without_it(engine):
    """HF generate() and llama.cpp split attention by heads only: auto chose dp for R1's decode-heavy traffic on
    them too (an answer no such server runs); dp asked of them is refused in the workload itself."""
    # a batch cap large enough that DP's room for sequences would pay (auto picked dp here before)
    w = r1(input_len=1000, output_len=8000, tpot_ms=100, engine=engine, max_num_seqs=4096)
    assert estimate_inference(H200, 8, R1, w).attention_parallel == "tp"
    assert estimate_inference(H200, 8, R1, w.model_copy(update={"engine": "sglang"})).attention_parallel == "dp"
    with pytest.raises(ValueError, match=f"engine {engine} has no data-parallel attention"):
        r1(engine=engine, attention_parallel="dp")


def test_auto_answers_a_layout_that_holds_no_model_without_solving_both_ways():
    """Where the weights overflow a layout's GPUs (or its stages outnumber the layers), auto answers by heads alone
    (speed11): the refusal both ways would end in. Just above the weights it still solves both ways and keeps dp."""
    w = r1(input_len=1000, output_len=8000, tpot_ms=100)
    need_gb = weight_bytes_per_gpu(R1, "fp8", 8) * 8 / 1e9
    for per_gpu_gb, fits in ((need_gb / 8 * 0.95, False), (need_gb / 8 * 1.25, True)):
        card = replace(H200, memory_gb=(per_gpu_gb + 2.4) / 0.9 / (78 * 2**30 / 80 / 1e9))
        ways = {a: estimate_inference(card, 8, R1, w.model_copy(update={"attention_parallel": a})) for a in WAYS}
        assert ways["tp"].feasible is fits
        if fits:  # dp serves more at this decode-heavy load, as on a whole H200
            assert ways["auto"].attention_parallel == "dp"
            assert ways["auto"].output_tokens_per_s == ways["dp"].output_tokens_per_s > ways["tp"].output_tokens_per_s
        else:
            assert not ways["dp"].feasible and not ways["auto"].feasible
            assert ways["auto"].reason == ways["tp"].reason and "needs" in ways["auto"].reason
    too_many_stages = estimate_inference(H200, 64, R1, w, 1, 64)  # 64 stages of 61 layers
    assert not too_many_stages.feasible and "more than the model's 61 layers" in too_many_stages.reason


WAYS = ("tp", "dp", "auto")


AUTO_QUESTIONS = [
    ({"input_len": 2_043}, True),  # latency-bound: the way by heads serves more, data-parallel is left unsearched
    ({"input_len": 2_043, "scenario": "max_throughput"}, False),  # data-parallel serves more: both searched
    # heads serve more, but within what data-parallel's ceiling allows: both searched
    ({"input_len": 2_043, "tpot_ms": 200, "ttft_ms": 20_000}, False),
    ({"input_len": 2_043, "model": "kimi-k2", "scenario": "max_throughput"}, True),  # heads win on H200 only
]


@pytest.mark.parametrize("question, skips", AUTO_QUESTIONS)
def test_auto_keeps_the_faster_way_whether_or_not_data_parallel_is_searched(
    monkeypatch: pytest.MonkeyPatch, question: dict[str, object], skips: bool
) -> None:
    # auto searches data-parallel attention only where its ceiling can beat the way by heads, solved first: what it
    # keeps is what solving both ways in full keeps (the more tokens/s, heads on a tie)
    w = r1(**question)
    model = MODELS[w.model]
    outclassed: list[bool] = []
    solve = estimate._solve

    def recording(*args):  # type: ignore[no-untyped-def]
        found = solve(*args)
        if args[8] is True:
            outclassed.append(isinstance(found, estimate._Outclassed))
        return found

    for gpu_id, count in (("B200", 8), ("H200", 8), ("B300", 4), ("MI300X", 8), ("GB200", 4), ("H100-SXM", 8)):
        gpu = GPUS[gpu_id]
        ways = [estimate.solve_inference(gpu, count, model, w, count, 1, attention_dp=dp) for dp in (False, True)]
        solved = [way for way in ways if isinstance(way, Solution)]
        with monkeypatch.context() as patch:
            patch.setattr(estimate, "_solve", recording)
            auto = estimate.solve_inference(gpu, count, model, w, count, 1)
        if solved:
            kept = max(solved, key=lambda way: way.point.tokens_per_s)
            assert isinstance(auto, Solution) and (auto.ctx, auto.point, auto.batch) == (
                kept.ctx,
                kept.point,
                kept.batch,
            )
        else:
            assert not isinstance(auto, Solution) and auto.reason == ways[0].reason
    assert any(outclassed) == skips


def test_auto_keeps_the_way_by_heads_on_an_exact_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    # both ways handed the same operating point, with no ceiling to skip either: equal tokens/s, and the way by heads
    # is kept, as solving both in full always kept it
    answers: list[object] = []
    search = estimate.floored_latency_search

    def one_answer(*args):  # type: ignore[no-untyped-def]
        answers.append(answers[0] if answers else search(*args))
        return answers[-1]

    returned: dict[bool | None, object] = {}
    solve = estimate._solve

    def recording(*args):  # type: ignore[no-untyped-def]
        found = returned[args[8]] = solve(*args)
        return found

    monkeypatch.setattr(estimate, "floored_latency_search", one_answer)
    monkeypatch.setattr(estimate, "latency_bound_ceiling_per_s", lambda *args: None)
    monkeypatch.setattr(estimate, "_solve", recording)
    auto = estimate.solve_inference(GPUS["B200"], 8, R1, r1(input_len=2_053), 8, 1)
    heads, dp = returned[False], returned[True]
    assert isinstance(heads, Solution) and isinstance(dp, Solution)
    assert heads.point.tokens_per_s == dp.point.tokens_per_s and dp.ctx.attention_dp > 1
    # the way by heads, with how data-parallel attention fared beside it (its note)
    assert isinstance(auto, Solution) and replace(auto, dp_attention_tried=None) == heads
    assert auto.dp_attention_tried is not None and auto.dp_attention_tried.read().solution is dp


def test_attention_weights_held_whole_stream_as_at_tp1():
    # Data-parallel attention keeps R1's 10.95 GB of attention weights whole on every GPU: the matrices TP1 streams,
    # so the MBU's TP factor (a shard's matrices shrink as TP grows) does not slow their read, as it does not the
    # routed experts' (found by dpattn: they read at TP8's MBU, 0.452 instead of 0.9, 5.4 ms a step instead of 2.5)
    dp, tp1 = (build_context(H200, R1, "fp8", "fp8", "sglang", tp, 1, 0.0, tp) for tp in (8, 1))
    whole = attention_params(R1)  # FP8: a byte a weight
    bytes_per_ms = H200.memory_bandwidth_tbs * 1e9
    sharded_read = (dp.dense_weight_bytes_per_gpu - whole) / (bytes_per_ms * mbu(dp, EFF))
    whole_read = whole / (bytes_per_ms * mbu(tp1, EFF))
    assert mbu(tp1, EFF) > 1.9 * mbu(dp, EFF)
    step = decode_parts(dp, EFF, 27, 2200)
    assert step.breakdown is not None
    assert step.breakdown.dense[0] == pytest.approx(sharded_read + whole_read)
    # tensor-parallel attention's shards keep the TP factor: its dense read is unchanged
    tp8 = build_context(H200, R1, "fp8", "fp8", "sglang", 8)
    tp_step = decode_parts(tp8, EFF, 27, 2200)
    assert tp_step.breakdown is not None
    assert tp_step.breakdown.dense[0] == tp8.dense_weight_bytes_per_gpu / (bytes_per_ms * mbu(tp8, EFF))


def test_a_heads_split_kept_by_auto_says_why_dp_attention_lost():
    # R1 on 8xH200, 2,000 -> 400 tokens at a 50 ms TPOT (found by qa35, dpattn): auto keeps TP8, whose KV room (301
    # requests) data-parallel attention multiplies 6.4x, while TP8 runs only 32 requests; the answer says both
    kw = dict(input_len=2000, output_len=400, tpot_ms=50, ttft_ms=1000)
    auto, dp = (estimate_inference(H200, 8, R1, r1(**kw, attention_parallel=a)) for a in ("auto", "dp"))
    assert auto.attention_parallel == "tp" and dp.output_tokens_per_s < auto.output_tokens_per_s
    note = next(a for a in auto.assumptions if a.startswith("attention split over TP8"))
    assert f"would hold 6.4× the requests ({dp.max_batch:,} vs {auto.max_batch})" in note
    assert f"{dp.output_tokens_per_s:,.0f} at batch {dp.batch} vs {auto.output_tokens_per_s:,.0f}" in note
    assert f"TP8's KV room is not what limits this batch ({auto.batch} of {auto.max_batch} requests)" in note
    assert "11.0 GB of attention weights" in note
    # a lone 8k prompt's attention on one GPU cannot meet a 1 s p99 TTFT: dp's ceiling skipped its search, and the
    # note solves it for its words, which say so
    long = estimate_inference(H200, 8, R1, r1(input_len=8000, output_len=1000, tpot_ms=100, ttft_ms=1000))
    assert long.attention_parallel == "tp"
    note = next(a for a in long.assumptions if a.startswith("attention split over TP8"))
    assert "(495 vs 77) but serves none here (even one request misses the limits: p99 TTFT 1,346 ms" in note
    # asked for tp outright, or where dp wins (512 clients), nothing was tried beside it
    tp = estimate_inference(H200, 8, R1, r1(**kw, attention_parallel="tp"))
    assert not any("(tried)" in a for a in tp.assumptions)
    busy = estimate_inference(H200, 8, R1, r1(input_len=2000, output_len=400, scenario="concurrency", concurrency=512))
    assert busy.attention_parallel == "dp" and not any("(tried)" in a for a in busy.assumptions)


def test_each_gpu_reads_its_own_requests_kv_without_the_tp_factor():
    # Under data-parallel attention each GPU reads its own requests' whole latent KV, not a 1/TP shard of it, so the
    # MBU's TP factor (shards shrink as TP grows) does not slow the read (found by dpattn2: it read at TP8's MBU)
    dp, tp8 = (build_context(H200, R1, "fp8", "fp8", "sglang", 8, 1, 0.0, a) for a in (8, 1))
    bytes_per_ms = H200.memory_bandwidth_tbs * 1e9
    step = decode_parts(dp, EFF, 256, 4000)
    assert step.breakdown is not None
    kv_read = step.kv_bytes / (bytes_per_ms * mbu(dp, EFF, tp_penalty=False) * EFF.kv_mbu_factor)
    assert step.breakdown.attention[0] == pytest.approx(kv_read)
    assert mbu(dp, EFF, tp_penalty=False) > 1.9 * mbu(dp, EFF)
    # heads split: unchanged, the TP factor stays (the fitted constants were fitted with it)
    tp_step = decode_parts(tp8, EFF, 256, 4000)
    assert tp_step.breakdown is not None
    tp_read = tp_step.kv_bytes / (bytes_per_ms * mbu(tp8, EFF) * EFF.kv_mbu_factor)
    assert tp_step.breakdown.attention[0] == pytest.approx(tp_read)


def test_sglang_dp_attention_gathers_and_reduce_scatters_around_the_mlp():
    # SGLang 0.5.7 (layers/dp_attention.py, communicator.py): a decode pass all-gathers each rank's hidden states,
    # padded to the busiest rank's, before the MLP and reduce-scatters after; the attention needs no all-reduce.
    # Two calls, one all-reduce's bytes: half of TP's two all-reduces (found by dpattn2: it was charged both).
    dp, tp8 = (build_context(H200, R1, "fp8", "fp8", "sglang", 8, 1, 0.0, a) for a in (8, 1))
    layers = dp.layers_per_stage
    latency, transfer = allreduce_call_ms(dp, EFF, 256)
    assert decode_parts(dp, EFF, 256, 4000).comm_ms == pytest.approx(layers * (2 * latency + transfer))
    assert decode_parts(tp8, EFF, 256, 4000).comm_ms == pytest.approx(2 * layers * (latency + transfer))
    # 3 sequences over 8 ranks: every rank's share padded to one sequence, 8 tokens gathered
    latency, padded = allreduce_call_ms(dp, EFF, 8)
    assert decode_parts(dp, EFF, 3, 4000).comm_ms == pytest.approx(layers * (2 * latency + padded))
    # a pass with prompt tokens (an extend batch: DpPaddingMode.SUM_LEN) gathers by all-reduce, then the MLP's own
    mixed = forward_parts(dp, EFF, 256, 4000, prefill_tokens=512, prefill_requests=1)
    latency, transfer = allreduce_call_ms(dp, EFF, 256 + 512)
    assert mixed.comm_ms == pytest.approx(2 * layers * (latency + transfer))
    # vLLM's and TensorRT-LLM's data-parallel attention: not read, priced as two all-reduces
    vllm = build_context(H200, R1, "fp8", "fp8", "vllm", 8, 1, 0.0, 8)
    latency, transfer = allreduce_call_ms(vllm, EFF, 256)
    assert decode_parts(vllm, EFF, 256, 4000).comm_ms == pytest.approx(2 * layers * (latency + transfer))


@pytest.mark.parametrize(
    ("engine", "switch"),
    [("sglang", "SGLang --enable-dp-attention"), ("vllm", "vLLM --data-parallel-size with --enable-expert-parallel")],
)
def test_the_layout_line_names_the_engines_own_switch(engine, switch):
    # found by dpattn: the line said SGLang's flag on vLLM too
    est = estimate_inference(H200, 8, R1, r1(engine=engine, attention_parallel="dp", input_len=1000, output_len=1000))
    line = next(a for a in est.assumptions if a.startswith("data-parallel attention over the 8 GPUs"))
    assert f"({switch})" in line
    assert ("SGLang" in line) == (engine == "sglang")
