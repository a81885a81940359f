"""No prediction beyond physics on a random sample of the synthetic grid (scripts/physics_grid.py runs all of it),
and the two violations the grid found, pinned."""

from dataclasses import replace

import pytest

from app.calibration.inference.case_setup import case_setup
from app.calibration.inference.validate_inference import predict_inference_case, predict_setup
from app.calibration.validation import physics_grid as grid
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.batching.operating_points import operating_point

GPUS, MODELS = load_gpu_specs(), load_model_specs()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_sample_of_the_inference_grid_stays_within_physics(seed):
    rows = list(grid.inference_rows(GPUS, MODELS, share=0.0006, seed=seed))
    checked = [grid.check_row(row, GPUS, MODELS) for row in rows]
    assert len(rows) > 1000 and sum(covered for covered, _ in checked) > len(rows) / 3
    assert [(v.kind, v.row["case_id"], v.predicted, v.bound) for _, v in checked if v] == []


def test_a_sample_of_the_training_grid_stays_within_physics():
    rows = list(grid.training_rows(GPUS, share=0.002, seed=1))
    checked = [grid.check_row(row, GPUS, MODELS) for row in rows]
    assert len(rows) > 1000 and sum(covered for covered, _ in checked) > len(rows) / 3
    assert [(v.kind, v.row["case_id"], v.predicted, v.bound) for _, v in checked if v] == []


def _row(**cells):
    row = {
        "case_id": "g",
        "source": "s",
        "engine": "vllm",
        "gpu": "T4",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "pipeline_parallel": "1",
        "model": "llama-2-7b",
        "weight_dtype": "fp8",
        "input_len": "512",
        "output_len": "1",
        "scenario": "fixed_batch",
        "batch": "64",
        "metric": "ttft_ms",
        "statistic": "mean",
        "value": "1",
        "notes": "",
        "date": "2026-06",
    }
    return row | cells


def test_a_fixed_batch_over_the_kv_capacity_waits_for_its_waves_before_its_first_token():
    # 64 prompts of 512 tokens on a T4 (65 TFLOPS FP16): their FLOPs alone take 3.3 s on average before a first
    # token; the validator gave the first wave's TTFT (3.2 s, 21 of them at a time) to every request
    row = _row(engine="sglang")
    over = case_setup(row, GPUS, MODELS)
    assert not isinstance(over, str)
    cap = over.options[0][1]
    assert 1 < cap < 64
    at_cap = case_setup(dict(row, batch=str(cap)), GPUS, MODELS)
    assert not isinstance(at_cap, str)
    assert predict_setup(over) > 2 * predict_setup(at_cap)  # three waves: the mean request waits for one
    covered, violation = grid.check_row(row, GPUS, MODELS)
    assert covered and violation is None
    throughput = dict(row, metric="output_tok_s_per_gpu")
    assert predict_inference_case(throughput, GPUS, MODELS).predicted == pytest.approx(
        predict_inference_case(dict(throughput, batch=str(cap)), GPUS, MODELS).predicted
    )  # the rate is still the full cache's


def test_a_closed_loop_of_one_token_requests_yields_no_more_than_a_token_a_step_per_sequence():
    # sglang, 128 clients of 512-token prompts and one output token on an A100-40GB: Little's law over the requests'
    # TTFT gave 52 tok/s/GPU, above the 47 its FLOPs allow (each step carries the other prompts' prefills)
    row = _row(gpu="A100-SXM-40GB", engine="sglang", scenario="concurrency", batch="", concurrency="128")
    row["metric"] = "output_tok_s_per_gpu"
    covered, violation = grid.check_row(row, GPUS, MODELS)
    assert covered and violation is None
    setup = case_setup(row, GPUS, MODELS)
    assert not isinstance(setup, str)
    ctx, cap = setup.options[0]
    point = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", float(cap), 512, 1)
    assert point.tokens_per_s <= point.batch / point.tpot_ms * 1e3 * (1 + 1e-9)
    longer = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", float(cap), 512, 256)
    assert longer.tokens_per_s < longer.batch / longer.tpot_ms * 1e3  # a long life: Little's law binds


def test_check_prediction_flags_each_bound_side():
    row = _row(metric="ttft_ms")
    bounds = {"ttft_ms": ("TTFT below compute floor", 10.0, "min"), "mfu_pct": ("MFU > 100 %", 100.0, "max")}
    ok = grid.CasePrediction("g", "ttft_ms", "s", "T4", 11.0, 1.0, 0.0, True, "modelled")
    assert grid.check_prediction(row, ok, bounds) is None
    assert grid.check_prediction(row, replace(ok, predicted=9.0), bounds).kind == "TTFT below compute floor"
    assert grid.check_prediction(row, replace(ok, predicted=float("nan")), bounds).kind == "not finite or not positive"
    assert grid.check_prediction(row, replace(ok, covered=False, predicted=None, reason=""), bounds) is not None
    mfu = dict(row, metric="mfu_pct")
    assert grid.check_prediction(mfu, replace(ok, metric="mfu_pct", predicted=101.0), bounds).kind == "MFU > 100 %"


@pytest.mark.parametrize(("engine", "scenario"), [("vllm", "request_rate"), ("sglang", "max_throughput")])
def test_a_tpot_of_one_token_requests_is_not_covered_and_says_why(engine, scenario):
    # there is no step after the first token to time: the replay said 0.0, the steady state a 10 s "TPOT" (sglang)
    row = _row(gpu="H100-SXM", model="llama-3.1-8b", weight_dtype="bf16", engine=engine, scenario=scenario)
    row |= {"batch": "", "metric": "tpot_ms", "notes": "request rate 2 req/s"}
    p = predict_inference_case(row, GPUS, MODELS)
    assert not p.covered and "no token after the first" in p.reason
    assert predict_inference_case(dict(row, output_len="2"), GPUS, MODELS).covered
