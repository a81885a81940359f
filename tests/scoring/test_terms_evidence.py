"""An estimate's terms say what each fitted constant they use rests on: the validation rows and publications that move
it (issue 10: "with the evidence behind each shown in the terms"), the figures /methodology's Evidence column shows.
Before, every term said only "fitted by calibrate_inference on the public validation cases", so a buyer reading R1's
terms could not tell SGLang's factor (63 rows, 3 publications) from the TP1 streaming share (2,240 rows, 14)."""

from __future__ import annotations

import json
from pathlib import Path

from app.calibration.evidence import TABLE_PATH, evidence_table_source
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.constant_evidence import INFERENCE_EVIDENCE
from app.scoring.efficiency.inference import FITTED
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.explanation.decode_terms import evidence_words
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
ACCURACY_JSON = Path(__file__).resolve().parents[2] / "docs" / "accuracy.json"


def _terms(gpu: str, count: int, model: str, **fields: object) -> dict[str, str]:
    workload = InferenceWorkload(model=model, **fields)  # type: ignore[arg-type]
    est = estimate_inference(GPUS[gpu], count, MODELS[model], workload, count, 1)
    assert est.feasible, est.reason
    return {t.name: t.detail for t in est.terms}


def _said(name: str) -> str:
    rows, publications, thin = INFERENCE_EVIDENCE[name]
    return f"{name} on {rows:,} rows of {publications} publications" + (" (thin)" if thin else "")


R1 = {"engine": "sglang", "weight_dtype": "fp8", "tpot_ms": 50}


def test_r1_on_8_h200_names_each_fitted_constant_with_its_rows_and_publications() -> None:
    terms = _terms("H200", 8, "deepseek-r1", **R1)
    expected = {
        "decode memory time": ("decode_mbu", "mbu_tp_exponent", "sglang_factor", "moe_mbu_factor", "kv_mbu_factor"),
        "decode compute time": ("mfu_max", "fp8_mfu_factor", "moe_mfu_factor", "sglang_factor"),
        "prefill weight read": ("decode_mbu", "mbu_tp_exponent", "sglang_factor", "moe_mbu_factor"),
        "decode dense GEMMs": ("overlap_power",),
        "TP all-reduce": ("allreduce_alpha_nvlink_ms",),
        "launch and host overheads": ("step_overhead_ms", "layer_overhead_ms", "seq_overhead_ms"),
        "MoE prefill host time per step": ("moe_prefill_layer_ms",),
        "prefill MoE host time": ("moe_prefill_layer_ms",),
        "TPOT p99": ("p99_over_mean", "slo_tpot_utilisation"),
        "TTFT p99": ("p99_ttft_over_mean",),
    }
    for term, names in expected.items():
        for name in names:
            assert _said(name) in terms[term], (term, name, terms[term])


def test_an_engine_without_a_fitted_factor_names_none_and_amd_names_its_thin_rocm_factor() -> None:
    trtllm = _terms("H200", 8, "deepseek-r1", engine="trtllm", weight_dtype="fp8", tpot_ms=50)["decode memory time"]
    assert "vllm_factor" not in trtllm and "sglang_factor" not in trtllm  # TensorRT-LLM's 1.0 is the reference
    amd = _terms("MI300X", 1, "llama-3.1-8b", engine="vllm", tpot_ms=50)
    assert _said("amd_mbu_factor") in amd["decode memory time"]
    assert _said("amd_mfu_factor") in amd["decode compute time"]
    assert INFERENCE_EVIDENCE["amd_mbu_factor"][2], "two AMD publications: thin, and the term says so"
    assert "(thin)" in amd["decode memory time"]


def test_the_table_is_the_committed_accuracy_reports_evidence() -> None:
    """constant_evidence.py is what `make accuracy` wrote beside docs/accuracy.json: a refit that moves the evidence
    and forgets the table fails here, and the table covers every fitted constant."""
    evidence = json.loads(ACCURACY_JSON.read_text(encoding="utf-8"))["inference"]["evidence"]
    assert TABLE_PATH.read_text(encoding="utf-8") == evidence_table_source(evidence, "inference_cases.csv")
    assert set(INFERENCE_EVIDENCE) == set(FITTED)


def test_one_publication_reads_in_the_singular_and_thin() -> None:
    name, (rows, _, _) = next((n, e) for n, e in INFERENCE_EVIDENCE.items() if e[1] == 1)
    assert evidence_words([name]) == f"{name} on {rows:,} rows of 1 publication (thin)"
    assert evidence_words(["not_a_constant"]) == ""
