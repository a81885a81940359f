"""Validation summary on the public case file (skipped when ../shared/validation is absent)."""

from pathlib import Path

import pytest

from app.calibration.inference.validate_inference import predict_inference_case
from app.calibration.validation.summary import make_prediction, summarise
from app.calibration.validation.validate import validate_file
from app.catalog.spec_files import load_gpu_specs, load_model_specs

CASES = Path(__file__).resolve().parents[2] / ".." / "shared" / "validation" / "inference_cases.csv"
GPUS, MODELS = load_gpu_specs(), load_model_specs()
KEYS = {
    "cases",
    "covered",
    "median_abs_pct_error",
    "p90_abs_pct_error",
    "within_25pct_share",
    "signed_median_pct_error",
}


def test_unknown_ids_and_scenarios_are_not_covered_and_never_raise():
    row = {
        "case_id": "x",
        "gpu": "NOPE",
        "model": "llama-3.1-8b",
        "scenario": "max_throughput",
        "metric": "output_tok_s_per_gpu",
        "value": "100",
    }
    assert not predict_inference_case(row, GPUS, MODELS).covered
    row.update(gpu="H100-SXM", scenario="weird")
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert not prediction.covered and "not modelled" in prediction.reason
    # a statistic outside the README's enum is refused, not predicted as the mean
    row.update(scenario="concurrency", concurrency="8", metric="ttft_ms", input_len="1000", output_len="100")
    assert predict_inference_case({**row, "statistic": "p99"}, GPUS, MODELS).covered
    odd = predict_inference_case({**row, "statistic": "p95"}, GPUS, MODELS)
    assert not odd.covered and "statistic 'p95' not modelled" in odd.reason


def test_summary_keys_and_pct_error_sign():
    p = make_prediction({"case_id": "a", "metric": "ttft_ms", "value": "100", "source": "s", "gpu": "g"}, 125.0, "")
    assert p.pct_error == 25.0
    summary = summarise([p])
    assert set(summary) >= KEYS and set(summary["by_metric"]["ttft_ms"]) == KEYS
    assert summary["within_25pct_share"] == 1.0


@pytest.mark.skipif(not CASES.exists(), reason="shared/validation not present beside the repo")
def test_public_file_meets_the_accuracy_target():
    result = validate_file(CASES, GPUS, MODELS, loso=False)
    summary = result["summary"]
    assert summary["covered"] / summary["cases"] > 0.95
    throughput = summary["by_metric"]["output_tok_s_per_gpu"]
    # A regression guard at today's in-sample level, every row weighted equally (2026-12-03: 10.8 % median, 68 %
    # within ±25 %; argonne's MI300X rows, 33 % of the file, pull it down). The headline, publication-weighted LOSO,
    # is guarded in test_loso.py.
    assert throughput["median_abs_pct_error"] <= 12.5
    assert throughput["within_25pct_share"] >= 0.65


def _batch_row(**cells: str) -> dict:
    """A fixed batch of 8 short requests of Llama-3.1-8B on one H100, with `cells` replaced."""
    row = {
        "case_id": "b",
        "gpu": "H100-SXM",
        "model": "llama-3.1-8b",
        "scenario": "fixed_batch",
        "metric": "output_tok_s_per_gpu",
        "weight_dtype": "bf16",
        "batch": "8",
        "input_len": "128",
        "output_len": "128",
        "value": "100",
    }
    return {**row, **cells}


def test_unreadable_cells_are_not_covered_with_a_reason():
    row = _batch_row(batch="lots")
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert not prediction.covered and "lots" in prediction.reason
    empty_value = predict_inference_case(dict(row, batch="8", value=""), GPUS, MODELS)
    assert not empty_value.covered and "measured value" in empty_value.reason
    junk_value = predict_inference_case(dict(row, batch="8", value="n/a"), GPUS, MODELS)
    assert not junk_value.covered


@pytest.mark.parametrize(
    ("column", "text"),
    [
        ("batch", "nan"),
        ("batch", "0"),
        ("batch", "2.5"),
        ("tensor_parallel", "0"),
        ("gpu_count", "-1"),
        ("input_len", "inf"),
        ("output_len", "-5"),
        ("concurrency", "0"),
        ("ttft_limit_ms", "nan"),
    ],
)
def test_a_number_outside_its_column_range_is_not_covered_and_names_the_column(column: str, text: str):
    scenario = "concurrency" if column == "concurrency" else "fixed_batch"
    row = _batch_row(scenario=scenario, **{"concurrency": "8", column: text})
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert not prediction.covered and prediction.predicted is None
    assert column in prediction.reason and repr(text) in prediction.reason
    assert predict_inference_case(dict(row, **{column: "8"}), GPUS, MODELS).covered  # the same row, readable


@pytest.mark.parametrize("value", ["nan", "inf", "-3", "0"])
def test_a_measured_value_that_is_not_a_finite_positive_number_is_not_covered(value: str):
    row = {"case_id": "v", "metric": "ttft_ms", "value": value, "source": "s", "gpu": "g"}
    prediction = make_prediction(row, 125.0, "")
    assert not prediction.covered and prediction.pct_error is None and prediction.measured is None


def test_a_request_whose_kv_cache_cannot_fit_is_not_covered():
    row = _batch_row(batch="1", input_len="1e9")
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert not prediction.covered and "does not fit" in prediction.reason
    assert make_prediction(row, float("nan"), "modelled").covered is False  # a non-finite estimate is never scored


def _serving_row(**cells: str) -> dict:
    """A request-rate row as the SGLang-vs-vLLM ShareGPT benchmark states it: rate, in-flight count, no lengths."""
    row = {
        "case_id": "r",
        "source": "s",
        "engine": "vllm",
        "gpu": "A100-SXM-80GB",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "model": "llama-3.1-8b",
        "weight_dtype": "bf16",
        "scenario": "request_rate",
        "concurrency": "6.77",
        "metric": "ttft_ms",
        "statistic": "median",
        "value": "100",
        "notes": "request rate 4 req/s (Poisson); vLLM v0.6.0 (--num-scheduler-steps 10)",
    }
    return {**row, **cells}


def test_a_rate_without_lengths_runs_at_the_stated_in_flight_count():
    from app.calibration.inference.case_setup import case_setup

    setup = case_setup(_serving_row(), GPUS, MODELS)
    assert not isinstance(setup, str)
    assert (setup.scenario, setup.batch, setup.requests_per_s) == ("concurrency", 6.77, None)
    assert any("stated in-flight count" in n for n in setup.notes)
    known = case_setup(_serving_row(input_len="1000", output_len="200"), GPUS, MODELS)
    assert not isinstance(known, str) and known.scenario == "request_rate" and known.requests_per_s == 4.0


def test_multi_step_scheduling_delays_admission_by_half_the_scheduler_steps():
    from dataclasses import replace

    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import _point, predict_setup
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

    vllm = case_setup(_serving_row(), GPUS, MODELS)
    sglang = case_setup(_serving_row(engine="sglang"), GPUS, MODELS)
    assert not isinstance(vllm, str) and not isinstance(sglang, str)
    assert (vllm.scheduler_steps, sglang.scheduler_steps) == (10, 1)  # the flag is vLLM's: SGLang rows ignore it
    once = replace(vllm, scheduler_steps=1)
    point = _point(once, *once.options[0], DEFAULT_EFFICIENCY)
    assert point is not None
    extra = predict_setup(vllm) - predict_setup(once)
    assert extra == pytest.approx(4.5 * point.tpot_ms)
    tpot = replace(vllm, metric="tpot_ms")
    assert predict_setup(tpot) == predict_setup(replace(tpot, scheduler_steps=1))  # the mean TPOT is unchanged


def test_each_statistic_is_scored_against_its_own_prediction():
    """A median TTFT row of Poisson arrivals is predicted as the median (the prefill queue at its median), a p99 row
    as the mean times the fitted ratio; a median TPOT is the mean, and so is a closed loop's median TTFT. Long
    prompts keep the queue busy, so the three TTFTs differ."""
    from dataclasses import replace

    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import _point, predict_setup
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

    row = _serving_row(engine="trtllm", concurrency="32", input_len="5000", output_len="100")
    row["notes"] = "request rate 2 req/s (Poisson)"
    row = {**row, "model": "llama-3.3-70b", "weight_dtype": "fp8", "gpu": "H100-SXM", "gpu_count": "2"}
    row["tensor_parallel"] = "2"
    median = case_setup(row, GPUS, MODELS)
    assert not isinstance(median, str) and median.statistic == "median" and median.poisson_arrivals
    mean, p99 = replace(median, statistic="mean"), replace(median, statistic="p99")
    point = _point(mean, *mean.options[0], DEFAULT_EFFICIENCY)
    assert point is not None and point.prefill_utilisation > 0.5
    assert predict_setup(median) == pytest.approx(point.ttft_median_ms)
    assert predict_setup(median) < predict_setup(mean) < predict_setup(p99)
    assert predict_setup(p99) == pytest.approx(predict_setup(mean) * DEFAULT_EFFICIENCY.p99_ttft_over_mean)
    tpot = replace(median, metric="tpot_ms")
    assert predict_setup(tpot) == predict_setup(replace(tpot, statistic="mean"))
    assert case_setup({**row, "statistic": "value"}, GPUS, MODELS).statistic == "mean"
    closed = replace(median, scenario="concurrency", poisson_arrivals=False, requests_per_s=None)
    assert predict_setup(closed) == predict_setup(replace(closed, statistic="mean"))


def test_a_stated_burst_caps_the_running_batch_at_its_request_count():
    from app.calibration.inference.case_setup import case_setup

    row = _burst_row(input_len="202", output_len="214", metric="tpot_ms", value="21")
    burst = case_setup(row, GPUS, MODELS)
    unbounded = case_setup(dict(row, notes="offline"), GPUS, MODELS)
    assert not isinstance(burst, str) and not isinstance(unbounded, str)
    assert max(cap for _, cap in burst.options) == 500
    assert min(cap for _, cap in unbounded.options) > 500  # KV memory and TensorRT-LLM's cap allow more
    assert any("burst of 500" in note for note in burst.notes)


def _burst_row(**cells) -> dict:
    row = {
        "case_id": "b",
        "source": "s",
        "engine": "trtllm",
        "gpu": "H100-SXM",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "model": "llama-3.1-8b",
        "weight_dtype": "bf16",
        "input_len": "467",
        "output_len": "256",
        "scenario": "max_throughput",
        "metric": "ttft_ms",
        "value": "3335",
        "notes": "request rate = INF: all 500 requests issued at once",
    }
    return {**row, **cells}


def test_a_bursts_ttft_is_its_replay_and_an_unstated_burst_is_the_clients_default():
    """TensorRT-LLM v0.14 sent 500 requests at once: their mean TTFT (3.3 s on one H100 for Llama-3.1-8B) is the
    drain of 500 prompts, which the steady state cannot see; it was not covered before the replay."""
    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import predict_setup
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
    from app.scoring.inference.batching.finite_run import RUN_REQUESTS_DEFAULT, replay_run

    stated = case_setup(_burst_row(), GPUS, MODELS)
    assert not isinstance(stated, str) and stated.run_requests == 500
    ctx, cap = stated.options[0]
    run = replay_run(ctx, DEFAULT_EFFICIENCY, 500, None, cap, 467, 256)
    assert run is not None
    assert predict_setup(stated) == pytest.approx(run.mean_ttft_ms)
    assert 0.75 < predict_setup(stated) / 3335 < 1.25
    p99 = case_setup(_burst_row(statistic="p99"), GPUS, MODELS)
    assert predict_setup(p99) == pytest.approx(run.ttft_quantile_ms(0.99)) and predict_setup(p99) > predict_setup(
        stated
    )
    unstated = case_setup(_burst_row(notes="request rate inf"), GPUS, MODELS)
    assert not isinstance(unstated, str) and unstated.run_requests == RUN_REQUESTS_DEFAULT
    assert any("not stated" in note for note in unstated.notes)
    assert predict_setup(unstated) > predict_setup(stated)  # twice the prompts ahead
    huge = predict_inference_case(_burst_row(notes="request rate inf, 2,000,000 prompts"), GPUS, MODELS)
    assert not huge.covered and "beyond what the validator replays" in huge.reason
    long_open_loop = case_setup(
        _burst_row(scenario="request_rate", notes="request rate 1 req/s, 2,000,000 prompts"), GPUS, MODELS
    )
    assert not isinstance(long_open_loop, str) and long_open_loop.run_requests is None
    static = predict_inference_case(_burst_row(engine="llamacpp"), GPUS, MODELS)
    assert not static.covered and "statically batching" in static.reason
    other = case_setup(_burst_row(engine="other"), GPUS, MODELS)  # NIM, TGI, LMDeploy: continuous, the vllm class
    assert not isinstance(other, str) and other.run_requests == 500


def test_an_offline_dataset_run_stays_the_steady_state():
    """MLPerf Offline issues the whole dataset at once: no count is replayed for its throughput."""
    from app.calibration.inference.case_setup import case_setup

    row = _burst_row(metric="output_tok_s_per_gpu", notes="MLPerf Offline: all samples issued at once")
    setup = case_setup(row, GPUS, MODELS)
    assert not isinstance(setup, str) and setup.run_requests is None


@pytest.mark.parametrize(
    ("notes", "requests"),
    [
        ("request rate inf, 5000 ShareGPT prompts", 5000),
        ("benchmark_serving --request-rate inf --num-prompts 2,000", 2000),
        ("Triton perf: QPS = INF, 200 requests", 200),
        ("vllm serve, request_rate=inf", 1000),
        ("request rate inf; 10 warmup requests discarded, then 800 requests", 800),
        ("10 warm-up prompts, then --num-prompts 300 at request rate inf", 300),
    ],
)
def test_a_burst_however_worded_replays_its_throughput_over_its_requests(notes: str, requests: int):
    from app.calibration.inference.case_setup import case_setup

    setup = case_setup(_burst_row(metric="output_tok_s_per_gpu", notes=notes), GPUS, MODELS)
    assert not isinstance(setup, str) and setup.run_requests == requests


def test_an_overloaded_open_loop_without_an_in_flight_count_queues_for_its_run():
    from dataclasses import replace

    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import _point, predict_setup
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

    row = _burst_row(scenario="request_rate", notes="request rate 200 req/s (Poisson), 1000 prompts")
    setup = case_setup(row, GPUS, MODELS)
    assert not isinstance(setup, str) and setup.run_requests == 1000 and setup.requests_per_s == 200
    point = _point(setup, *setup.options[0], DEFAULT_EFFICIENCY)
    assert point is not None and point.backlog_per_s > 0
    assert predict_setup(setup) > 10 * point.ttft_ms  # the backlog, not the running batch's own wait
    longer = replace(setup, run_requests=2000)
    assert predict_setup(longer) > 1.5 * predict_setup(setup)
    in_flight = case_setup({**row, "notes": "request rate 200 req/s, 33 requests in flight"}, GPUS, MODELS)
    assert not isinstance(in_flight, str) and in_flight.run_requests == 1000  # an in-flight count is not the run
    assert any("replayed only if the rate is above capacity" in note for note in in_flight.notes)
    calm = case_setup(
        _burst_row(scenario="request_rate", notes="request rate 1 req/s (Poisson), 1000 prompts"), GPUS, MODELS
    )
    assert not isinstance(calm, str)
    calm_point = _point(calm, *calm.options[0], DEFAULT_EFFICIENCY)
    assert calm_point is not None and calm_point.backlog_per_s == 0
    assert predict_setup(calm) == pytest.approx(calm_point.ttft_ms)  # below capacity: the steady state


def test_a_fixed_batch_over_the_kv_capacity_runs_at_the_capacity_rate():
    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import predict_setup

    row = {
        "case_id": "w",
        "source": "s",
        "engine": "vllm",
        "gpu": "A100-SXM-40GB",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "model": "llama-2-7b",
        "weight_dtype": "fp16",
        "input_len": "2048",
        "output_len": "2048",
        "scenario": "fixed_batch",
        "batch": "64",
        "metric": "output_tok_s_per_gpu",
        "value": "415",
    }
    over = case_setup(row, GPUS, MODELS)
    assert not isinstance(over, str)
    cap = over.options[0][1]
    assert 1 < cap < 64  # 64 sequences of up to 4k tokens of MHA cache do not fit in 40 GB beside the weights
    at_cap = case_setup(dict(row, batch=str(cap)), GPUS, MODELS)
    assert not isinstance(at_cap, str)
    assert predict_setup(over) == predict_setup(at_cap)
    assert any(f"{cap} sequences run at a time" in note for note in over.notes)
    assert not any("over the KV capacity" in note for note in at_cap.notes)
    assert any("over the KV capacity: " in note for note in over.notes)  # the cache sets this cap


def test_a_fixed_batch_over_an_engine_cap_names_the_cap_not_the_kv_capacity():
    """words31: a llama.cpp batch of 16 runs 4 at a time because llama-server has 4 slots (its default --parallel),
    not because the KV cache is full; the note read "over the KV capacity". A stated cap reads as stated."""
    from app.calibration.inference.case_setup import case_setup

    row = {
        "case_id": "l",
        "source": "s",
        "engine": "llamacpp",
        "gpu": "H100-SXM",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "model": "llama-3.1-8b",
        "weight_dtype": "fp16",
        "input_len": "512",
        "output_len": "128",
        "scenario": "fixed_batch",
        "batch": "16",
        "metric": "output_tok_s_per_gpu",
        "value": "100",
    }
    slots = case_setup(row, GPUS, MODELS)
    assert not isinstance(slots, str)
    assert slots.options[0][1] == 4
    note = next(note for note in slots.notes if "sequences run at a time" in note)
    assert note.startswith("batch 16 over llama-server's 4 slots (its default --parallel 4; the KV cache holds ")
    assert "KV capacity" not in note
    stated = case_setup(dict(row, engine="vllm", notes="max_num_seqs=8"), GPUS, MODELS)
    assert not isinstance(stated, str)
    assert any(n.startswith("batch 16 over the engine's stated batch cap (8): 8 sequences") for n in stated.notes)


def test_an_unstated_tp_beyond_the_scale_up_domain_is_not_assumed_and_says_so():
    # 70B FP8 on a system of 8 L40S (48 GB, no NVLink), TP not published: the weights fit the system, not one card
    row = {
        "case_id": "p",
        "gpu": "L40S",
        "gpu_count": "8",
        "model": "llama-2-70b",
        "scenario": "max_throughput",
        "metric": "output_tok_s_per_gpu",
        "weight_dtype": "fp8",
        "input_len": "512",
        "output_len": "300",
        "value": "100",
    }
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert not prediction.covered and "beyond the GPU's scale-up domain" in prediction.reason
    alone = predict_inference_case(dict(row, gpu_count="1"), GPUS, MODELS)
    assert not alone.covered and "weights do not fit" in alone.reason  # one card cannot hold it at all


@pytest.mark.parametrize(
    ("notes", "input_len"),
    [
        ("input: CNN/DailyMail, 13,368 samples, input <= 1,919 tokens, output <= 128", 959.5),  # MLPerf GPT-J
        ("input: OpenOrca subset of 24,576 samples (input and output each < 1,024 tokens)", 512.0),  # Llama-2-70B
        ("input: OpenOrca+GSM8K+MBXP mix, 15,000 samples; mean input length not found", 512.0),  # no cap: default
    ],
)
def test_an_unpublished_prompt_length_is_read_at_half_its_stated_cap(notes: str, input_len: float):
    from app.calibration.inference.case_setup import case_setup

    setup = case_setup(_batch_row(input_len="", notes=notes), GPUS, MODELS)
    assert not isinstance(setup, str) and setup.input_len == input_len
    assert any(note.startswith(f"input_len unknown: {input_len:g} tokens assumed") for note in setup.notes)
    stated = case_setup(_batch_row(input_len="300", notes=notes), GPUS, MODELS)
    assert not isinstance(stated, str) and stated.input_len == 300


@pytest.mark.parametrize(
    ("notes", "rate"),
    [
        ("request rate 4 req/s (Poisson), 1200 prompts", 4.0),
        ("vllm bench serve --request-rate 2.5 --num-prompts 500", 2.5),
        ("request_rate=8", 8.0),
        ("QPS 16, Triton perf analyzer", 16.0),
        ("request rate of 12 req/s", 12.0),
        ("achieved 16 req/s; concurrency DERIVED by Little's law = 4 req/s x 1.5 s", None),
        ("MLPerf Server: Poisson arrivals, target_qps=39.6", None),
        ("request rate = INF: all 500 requests issued at once", None),
    ],
)
def test_the_offered_rate_is_read_only_where_the_notes_name_it(notes: str, rate: float | None):
    from app.calibration.inference.case_notes import _request_rate

    assert _request_rate({"notes": notes}) == rate


def test_a_latency_row_without_tp_is_one_instance_of_its_gpu_count():
    """The README: gpu_count is one instance's (TP x PP); only per-GPU throughput rows may count a system of replicas.
    A TPOT row on 8 GPUs with TP unstated was priced at TP1 (the best per-GPU throughput), 8x the TPOT of TP8."""
    row = _batch_row(model="llama-3.1-70b", gpu_count="8", tensor_parallel="", metric="tpot_ms")
    stated = predict_inference_case({**row, "tensor_parallel": "8"}, GPUS, MODELS)
    unstated = predict_inference_case(row, GPUS, MODELS)
    assert unstated.predicted == pytest.approx(stated.predicted) and "TP8 assumed" in unstated.reason
    throughput = predict_inference_case({**row, "metric": "output_tok_s_per_gpu"}, GPUS, MODELS)
    assert "best per-GPU throughput" in throughput.reason  # a system of replicas may have run it


def test_an_empty_engine_or_weight_dtype_cell_says_what_was_assumed():
    """The training validator says 'precision empty: bf16 assumed'; the inference one ran vllm at bf16 silently."""
    row = {
        "case_id": "x",
        "gpu": "H100-SXM",
        "model": "llama-3.1-8b",
        "scenario": "concurrency",
        "concurrency": "8",
        "metric": "ttft_ms",
        "input_len": "1000",
        "output_len": "100",
        "value": "100",
    }
    prediction = predict_inference_case(row, GPUS, MODELS)
    assert prediction.covered
    assert "weight_dtype empty: bf16 assumed" in prediction.reason and "engine empty: vllm assumed" in prediction.reason
    stated = predict_inference_case({**row, "engine": "vllm", "weight_dtype": "bf16"}, GPUS, MODELS)
    assert "empty" not in stated.reason and stated.predicted == prediction.predicted
