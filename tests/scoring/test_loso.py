"""Leave-one-source-out: refits never see the held-out publication; summaries weight publications equally."""

import runpy
from dataclasses import replace
from pathlib import Path

import pytest

from app.calibration.held_out import folds, loso
from app.calibration.inference import calibrate_inference
from app.calibration.inference.case_setup import case_setup
from app.calibration.inference.validate_inference import predict_setup
from app.calibration.validation.case_files import read_cases
from app.calibration.validation.summary import group_bias, make_prediction
from app.calibration.validation.validate import validate_file
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "validation"
GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _rows(source: str, count: int, value: float = 1000.0) -> list[dict]:
    return [
        {
            "case_id": f"{source}-{i}",
            "source": source,
            "engine": "trtllm",
            "gpu": "H100-SXM",
            "gpu_count": "1",
            "tensor_parallel": "1",
            "model": "llama-3.1-8b",
            "weight_dtype": "fp16",
            "input_len": "128",
            "output_len": "128",
            "scenario": "fixed_batch",
            "batch": str(2**i),
            "metric": "output_tok_s_per_gpu",
            "value": str(value * 2**i),
        }
        for i in range(count)
    ]


def test_each_refit_leaves_out_exactly_the_held_out_source(monkeypatch):
    seen: list[set[str]] = []

    def recording_fit(cases, start, rounds, cycles, first_step):
        seen.append({row["source"] for row, _ in cases})
        return start

    monkeypatch.setattr(calibrate_inference, "fit", recording_fit)
    rows = _rows("a", 3) + _rows("b", 2) + _rows("c", 1)
    held = loso.loso_inference(rows, GPUS, MODELS, workers=1)  # in this process, where fit is recorded
    assert [p.case_id for p in held] == [r["case_id"] for r in rows]
    assert sorted(map(sorted, seen)) == [["a", "b"], ["a", "c"], ["b", "c"]]


def test_a_source_is_predicted_by_constants_fitted_on_the_others():
    # source "far" measures 10x the others: in LOSO nothing pulls the constants towards it
    rows = _rows("near", 4) + _rows("also-near", 4) + _rows("far", 4, value=10_000.0)
    held = {p.case_id: p for p in loso.loso_inference(rows, GPUS, MODELS, rounds=1, workers=2)}
    far = [held[f"far-{i}"].pct_error for i in range(4)]
    assert all(e is not None and e < -60 for e in far)


def test_given_folds_predict_each_source_without_a_refit(monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("refitted although folds were given")

    monkeypatch.setattr(calibrate_inference, "fit", no_fit)
    rows = _rows("a", 2) + _rows("b", 2)
    folds = {"a": replace(DEFAULT_EFFICIENCY, decode_mbu=0.3), "b": replace(DEFAULT_EFFICIENCY, decode_mbu=0.6)}
    held = {p.case_id: p for p in loso.loso_inference(rows, GPUS, MODELS, workers=1, folds=folds)}
    for row in rows:
        expected = predict_setup(case_setup(row, GPUS, MODELS), folds[row["source"]])
        assert held[row["case_id"]].predicted == pytest.approx(expected, rel=1e-12)
        assert "cold fold" in held[row["case_id"]].reason


def test_stored_folds_serve_only_the_rows_and_constants_they_were_fitted_on():
    rows = _rows("a", 2)
    assert folds.stored_folds(rows) == {}  # not the public file
    if not SHARED.exists():
        return
    public = read_cases(SHARED / "inference_cases.csv")
    stored = folds.stored_folds(public)
    # stale after a change to the case file or a refit of the committed constants: rerun `python -m
    # app.calibration.held_out.folds` (make calibrate), else `gpumatch validate` falls back to optimistic warm-started
    # folds
    assert set(stored) == {row["source"] for row in public}, "inference_folds.py is stale"
    assert stored["tenstorrent-gh-356"].allreduce_alpha_fabric_ms == 0.03  # only Tenstorrent moves it: research start
    changed = [dict(public[0], value=str(float(public[0]["value"]) * 2))] + public[1:]
    assert folds.stored_folds(changed) == {}
    assert folds.stored_folds(public, replace(DEFAULT_EFFICIENCY, decode_mbu=0.8)) == {}


def test_stored_folds_are_keyed_to_the_fit_on_every_row(tmp_path, monkeypatch):
    rows = _rows("a", 2) + _rows("b", 2, value=2000.0)
    path = tmp_path / "cases.csv"
    path.write_text(",".join(rows[0]) + "\n" + "\n".join(",".join(r.values()) for r in rows) + "\n")
    monkeypatch.setattr(folds, "TABLE_PATH", tmp_path / "folds_table.py")
    folds.main([str(path)])
    table = runpy.run_path(str(tmp_path / "folds_table.py"))
    setups = [case_setup(row, GPUS, MODELS) for row in rows]
    everything = calibrate_inference.fit(list(zip(rows, setups, strict=True)))
    assert table["CONSTANTS"] == folds.fitted_constants(everything)  # what make calibrate prints to commit
    assert table["CASES_SHA256"] == folds.rows_digest(read_cases(path))
    without_b = calibrate_inference.fit([(r, s) for r, s in zip(rows, setups, strict=True) if r["source"] == "a"])
    assert set(table["FOLDS"]) == {"a", "b"} and table["FOLDS"]["b"] == folds.fitted_constants(without_b)


def test_publication_weighted_summary_counts_each_publication_once():
    big = [
        make_prediction({"case_id": str(i), "metric": "m", "value": "100", "source": "big"}, 101.0, "")
        for i in range(99)
    ]
    small = [
        make_prediction({"case_id": f"s{i}", "metric": "m", "value": "100", "source": s}, 150.0, "")
        for i, s in enumerate("xy")
    ]
    stats = loso.publication_weighted(big + small)["m"]
    # pooled, the median would be 1 % (99 of 101 rows); per publication it is the median of 1, 50, 50
    assert stats["publications"] == 3 and stats["median_abs_pct_error"] == pytest.approx(50.0)
    assert stats["within_25pct_share"] == pytest.approx(1 / 3)
    assert stats["by_source"]["big"]["covered"] == 99


def test_validate_reports_loso_beside_in_sample_with_bands(tmp_path):
    path = tmp_path / "cases.csv"
    rows = _rows("a", 3) + _rows("b", 3)
    path.write_text(",".join(rows[0]) + "\n" + "\n".join(",".join(r.values()) for r in rows) + "\n")
    result = validate_file(path, GPUS, MODELS)
    headline = result["summary"]["headline"]
    assert set(headline) == {"in_sample", "loso"}
    assert headline["loso"]["output_tok_s_per_gpu"]["publications"] == 2
    for case in result["cases"]:
        assert case["low"] < case["predicted"] < case["high"] and case["loso_predicted"] is not None
    coverage = result["summary"]["band_coverage"]["output_tok_s_per_gpu"]
    assert coverage["loso_rows"] == 6 and 0 <= coverage["share"] <= 1


def test_engine_vendor_groups_flag_a_shared_bias_only_with_enough_rows():
    rows = [dict(r, engine="vllm") for r in _rows("a", 20)] + [dict(r, gpu="MI300X") for r in _rows("b", 5)]
    held = [make_prediction(r, float(r["value"]) * 1.2, "") for r in rows]  # every row 20 % high
    groups = {(g["stack"], g["vendor"]): g for g in group_bias(rows, held, GPUS)}
    assert groups["vllm", "NVIDIA"]["covered"] == 20 and groups["vllm", "NVIDIA"]["flagged"]
    assert groups["vllm", "NVIDIA"]["signed_median_pct_error"] == pytest.approx(20.0)
    assert not groups["trtllm", "AMD"]["flagged"]  # 5 rows: too few to call a group bias
    held = [make_prediction(r, float(r["value"]) * 1.05, "") for r in rows]
    assert not any(g["flagged"] for g in group_bias(rows, held, GPUS))


@pytest.mark.slow
@pytest.mark.precompute("inference_validation", "training_validation")  # validate_file runs in the background
@pytest.mark.skipif(not SHARED.exists(), reason="shared/validation not present beside the repo")
def test_loso_error_does_not_regress_on_the_public_files(precomputed):
    # Guard at the 2026-12-03 level (docs/ACCURACY.md, after the ROCm streaming/matmul split, torchtitan's
    # op-level SAC, torchtune's cumulative table, the prefill queue's busy share of the mixed step and vLLM's host
    # time per running sequence; then fixed batches over the KV capacity and MoE experts as their own kernel class;
    # then folds that no longer keep what only the held-out publication identifies; then TensorRT-LLM's KV cache
    # sized from what the weights leave; then prompts read at half their stated cap, streaming under a 0.9
    # ceiling; then folds refitted to convergence; then a KV-cache dtype stated in the notes; then the cold folds
    # make calibrate stores, in place of warm-started ones; then beams that share their prompt's KV cache; then SGLang's
    # prefill-first wait and the engines' per-step token budget) plus a
    # margin; training held issue 10's target (<= 12 %, at 11.6 % since the logits' memory depends on the stack's
    # loss) until QLoRA ran as its stacks run it (FSDP, never TP/PP: torchtune's 405B row moved +19 % -> -19 %) and
    # MLA's AV matmul took its own head width: 12.3 % (2026-12-05), the target missed and said so in ACCURACY.md;
    # then LLM Foundry and plain PyTorch/torchtune ran as FSDP only (no TP/PP, which neither stack has) and MLPerf's
    # OEM "pytorch" rows as the NeMo runs they were: 14.4 % (2026-12-06; per row 10.0 -> 8.9 %), torchtune's fold left
    # with no row of its class; the guard holds that level (the cold training refit with its seeded restarts is
    # deterministic).
    inference = precomputed("inference_validation")
    assert inference["loso_method"].startswith("cold fold"), "inference_folds.py is stale: run make calibrate"
    loso_inf = inference["headline"]["loso"]
    assert loso_inf["output_tok_s_per_gpu"]["median_abs_pct_error"] <= 9.7 + 1.5
    assert loso_inf["output_tok_s_per_gpu"]["within_25pct_share"] >= 0.714 - 0.05
    assert loso_inf["tpot_ms"]["median_abs_pct_error"] <= 9.2 + 4
    assert loso_inf["ttft_ms"]["median_abs_pct_error"] <= 14.3 + 5
    training = precomputed("training_validation")
    assert training["headline"]["loso"]["tokens_s_per_gpu"]["median_abs_pct_error"] <= 14.4 + 0.2
    assert training["headline"]["loso"]["tokens_s_per_gpu"]["within_25pct_share"] >= 0.776 - 0.05
    # No training group is flagged; one sits near the line: MaxText x AMD step time, +9.6 %. Held out, it rests
    # on the CDNA 4 research prior (0.33 vs 0.36 fitted): no other publication measures MI355X. Any other
    # flagged group, or that one drifting past +10.5 %, fails.
    flagged = [g for g in training["loso_groups"] if g["flagged"]]
    assert all(
        (g["stack"], g["vendor"], g["metric"]) == ("maxtext", "AMD", "step_time_s")
        and abs(g["signed_median_pct_error"]) <= 10.5
        for g in flagged
    ), flagged
    for summary in (inference, training):  # bands built without a publication hold 70-90 % of its rows
        for metric in ("output_tok_s_per_gpu", "ttft_ms", "tpot_ms", "tokens_s_per_gpu"):
            if metric in summary["band_coverage"]:
                coverage = summary["band_coverage"][metric]
                assert 0.70 <= coverage["held_out_share"] <= 0.90, metric
                assert 0.70 <= coverage["held_out_publication_share"] <= 0.90, metric
                # its own publication flatters it, each publication weighted equally (the house rule): training's
                # committed band holds 86.3 % of a publication's rows on average, its held-out twin 81.4 % (2026-12-07,
                # after ladder's readings). Per row it need not: LLM Foundry's 201 tight rows are 61 % of them, and a
                # band built without LLM Foundry is wider (87.2 % of rows held out against 84.5 % committed).
                assert coverage["publication_share"] >= coverage["held_out_publication_share"] - 0.01, metric
    assert len(read_cases(SHARED / "inference_cases.csv")) > 2000
    # what each fitted constant rests on: every row moves the streaming efficiency; only argonne's and MLPerf's AMD
    # rows the ROCm factors; only Tenstorrent's TP16 rows the inter-node latency; only XiongjieDai's llama.cpp
    evidence = {e["name"]: e for e in inference["evidence"]}
    assert evidence["decode_mbu"]["publications"] >= 12 and not evidence["decode_mbu"]["thin"]
    assert evidence["amd_mfu_factor"]["publications"] == 2 and evidence["amd_mfu_factor"]["prior"] == 0.64
    assert evidence["allreduce_alpha_fabric_ms"]["publications"] == 1 and evidence["allreduce_alpha_fabric_ms"]["thin"]
    assert evidence["llamacpp_mfu_factor"]["publications"] == 1
    training_evidence = {e["name"]: e for e in training["evidence"]}
    assert training_evidence["mfu_cdna4_16"]["publications"] == 1 and training_evidence["mfu_cdna4_16"]["thin"]
    assert training_evidence["width_half_hidden"]["publications"] >= 10


def test_a_constant_only_the_held_out_source_identifies_restarts_from_its_research_default():
    llamacpp = [
        row | {"engine": "llamacpp", "weight_dtype": "int4", "scenario": "single_stream", "batch": "1"}
        for row in _rows("llamacpp-only", 2)
    ]
    rows = llamacpp + _rows("trtllm", 3)
    setups = [case_setup(row, GPUS, MODELS) for row in rows]
    restart = loso.held_out_priors(rows, loso.sensitive_constants(setups))
    assert {"llamacpp_mbu_factor", "llamacpp_mfu_factor"} <= set(restart["llamacpp-only"])
    assert "llamacpp_mbu_factor" not in restart["trtllm"] and "decode_mbu" not in restart["llamacpp-only"]
    # held out with no descent (rounds=0), its rows are predicted with the research defaults of those constants
    held = {p.case_id: p for p in loso.loso_inference(rows, GPUS, MODELS, rounds=0, workers=1)}
    research = calibrate_inference.RESEARCH_START
    prior = replace(
        DEFAULT_EFFICIENCY,
        llamacpp_mbu_factor=research.llamacpp_mbu_factor,
        llamacpp_mfu_factor=research.llamacpp_mfu_factor,
    )
    assert held["llamacpp-only-0"].predicted == pytest.approx(predict_setup(setups[0], prior), rel=1e-6)
