"""A refusal writes its words and memory footprint when first read: a ranking refuses about a hundred layouts and
shows the one that explains each machine. What is read is what was written eagerly before; a lone request's check
reuses batch 1's decode step."""

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
