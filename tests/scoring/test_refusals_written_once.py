"""A refusal writes its words and memory footprint when first read: a ranking refuses about a hundred layouts and
shows the one that explains each machine. What is read is what was written eagerly before; a lone request's check
reuses batch 1's decode step."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import WrittenOnce
from app.scoring.inference.bands.limits import limit_multiples
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.estimates import estimate
from app.scoring.inference.estimates.refusals import alone_words, one_request_misses
from app.scoring.inference.estimates.results import band_regime
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.memory import footprint_gb
from app.scoring.workload import InferenceWorkload
from app.service.rank.plain import plain

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_written_once_writes_on_the_first_read_only() -> None:
    writes: list[int] = []

    def write() -> str:
        writes.append(1)
        return "even one request misses the limits"

    words = WrittenOnce(write)
    assert writes == []
    assert words.read() == "even one request misses the limits" and words.read() == words.read()
    assert len(writes) == 1
    assert words == "even one request misses the limits" and words == WrittenOnce(lambda: words.read())


def test_a_refusal_at_the_limits_reads_the_words_and_footprint_it_always_wrote() -> None:
    gpu, model = GPUS["L40S"], MODELS["llama-3.1-8b"]
    w = InferenceWorkload(model="llama-3.1-8b", scenario="latency_bound", tpot_ms=1, input_len=1_017)
    est = estimate.estimate_inference(gpu, 1, model, w)
    assert not est.feasible and est.misses_limits
    assert isinstance(est.reason_words, WrittenOnce) and isinstance(est.memory_footprint_gb, WrittenOnce)
    # the words as the refusal wrote them before they were deferred: batch 1's point, then a request alone
    eff, lengths = DEFAULT_EFFICIENCY, (w.input_len, w.output_len, w.beam_width)
    ctx = build_context(gpu, model, w.weight_dtype, w.kv_dtype_effective, w.engine, 1, 1)
    multiples = limit_multiples(w, band_regime(gpu, model, w, ctx, 1))
    point = operating_point(ctx, eff, "latency_bound", 1, *lengths)
    alone = operating_point(ctx, eff, "single_stream", 1, *lengths)
    ttft_p99 = point.ttft_p99_ms(eff.p99_ttft_over_mean, w.prompt_p99_over_mean)
    words = one_request_misses(w, eff, ttft_p99, point.tpot_ms, multiples) + alone_words(w, eff, alone, multiples)
    assert est.reason == words and est.reason.startswith("even one request misses the limits")
    assert est.memory_gb == footprint_gb(gpu, model, w.weight_dtype, w.kv_dtype_effective, 1, 1, 1, w.engine)
    assert plain(est.memory_gb) == est.memory_gb  # a plain dict, as the estimate API writes it


def test_a_lone_request_reuses_batch_ones_decode_step() -> None:
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    ctx = build_context(gpu, model, "fp8", "fp8", "vllm", 4, 1)
    lengths = (2_000, 400, 1)
    one = operating_point(ctx, DEFAULT_EFFICIENCY, "latency_bound", 1, *lengths)
    assert one.decode_only is not None
    reused = operating_point(ctx, DEFAULT_EFFICIENCY, "single_stream", 1, *lengths, decode_one=one.decode_only)
    assert reused == operating_point(ctx, DEFAULT_EFFICIENCY, "single_stream", 1, *lengths)


def test_a_refusal_before_any_search_serves_the_next_ranking_and_reads_as_one_worked_out_afresh() -> None:
    # _refused_unsearched reads no length, limit or load: questions on other lengths share one refusal, and over
    # GPUs, models, dtypes, engines, layouts and attention splits the kept answer reads as the uncached function's
    r1 = MODELS["deepseek-r1"]
    asked = [
        InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", input_len=1_031),
        InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", input_len=9_001, output_len=77, tpot_ms=20),
    ]
    first, second = (estimate.solve_inference(GPUS["H100-SXM"], 4, r1, w, 4, 1, attention_dp=False) for w in asked)
    assert not first.feasible and first is second
    fresh = estimate._refused_unsearched.__wrapped__
    checked = 0
    for gpu_id, model_id, dtypes, engine in itertools.product(
        ("H100-SXM", "L4", "MI300X"),
        ("llama-3.1-70b", "deepseek-r1", "qwen3-30b-a3b"),
        (("fp8", "bf16"), ("bf16", "bf16"), ("int4", "fp8")),
        ("vllm", "sglang"),
    ):
        for tp, pp in ((1, 1), (2, 1), (4, 2), (8, 1), (1, 8), (3, 1), (1, 128)):
            for dp in {1, tp}:
                args = (GPUS[gpu_id], tp * pp, MODELS[model_id], *dtypes, engine, tp, pp, dp)
                kept, afresh = estimate._refused_unsearched(*args), fresh(*args)
                assert (kept is None) == (afresh is None), args
                if kept is not None and afresh is not None:
                    checked += 1
                    assert (kept.reason, kept.memory_gb, kept.gpu_id) == (
                        afresh.reason,
                        afresh.memory_gb,
                        afresh.gpu_id,
                    )
    assert checked > 100
