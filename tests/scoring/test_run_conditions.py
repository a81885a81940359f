"""Serving settings stated in a case's notes are read and priced as the product prices them."""

import pytest

from app.calibration.inference.case_setup import case_setup
from app.calibration.inference.run_conditions import (
    EAGLE_ACCEPTANCE_LENGTH,
    MTP_ACCEPTANCE,
    acceptance_from_length,
    attention_dp,
    batch_cap,
    expert_parallel,
    speculative,
    stated_kv_dtype,
    token_budget,
)
from app.calibration.inference.validate_inference import predict_inference_case
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.techniques import expected_tokens_per_step
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
R1 = MODELS["deepseek-r1"]


def _row(notes: str, **cells: str) -> dict[str, str]:
    row = {
        "case_id": "t",
        "source": "test",
        "engine": "sglang",
        "gpu": "H200",
        "gpu_count": "8",
        "tensor_parallel": "8",
        "pipeline_parallel": "1",
        "model": "deepseek-r1",
        "weight_dtype": "fp8",
        "kv_dtype": "",
        "input_len": "1024",
        "output_len": "1024",
        "scenario": "concurrency",
        "batch": "",
        "concurrency": "8",
        "metric": "tpot_ms",
        "statistic": "mean",
        "value": "10",
        "notes": notes,
    }
    return row | cells


def _predict(notes: str, **cells: str) -> float:
    prediction = predict_inference_case(_row(notes, **cells), GPUS, MODELS)
    assert prediction.covered, prediction.reason
    assert prediction.predicted is not None
    return prediction.predicted


def test_expert_parallel_layouts_in_every_notation():
    for notes in ("TP=8, EP=8", "DEP8", "TEP8", "--ep-size 8", "expert parallel 8"):
        assert expert_parallel(notes, R1, 8) == 8, notes
    assert expert_parallel("TP=8, EP=1", R1, 8) == 1
    assert expert_parallel("DEPTH 8", R1, 8) == 1
    assert expert_parallel("SGLang, DEP", R1, 8) == 8  # no degree: the row's TP group


def test_data_parallel_attention_is_read_unless_switched_off():
    assert attention_dp("DeepSeek-R1, DEP8, MTP 3")
    assert attention_dp("--tp 8 --enable-dp-attention")
    assert attention_dp("SGLang, DP attention, EP=8")
    assert not attention_dp("TEP8")  # tensor-parallel attention, expert-parallel experts
    assert not attention_dp("dp-attention off, TP=8")
    assert not attention_dp("TP=8, EP=1")
    assert attention_dp("attention DEP, TP 8") and not attention_dp("DEPTH 4")


def test_speculative_decoding_reads_method_drafts_and_acceptance():
    stated, note = speculative("SGLang 0.5, MTP 3, acceptance length 2.7")
    assert stated.spec_draft_tokens == 3 and stated.tokens_per_step == pytest.approx(2.7, abs=0.01)
    assert note and "MTP" in note
    mtp, _ = speculative("TP=8, MTP enabled")  # method only: DeepSeek-V3's published MTP acceptance, depth 1
    assert mtp.spec_draft_tokens == 1 and mtp.spec_acceptance == MTP_ACCEPTANCE
    assert speculative("MTP 85 % acceptance")[0].spec_draft_tokens == 1  # 85 is no draft count
    eagle, _ = speculative("vLLM 0.10, EAGLE-3 speculative decoding")
    assert eagle.tokens_per_step == pytest.approx(EAGLE_ACCEPTANCE_LENGTH, abs=0.01)
    rate, _ = speculative("--speculative-num-steps 2 (MTP), acceptance rate 80 %")
    assert rate.spec_draft_tokens == 2 and rate.spec_acceptance == pytest.approx(0.8)
    eagle3, _ = speculative("EAGLE-3, --speculative-num-steps 3")  # EAGLE-3's per-token acceptance at 3 drafts
    assert eagle3.spec_draft_tokens == 3 and eagle3.spec_acceptance == eagle.spec_acceptance
    for off in ("without MTP", "speculative decoding disabled", "TP=8, EP=8"):
        assert not speculative(off)[0].speculative, off
    unknown, why = speculative("speculative decoding with a draft model")  # no method default, no acceptance
    assert not unknown.speculative and why and "not modelled" in why
    drafted, _ = speculative("speculative decoding (draft model), acceptance length 2.2")
    assert drafted.spec_draft_tokens == 3 and drafted.tokens_per_step == pytest.approx(2.2, abs=0.01)


def test_acceptance_from_length_inverts_the_expected_tokens_per_step():
    for k, length in ((1, 1.8), (3, 2.6), (7, 3.34)):
        a = acceptance_from_length(length, k)
        assert expected_tokens_per_step(a, k) == pytest.approx(length, abs=1e-3)
    assert acceptance_from_length(1.0, 3) == 0.0


def test_a_stated_engine_cap_limits_the_running_batch():
    assert batch_cap("vLLM 0.6, max_num_seqs 512") == 512
    assert batch_cap("--max-running-requests 64") == 64
    assert batch_cap("max_batch_size = batch") is None
    cells = {"scenario": "max_throughput", "concurrency": "", "metric": "output_tok_s_per_gpu"}
    assert _predict("--max-running-requests 32", **cells) < 0.5 * _predict("", **cells)


def test_a_stated_step_budget_caps_the_running_batch_as_the_product_does():
    assert token_budget("trtllm-bench, max_num_tokens 16,384, max_batch_size 512") == 16384
    assert token_budget("--max-num-batched-tokens=2048") == 2048
    assert token_budget("max_num_seqs 256") is None
    cells = {
        "engine": "trtllm",
        "model": "llama-3.1-8b",
        "weight_dtype": "bf16",
        "gpu": "H100-SXM",
        "gpu_count": "1",
        "tensor_parallel": "1",
        "input_len": "4000",
        "output_len": "40",
        "scenario": "max_throughput",
        "concurrency": "",
        "metric": "tpot_ms",
    }
    setup = case_setup(_row("max_num_tokens 2048", **cells), GPUS, MODELS)
    assert not isinstance(setup, str) and setup.token_budget == 2048
    assert "engine step budget 2,048 tokens (stated)" in setup.notes
    # 2,048 tokens a step hold 20 requests of 100 prompt tokens per output token, the default 8,192 hold 81
    assert _predict("max_num_tokens 2048", **cells) < 0.5 * _predict("", **cells)


def test_stated_mtp_is_priced_as_the_product_prices_speculative_decoding():
    notes = "SGLang, TP=8, MTP 3, acceptance length 2.7"
    cells = {"scenario": "single_stream", "concurrency": "", "metric": "decode_tok_s"}
    stated, _ = speculative(notes)
    workload = InferenceWorkload(
        model="deepseek-r1",
        weight_dtype="fp8",
        engine="sglang",
        scenario="single_stream",
        input_len=1024,
        output_len=1024,
        spec_acceptance=stated.spec_acceptance,
        spec_draft_tokens=stated.spec_draft_tokens,
    )
    product = estimate_inference(GPUS["H200"], 8, R1, workload)
    assert _predict(notes, **cells) == pytest.approx(1e3 / product.tpot_ms, rel=1e-9)
    plain = _predict("SGLang, TP=8", **cells)
    # 2.7 tokens per verify pass, but at batch 1 each pass of 4 tokens reads ~4x the routed experts of one token
    assert _predict(notes, **cells) > 1.05 * plain
    assert _predict("SGLang, TP=8, without MTP", **cells) == plain


def test_stated_dp_attention_keeps_one_copy_of_the_mla_cache():
    heads = case_setup(_row("TP=8, EP=8", input_len="4096"), GPUS, MODELS)
    dp = case_setup(_row("DEP8", input_len="4096"), GPUS, MODELS)
    assert not isinstance(heads, str) and not isinstance(dp, str)
    (heads_ctx, heads_fit), (dp_ctx, dp_fit) = heads.options[0], dp.options[0]
    assert dp_ctx.attention_dp == 8 and heads_ctx.attention_dp == 1 and dp_ctx.expert_parallel == 8
    assert dp_fit > 4 * heads_fit  # MLA's latent is copied onto every rank by heads; DP keeps 1/8 of it per rank
    assert "attention data-parallel" in " ".join(dp.notes)


@pytest.mark.parametrize(
    ("notes", "kv_dtype"),
    [
        ("precision: FP4 on selected linear/MLP layers, FP8 elsewhere (NVIDIA calibration.md)", "fp8"),
        ("vllm serve --kv-cache-dtype fp8_e4m3", "fp8"),
        ("kv_cache_dtype=fp16", "fp16"),
        ("FP8 KV cache, TP2", "fp8"),
        ("KV-cache dtype not stated in the table (checkpoint: FP4 (nvidia/*-FP4 ModelOpt checkpoints))", None),
        ("without FP8 KV cache", None),
        ("", None),
    ],
)
def test_a_kv_cache_dtype_stated_in_the_notes_is_read(notes, kv_dtype):
    assert stated_kv_dtype(notes) == kv_dtype


def test_nvidias_fp8_elsewhere_doubles_the_sequences_an_fp4_b200_holds():
    # MLPerf v4.1's B200 preview: FP4 on selected layers, FP8 elsewhere, the KV cache included; an empty kv_dtype
    # with FP4 weights otherwise reads as a 16-bit cache
    cells = dict(
        engine="trtllm",
        gpu="B200",
        gpu_count="1",
        tensor_parallel="1",
        model="llama-2-70b",
        weight_dtype="fp4",
        input_len="512",
        output_len="274",
        scenario="max_throughput",
        concurrency="",
        metric="output_tok_s_per_gpu",
    )
    plain = case_setup(_row("", **cells), GPUS, MODELS)
    stated = case_setup(_row("precision: FP4 on selected linear/MLP layers, FP8 elsewhere", **cells), GPUS, MODELS)
    assert not isinstance(plain, str) and not isinstance(stated, str)
    assert stated.options[0][1] >= 1.9 * plain.options[0][1]
    assert "KV cache fp8 (stated in the notes)" in stated.notes
    assert not any("KV cache" in note for note in plain.notes)
