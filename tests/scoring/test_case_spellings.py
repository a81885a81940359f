"""A publication's table typed in other case or with spaces ("FP8", " vLLM ", "h100-sxm", "TensorRT-LLM") reads as
the README's spelling, so its rows are predicted as the README's would be instead of uncovered or misread."""

import csv
from pathlib import Path

import pytest

from app.calibration.inference.validate_inference import predict_inference_case
from app.calibration.training.validate_training import predict_training_case
from app.calibration.validation.case_files import read_cases, with_cumulative_techniques, with_readme_spellings
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from tests.scoring.test_validation_errors import INFERENCE_ROW, TRAINING_ROW, VALIDATION

GPUS, MODELS = load_gpu_specs(), load_model_specs()
INFERENCE = dict(INFERENCE_ROW, source="s", engine="vllm", gpu_count="1", weight_dtype="fp8", statistic="value")
TRAINING = dict(TRAINING_ROW, framework="megatron-lm", gpu="H100-SXM", model="llama-3.1-8b")


def _write(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(
    ("row", "typed", "predict"),
    [
        (
            INFERENCE,
            {"gpu": "h100-sxm", "engine": " vLLM ", "weight_dtype": "FP8", "metric": "Output_Tok_S_Per_GPU"},
            predict_inference_case,
        ),
        (
            INFERENCE,
            {"model": " Llama-3.1-8B", "scenario": "Fixed_Batch", "statistic": "VALUE"},
            predict_inference_case,
        ),
        (
            TRAINING,
            {"gpu": " h100-sxm ", "framework": "Megatron-Core", "precision": "BF16", "method": "Pretrain"},
            predict_training_case,
        ),
    ],
)
def test_a_row_typed_in_other_case_is_predicted_as_the_readme_spelling(tmp_path, row, typed, predict):
    readme = read_cases(_write(tmp_path / "a.csv", [row]))[0]
    other = read_cases(_write(tmp_path / "b.csv", [dict(row, **typed)]))[0]
    assert other == readme
    assert predict(other, GPUS, MODELS).covered


def test_tensorrt_llm_spelled_out_reads_as_trtllm_not_the_vllm_class(tmp_path):
    names = ("TensorRT-LLM", "llama.cpp", "trtllm", "vllm")
    rows = read_cases(_write(tmp_path / "c.csv", [dict(INFERENCE, engine=name) for name in names]))
    assert [row["engine"] for row in rows] == ["trtllm", "llamacpp", "trtllm", "vllm"]
    spelled_out, _, trtllm, vllm = (predict_inference_case(row, GPUS, MODELS).predicted for row in rows)
    assert spelled_out == trtllm != vllm


def test_an_id_no_reference_row_spells_stays_as_typed_and_uncovered(tmp_path):
    row = read_cases(_write(tmp_path / "d.csv", [dict(INFERENCE, gpu="H100")]))[0]
    assert row["gpu"] == "H100"
    assert predict_inference_case(row, GPUS, MODELS).reason == "unknown gpu id"


@pytest.mark.skipif(not VALIDATION.exists(), reason="../shared/validation is not present")
@pytest.mark.parametrize("name", ["inference_cases.csv", "training_cases.csv"])
def test_the_public_files_already_use_the_readme_spellings(name):
    with open(VALIDATION / name, encoding="utf-8", newline="") as handle:
        raw = list(csv.DictReader(handle))
    assert with_readme_spellings([dict(row) for row in raw]) == raw
    assert read_cases(VALIDATION / name) == with_cumulative_techniques(raw)
