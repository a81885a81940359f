"""Validation tells an estimator that crashes from a case it does not model: under a 95 % coverage floor, a crash
reported as an uncovered row would pass unseen."""

from pathlib import Path

import pytest

from app.calibration.inference import case_setup, validate_inference
from app.calibration.training import calibrate_training, validate_training
from app.calibration.validation.case_files import read_cases
from app.catalog.spec_files import load_gpu_specs, load_model_specs

VALIDATION = Path(__file__).resolve().parents[2].parent / "shared" / "validation"
GPUS, MODELS = load_gpu_specs(), load_model_specs()
CRASH_WORDS = ("could not model", "estimator error", "Error", "object has no attribute", "unsupported operand")
INFERENCE_ROW = {
    "case_id": "i",
    "gpu": "H100-SXM",
    "model": "llama-3.1-8b",
    "scenario": "fixed_batch",
    "metric": "output_tok_s_per_gpu",
    "batch": "8",
    "input_len": "1000",
    "output_len": "100",
    "value": "100",
}
TRAINING_ROW = {
    "case_id": "t",
    "source": "s",
    "gpu": "A100-SXM-80GB",
    "gpu_count": "8",
    "model": "llama-2-7b",
    "method": "pretrain",
    "precision": "bf16",
    "seq_len": "4096",
    "global_batch_seqs": "64",
    "metric": "tokens_s_per_gpu",
    "value": "3000",
}


def _broken(*args, **kwargs):
    raise TypeError("a bug in the estimator")


@pytest.mark.skipif(not VALIDATION.exists(), reason="../shared/validation is not present")
@pytest.mark.parametrize(
    ("name", "predict"),
    [
        ("inference_cases.csv", validate_inference.predict_inference_case),
        ("training_cases.csv", validate_training.predict_training_case),
    ],
)
def test_no_case_in_the_public_files_is_left_uncovered_by_a_crash(name, predict):
    predictions = [predict(row, GPUS, MODELS) for row in read_cases(VALIDATION / name)]
    crashed = [(p.case_id, p.reason) for p in predictions if not p.covered and any(w in p.reason for w in CRASH_WORDS)]
    assert crashed == []


def test_an_inference_estimator_error_raises_instead_of_leaving_the_case_uncovered(monkeypatch):
    assert validate_inference.predict_inference_case(INFERENCE_ROW, GPUS, MODELS).covered
    monkeypatch.setattr(validate_inference, "predict_setup", _broken)
    with pytest.raises(TypeError, match="a bug in the estimator"):
        validate_inference.predict_inference_case(INFERENCE_ROW, GPUS, MODELS)
    monkeypatch.setattr(case_setup, "_case_setup", _broken)  # reading the row: a bug, not an odd row
    with pytest.raises(TypeError, match="a bug in the estimator"):
        validate_inference.predict_inference_case(INFERENCE_ROW, GPUS, MODELS)


def test_a_training_estimator_error_raises_instead_of_leaving_the_case_uncovered(monkeypatch):
    assert validate_training.predict_training_case(TRAINING_ROW, GPUS, MODELS).covered
    monkeypatch.setattr(validate_training, "estimate_training", _broken)
    with pytest.raises(TypeError, match="a bug in the estimator"):
        validate_training.predict_training_case(TRAINING_ROW, GPUS, MODELS)
    with pytest.raises(TypeError, match="a bug in the estimator"):
        calibrate_training.fit_cases([TRAINING_ROW], GPUS, MODELS)


def test_the_training_fit_names_each_row_it_leaves_out():
    skipped: list[str] = []
    cases = calibrate_training.fit_cases(
        [TRAINING_ROW, {**TRAINING_ROW, "case_id": "odd", "seq_len": ""}], GPUS, MODELS, skipped
    )
    assert len(cases) == 1
    assert skipped == ["odd: unreadable row: seq_len empty: tokens per sequence unknown"]


JUNK = ("", "abc", "-1", "0", "2.5", "nan", "inf", "1e13")


@pytest.mark.skipif(not VALIDATION.exists(), reason="../shared/validation is not present")
@pytest.mark.parametrize(
    ("name", "predict"),
    [
        ("inference_cases.csv", validate_inference.predict_inference_case),
        ("training_cases.csv", validate_training.predict_training_case),
    ],
)
def test_any_cell_of_a_row_replaced_by_junk_gives_a_reason_never_an_exception(name, predict):
    """Issue 10, item 7: an unreadable or unsupported row is `covered: false` with a reason (a weight_dtype outside
    the README's vocabulary once raised KeyError)."""
    rows = read_cases(VALIDATION / name)
    row = next(r for r in rows if predict(r, GPUS, MODELS).covered)
    for column in row:
        for junk in JUNK:
            prediction = predict({**row, column: junk}, GPUS, MODELS)
            assert prediction.covered or prediction.reason, (column, junk)


@pytest.mark.parametrize(
    ("cells", "reason"),
    [
        ({"gpu_count": "abc"}, "unreadable row: gpu_count 'abc'"),
        ({"gpu_count": "0"}, "unreadable row: gpu_count '0'"),
        ({"gpu_count": "1", "tensor_parallel": "2"}, "tensor_parallel 2 × pipeline_parallel 1 does not divide"),
        ({"gpu_count": "3", "tensor_parallel": "3"}, "tensor parallel 3 does not divide the model's 32"),
        ({"gpu_count": "64", "tensor_parallel": "1", "pipeline_parallel": "64"}, "pipeline parallel 64 is more than"),
    ],
)
def test_a_case_with_a_stated_layout_it_cannot_run_is_uncovered_with_the_reason(cells, reason):
    setup = case_setup.case_setup({**INFERENCE_ROW, "tensor_parallel": "1", **cells}, GPUS, MODELS)
    assert isinstance(setup, str) and setup.startswith(reason)
    assert not isinstance(case_setup.case_setup({**INFERENCE_ROW, "tensor_parallel": "1"}, GPUS, MODELS), str)


def test_validate_on_a_training_file_of_one_source_holds_it_out_without_raising(tmp_path):
    from app.calibration.validation.validate import validate_file

    path = tmp_path / "one_source.csv"
    path.write_text(",".join(TRAINING_ROW) + "\n" + ",".join(TRAINING_ROW.values()) + "\n", encoding="utf-8")
    result = validate_file(path, GPUS, MODELS, loso=True)
    assert result["summary"]["covered"] == 1 and result["cases"][0]["loso_predicted"] > 0
