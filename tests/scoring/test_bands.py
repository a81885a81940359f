"""Bands: p10-p90 of LOSO residuals per regime, widened where evidence is thin, never excluding the estimate."""

import pytest

from app.calibration.bands import band_table
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import bands
from app.scoring.efficiency.band_table import BAND_TABLE

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _case_rows(ratios: list[float], engine: str, dtype: str = "fp16") -> tuple[list[dict], list[dict]]:
    rows = [
        {
            "gpu": "H100-SXM",
            "model": "llama-3.1-8b",
            "metric": "output_tok_s_per_gpu",
            "engine": engine,
            "weight_dtype": dtype,
        }
        for _ in ratios
    ]
    cases = [{"loso_predicted": 100.0, "measured": 100.0 * r} for r in ratios]
    return rows, cases


def test_a_well_evidenced_regime_uses_its_own_quantiles_and_contains_the_estimate():
    rows, cases = _case_rows([0.8 + 0.01 * i for i in range(41)], "trtllm")
    table = band_table(rows, cases, GPUS, MODELS)
    low, high, count = table["output_tok_s_per_gpu|trtllm|nvidia|16bit|dense"]
    assert (low, high, count) == (pytest.approx(0.84), pytest.approx(1.16), 41)


def test_a_thin_regime_takes_the_envelope_with_its_parent():
    wide_rows, wide = _case_rows([0.5 + 0.025 * i for i in range(41)], "vllm")
    thin_rows, thin = _case_rows([0.95, 1.0, 1.02, 1.03, 1.05, 1.06], "vllm", dtype="fp8")
    table = band_table(wide_rows + thin_rows, wide + thin, GPUS, MODELS)
    parent = table["output_tok_s_per_gpu|vllm|nvidia"]
    low, high, count = table["output_tok_s_per_gpu|vllm|nvidia|fp8|dense"]
    assert count == 6 and low == parent[0] and high == parent[1]


def test_a_biased_regime_still_contains_its_estimate():
    rows, cases = _case_rows([0.2 + 0.005 * i for i in range(30)], "vllm")
    low, high, _ = band_table(rows, cases, GPUS, MODELS)["output_tok_s_per_gpu|vllm|nvidia|16bit|dense"]
    assert low < 0.25 and high == 1.0


def test_unseen_regimes_fall_back_to_the_parent_then_the_metric():
    assert "output_tok_s_per_gpu|trtllm|nvidia|fp4|moe" not in BAND_TABLE  # FP4 measured, but not a TRT-LLM MoE
    low, high, evidence = bands.band_ratio("output_tok_s_per_gpu", "trtllm", "NVIDIA", "fp4", "moe")
    assert (low, high) == BAND_TABLE["output_tok_s_per_gpu|trtllm|nvidia"][:2] and "trtllm|nvidia" in evidence
    assert (
        bands.band_ratio("output_tok_s_per_gpu", "hf", "tenstorrent", "bf16", "dense")[:2]
        == BAND_TABLE["output_tok_s_per_gpu"][:2]
    )
    assert bands.band_ratio("no_such_metric", "x", "y", "z", "w")[:2] == bands.UNKNOWN_BAND


def test_a_precision_no_row_measured_widens_the_band_to_the_research_notes_fifty_percent():
    assert ("tokens_s_per_gpu", "fp8") in bands.MEASURED_PRECISIONS
    assert ("tokens_s_per_gpu", "fp4") not in bands.MEASURED_PRECISIONS  # no FP4 training row in the file
    parent = BAND_TABLE["tokens_s_per_gpu|megatron-lm|nvidia"][:2]
    low, high, evidence = bands.band_ratio("tokens_s_per_gpu", "megatron-lm", "NVIDIA", "fp4", "pretrain")
    assert low == min(parent[0], bands.UNKNOWN_BAND[0]) and high == max(parent[1], bands.UNKNOWN_BAND[1])
    assert "no validation row measures fp4" in evidence
    assert bands.band_ratio("output_tok_s_per_gpu", "trtllm", "NVIDIA", "int8", "dense")[:2] == bands.UNKNOWN_BAND
    assert bands.band_ratio("tokens_s_per_gpu", "megatron-lm", "NVIDIA", "fp8", "pretrain")[1] < 1.6


def test_committed_bands_always_contain_their_estimate():
    assert BAND_TABLE and all(low <= 1.0 <= high for low, high, _ in BAND_TABLE.values())


def test_precision_classes_map_to_themselves():
    for dtype in ("bf16", "fp8", "fp4", "int4", "int8", "mxint3"):
        cls = bands.precision_class(dtype)
        assert bands.precision_class(cls) == cls


def test_validation_scores_a_case_against_the_band_the_product_shows():
    from app.calibration.validate import _ratios

    row = {"metric": "tokens_s_per_gpu", "framework": "llm-foundry", "gpu": "H100-SXM", "model": "llama-3.1-8b",
           "precision": "bf16", "method": "pretrain"}  # fmt: skip
    product = bands.band_ratio("tokens_s_per_gpu", "llm-foundry", "NVIDIA", "bf16", "pretrain")
    assert _ratios(row, GPUS, MODELS) == product[:2]
    assert "tokens_s_per_gpu|llm-foundry|nvidia|16bit|pretrain" in product[2]  # the finest regime, not its parent
