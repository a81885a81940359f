"""Bands: p10-p90 of LOSO residuals per regime, widened where evidence is thin, never excluding the estimate."""

import math
import re

import pytest

from app.calibration.held_out.bands import band_table
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import bands
from app.scoring.efficiency.band_table import BAND_TABLE
from app.scoring.efficiency.regime_words import regime_words

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _case_rows(
    ratios: list[float], engine: str, dtype: str = "fp16", source: str = "one-lab"
) -> tuple[list[dict], list[dict]]:
    rows = [
        {
            "source": source,
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


def test_each_publication_weighs_the_same_in_a_band_however_many_rows_it_has():
    sweep_rows, sweep = _case_rows([0.98 + 0.001 * i for i in range(40)], "vllm", source="big-sweep")
    slow_rows, slow = _case_rows([0.5, 0.52, 0.55], "vllm", source="slow-lab")
    fast_rows, fast = _case_rows([1.6, 1.65, 1.7], "vllm", source="fast-lab")
    low, high, count = band_table(sweep_rows + slow_rows + fast_rows, sweep + slow + fast, GPUS, MODELS)[
        "output_tok_s_per_gpu|vllm|nvidia|16bit|dense"
    ]
    # by rows, the 40-row sweep would set both quantiles (0.98-1.02); by publication, a third of the weight is
    # below 0.55 and a third above 1.6
    assert count == 46 and low < 0.6 and high > 1.55


def test_weighted_quantile_with_equal_weights_is_the_plain_quantile():
    from app.calibration.validation.summary import quantile, weighted_quantile

    values = [3.0, 0.5, 1.25, 2.0, 7.5, 0.1, 4.0]
    for q in (0.0, 0.1, 0.5, 0.9, 1.0):
        assert weighted_quantile([(v, 0.25) for v in values], q) == pytest.approx(quantile(values, q))
    # centres at 0, 1 and 1 + (1 + 8) / 2 = 5.5 units of weight; the median is 2.75 units in, between 2 and 10
    assert weighted_quantile([(1.0, 1.0), (2.0, 1.0), (10.0, 8.0)], 0.5) == pytest.approx(2.0 + 8.0 * 1.75 / 4.5)


def test_band_coverage_reports_each_publications_share_beside_the_rows_share():
    from app.calibration.validation.validate import band_coverage

    def case(source: str, inside: bool) -> dict:
        return {"metric": "tpot_ms", "source": source, "covered": True, "low": None, "loso_inside_band": inside}

    cases = [case("big", True) for _ in range(9)] + [case("small", False)]
    stats = band_coverage(cases)["tpot_ms"]
    assert stats["share"] == pytest.approx(0.9) and stats["publication_share"] == pytest.approx(0.5)


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
    assert (low, high) == BAND_TABLE["output_tok_s_per_gpu|trtllm|nvidia"][:2] and "TensorRT-LLM on NVIDIA" in evidence
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
    assert "no validation row of tokens_s_per_gpu is recorded fp4" in evidence
    regime = BAND_TABLE["output_tok_s_per_gpu|trtllm|nvidia"][:2]
    assert bands.band_ratio("output_tok_s_per_gpu", "trtllm", "NVIDIA", "int8", "dense")[:2] == (
        min(regime[0], bands.UNKNOWN_BAND[0]),
        max(regime[1], bands.UNKNOWN_BAND[1]),
    )
    assert bands.band_ratio("tokens_s_per_gpu", "megatron-lm", "NVIDIA", "fp8", "pretrain")[1] < 1.6


def test_an_int4_band_says_the_4bit_rows_it_does_not_count_are_recorded_fp4():
    """QA: gpt-oss (ranked int4, W4A16, as its MXFP4 release runs on Hopper) said "no row measures int4" while three
    vLLM gpt-oss-20b H100 rows measure its throughput, recorded fp4: the check classes by the recorded precision."""
    assert ("output_tok_s_per_gpu", "fp4") in bands.MEASURED_PRECISIONS
    assert ("output_tok_s_per_gpu", "int4") not in bands.MEASURED_PRECISIONS
    low, high, evidence = bands.band_ratio("output_tok_s_per_gpu", "vllm", "NVIDIA", "int4", "moe")
    assert "no validation row measures int4" not in evidence
    assert "no validation row of output_tok_s_per_gpu is recorded int4 (4-bit rows recorded fp4" in evidence
    assert high >= bands.UNKNOWN_BAND[1] and low <= bands.UNKNOWN_BAND[0]  # the band itself is as it was
    assert "recorded fp4" not in bands.band_ratio("decode_tok_s", "llamacpp", "NVIDIA", "int8", "dense")[2]


def test_committed_bands_always_contain_their_estimate():
    assert BAND_TABLE and all(low <= 1.0 <= high for low, high, _ in BAND_TABLE.values())


def test_precision_classes_map_to_themselves():
    for dtype in ("bf16", "fp8", "fp4", "int4", "int8", "mxint3"):
        cls = bands.precision_class(dtype)
        assert bands.precision_class(cls) == cls


def test_validation_scores_a_case_against_the_band_the_product_shows():
    from app.calibration.held_out.bands import row_band

    row = {"metric": "tokens_s_per_gpu", "framework": "llm-foundry", "gpu": "H100-SXM", "model": "llama-3.1-8b",
           "precision": "bf16", "method": "pretrain"}  # fmt: skip
    product = bands.band_ratio("tokens_s_per_gpu", "llm-foundry", "NVIDIA", "bf16", "pretrain")
    assert row_band(row, GPUS, MODELS) == product[:2]
    assert (
        "(training tokens/s per GPU, LLM Foundry on NVIDIA, 16-bit, pretraining)" in product[2]
    )  # the finest regime, not its parent


def test_tensor_parallel_across_nodes_is_a_regime_of_its_own_that_widens_multinode_estimates():
    single_rows, single = _case_rows([0.95 + 0.005 * i for i in range(21)], "sglang")
    multi_rows = [row | {"tensor_parallel": "16", "gpu_count": "16"} for row in _case_rows([0.4] * 6, "sglang")[0]]
    multi = [{"loso_predicted": 100.0, "measured": 40.0 + i} for i in range(6)]
    table = band_table(single_rows + multi_rows, single + multi, GPUS, MODELS)
    # only the multinode key sees the multi-node rows: not the single-node regimes, not the metric-level fallback
    assert table["output_tok_s_per_gpu|sglang|nvidia|16bit|dense"][2] == 21
    assert table["output_tok_s_per_gpu|sglang|nvidia"][2] == 21
    assert table["output_tok_s_per_gpu|multinode"][2] == 6 and table["output_tok_s_per_gpu"][2] == 21
    assert table["output_tok_s_per_gpu|multinode"][0] < 0.5
    from app.calibration.held_out.bands import row_spans_nodes

    replicas = multi_rows[0] | {"tensor_parallel": ""}  # a system of replicas, TP not stated: not multi-node TP
    assert row_spans_nodes(multi_rows[0], GPUS) and not row_spans_nodes(replicas, GPUS)


def test_an_estimate_whose_tp_group_spans_nodes_shows_the_multinode_band():
    from app.calibration.held_out.bands import row_band
    from app.scoring.inference.estimates.estimate import estimate_inference
    from app.scoring.workload import InferenceWorkload

    args = ("output_tok_s_per_gpu", "sglang", "NVIDIA", "fp8", "moe")
    one, many = bands.band_ratio(*args), bands.band_ratio(*args, spans_nodes=True)
    assert many[0] <= one[0] and many[1] >= one[1] and "across nodes" in many[2]
    assert many[0] <= BAND_TABLE["output_tok_s_per_gpu|multinode"][0]
    row = {"metric": "output_tok_s_per_gpu", "engine": "sglang", "gpu": "H100-SXM", "model": "deepseek-r1",
           "weight_dtype": "fp8", "tensor_parallel": "16", "gpu_count": "16"}  # fmt: skip
    assert row_band(row, GPUS, MODELS) == many[:2]  # the validator scores the band the product shows
    w = InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", engine="sglang", scenario="single_stream")
    r1 = MODELS["deepseek-r1"]
    across = estimate_inference(GPUS["H100-SXM"], 16, r1, w, tensor_parallel=16)
    inside = estimate_inference(GPUS["H200"], 8, r1, w, tensor_parallel=8)
    assert across.feasible and inside.feasible
    assert across.band.low / across.output_tokens_per_s == pytest.approx(many[0], rel=1e-3)
    assert inside.band.low / inside.output_tokens_per_s > across.band.low / across.output_tokens_per_s


def test_a_pipeline_parallel_estimate_claims_no_more_than_the_research_notes_fifty_percent():
    """No validation row measures pipeline-parallel serving, so its band is the unknown one at least."""
    from app.calibration.held_out.bands import row_band
    from app.scoring.inference.estimates.estimate import estimate_inference
    from app.scoring.workload import InferenceWorkload

    args = ("output_tok_s_per_gpu", "vllm", "NVIDIA", "fp8", "moe")
    plain, staged = bands.band_ratio(*args), bands.band_ratio(*args, pipeline_stages=2)
    assert staged[0] <= bands.UNKNOWN_BAND[0] and staged[1] >= bands.UNKNOWN_BAND[1] and "PP2" in staged[2]
    assert plain[0] > bands.UNKNOWN_BAND[0]  # the regime's own, measured band is narrower
    row = {"metric": "output_tok_s_per_gpu", "engine": "vllm", "gpu": "H100-SXM", "model": "deepseek-r1",
           "weight_dtype": "fp8", "tensor_parallel": "8", "pipeline_parallel": "2", "gpu_count": "16"}  # fmt: skip
    assert row_band(row, GPUS, MODELS) == staged[:2]  # the validator scores the band the product shows
    w = InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", scenario="single_stream")
    est = estimate_inference(GPUS["H100-SXM"], 16, MODELS["deepseek-r1"], w, tensor_parallel=8, pipeline_parallel=2)
    assert est.feasible and est.band.low / est.output_tokens_per_s == pytest.approx(staged[0], rel=1e-3)
    assert staged[2] in est.assumptions


THIN_TABLE = {
    "m": (0.7, 1.4, 500),
    "m|vllm|nvidia": (0.8, 1.3, 200),
    "m|vllm|nvidia|fp8|dense": (0.8, 1.3, 8),  # inside its parent's band: the band is the parent's
    "m|sglang|nvidia": (0.7, 1.4, 11),  # thin itself: the metric's band
    "m|sglang|nvidia|fp8|moe": (0.7, 1.4, 4),  # too few for a p10-p90 at all
    "m|sglang|nvidia|fp4|moe": (0.6, 1.4, 6),  # its own p10 reaches below the parent's: the envelope
}


def test_a_thin_regimes_evidence_names_the_band_its_numbers_came_from(monkeypatch):
    """It said 'p10-p90 of 8 leave-one-source-out residuals (...|fp8|dense)' where the band was its parent's of 235."""
    monkeypatch.setattr(bands, "BAND_TABLE", THIN_TABLE)
    monkeypatch.setattr(bands, "MEASURED_PRECISIONS", frozenset({("m", "fp8"), ("m", "fp4")}))
    low, high, evidence = bands.band_ratio("m", "vllm", "NVIDIA", "fp8", "dense")
    assert (low, high) == (0.8, 1.3)
    assert evidence == (
        "band: p10-p90 of 200 leave-one-source-out residuals (m, vLLM on NVIDIA); taken by regimes too thin for a band "
        "of their own (under 20 rows): 8 in m, vLLM on NVIDIA, FP8, dense (their p10-p90 inside it, or all from one "
        "publication)"
    )
    low, high, evidence = bands.band_ratio("m", "sglang", "NVIDIA", "fp8", "moe")
    assert (low, high) == (0.7, 1.4)
    assert evidence.startswith("band: p10-p90 of 500 leave-one-source-out residuals (m);")
    assert (
        "4 in m, SGLang on NVIDIA, FP8, MoE (under 5: too few for a p10-p90), 11 in m, SGLang on NVIDIA (their"
        in evidence
    )
    low, high, evidence = bands.band_ratio("m", "sglang", "NVIDIA", "fp4", "moe")
    assert (low, high) == (0.6, 1.4)
    assert evidence.startswith(
        "band: the envelope of the p10-p90 of the 6 residuals in m, SGLang on NVIDIA, FP4, MoE and p10-p90 of 500 "
    )


def test_every_committed_bands_evidence_leads_with_rows_that_give_its_numbers():
    """Across the committed table: the rows a band's text leads with are a regime of MIN_BAND_ROWS or more (or the
    metric itself) whose band is this one, unless the text says it is an envelope."""
    lead = re.compile(r"p10-p90 of ([\d,]+) leave-one-source-out residuals \(([^)]+)\)")
    key_of = {regime_words(key): key for key in BAND_TABLE}  # the text names a regime in words, one per key
    for key, (low, high, _) in BAND_TABLE.items():
        words = bands.band_source(key)
        rows, said = lead.search(words).groups()  # type: ignore[union-attr]
        source = key_of[said]
        assert int(rows.replace(",", "")) == BAND_TABLE[source][2], key
        assert BAND_TABLE[source][2] >= bands.MIN_BAND_ROWS or bands.parent_key(source) is None, key
        if not words.startswith("the envelope"):
            assert BAND_TABLE[source][:2] == (low, high), key


def _latency_rows(ratios: list[float], scenario: str, source: str) -> tuple[list[dict], list[dict]]:
    rows = [
        {
            "source": source,
            "gpu": "H100-SXM",
            "model": "llama-3.1-8b",
            "metric": "ttft_ms",
            "engine": "trtllm",
            "weight_dtype": "fp16",
            "scenario": scenario,
        }  # fmt: skip
        for _ in ratios
    ]
    return rows, [{"loso_predicted": 100.0, "measured": 100.0 * r, "covered": True} for r in ratios]


def test_a_latency_band_is_fitted_apart_under_traffic_and_without_arrivals():
    """TTFT under traffic waits in queues a single stream never meets: one band for both was too narrow for the one
    and too wide for the other (held out, 0.78-3.3x against 0.91-1.33x)."""
    lone_rows, lone = _latency_rows([0.95 + 0.005 * i for i in range(21)], "single_stream", "lone-lab")
    busy_rows, busy = _latency_rows([0.6 + 0.05 * i for i in range(21)], "request_rate", "busy-lab")
    table = band_table(lone_rows + busy_rows, lone + busy, GPUS, MODELS)
    assert table["ttft_ms@fixed|trtllm|nvidia|16bit|dense"][:2] == pytest.approx((0.96, 1.04), abs=0.005)
    assert table["ttft_ms@traffic|trtllm|nvidia|16bit|dense"][:2] == pytest.approx((0.7, 1.5), abs=0.005)
    assert table["ttft_ms"][2] == 42  # the metric over both loads stays the last resort
    assert bands.regime_keys("ttft_ms", "trtllm", "NVIDIA", "fp16", "dense", "fixed_batch")[0].startswith(
        "ttft_ms@fixed"
    )
    assert bands.regime_keys("ttft_ms", "trtllm", "NVIDIA", "fp16", "dense", "")[0].startswith("ttft_ms@traffic")
    assert bands.regime_keys("output_tok_s_per_gpu", "trtllm", "NVIDIA", "fp16", "dense", "single_stream")[-1] == (
        "output_tok_s_per_gpu"  # throughput is not split by load
    )
    committed = [bands.band_ratio("ttft_ms", "trtllm", "NVIDIA", "fp16", "dense", scenario=s) for s in (
        "single_stream", "request_rate")]  # fmt: skip
    assert committed[0][1] < committed[1][1] and "TTFT at a fixed load" in committed[0][2]


def test_margins_widen_every_band_of_their_metric_by_the_same_factor():
    rows, cases = _case_rows([0.8 + 0.01 * i for i in range(41)], "trtllm")
    plain = band_table(rows, cases, GPUS, MODELS)
    wide = band_table(rows, cases, GPUS, MODELS, {"output_tok_s_per_gpu": 0.2})
    for key, (low, high, count) in plain.items():
        assert wide[key] == (
            pytest.approx(low / math.exp(0.2), abs=1e-3),
            pytest.approx(high * math.exp(0.2), abs=1e-3),
            count,
        )
    assert band_table(rows, cases, GPUS, MODELS, {"ttft_ms": 0.5}) == plain  # another metric's margin


def test_the_margin_is_the_smallest_that_puts_held_out_publications_inside_bands_built_without_them():
    """Three labs, each a tight cluster at its own offset: a band pooled from two misses the third entirely, so
    the margin grows until, held out in turn, each lab's rows fall 80 % inside (each lab weighted equally)."""
    from app.calibration.held_out.bands import fit_margins, held_out_bands, mark_held_out_bands

    rows: list[dict] = []
    cases: list[dict] = []
    for source, centre in (("low-lab", 0.85), ("mid-lab", 1.0), ("high-lab", 1.15)):
        r, c = _case_rows([centre + 0.002 * i for i in range(10)], "trtllm", source=source)
        rows += r
        cases += [case | {"covered": True} for case in c]
    margins = fit_margins(rows, cases, GPUS, MODELS)
    margin = margins["output_tok_s_per_gpu"]
    assert 0.05 < margin < 0.3

    def inside(m: float) -> list[bool]:
        bands_ = held_out_bands(rows, cases, GPUS, MODELS, {"output_tok_s_per_gpu": m})
        return [b[0] <= c["measured"] / c["loso_predicted"] <= b[1] for b, c in zip(bands_, cases, strict=True)]

    assert sum(inside(margin)) / len(rows) >= bands.HELD_OUT_COVERAGE
    assert sum(inside(margin - 0.03)) / len(rows) < bands.HELD_OUT_COVERAGE  # about the smallest such margin
    mark_held_out_bands(rows, cases, GPUS, MODELS, margins)
    assert sum(c["held_out_inside_band"] for c in cases) == sum(inside(margin))


def test_the_margin_also_holds_the_pooled_rows_when_one_big_publication_fits_worse(monkeypatch):
    """Five small labs agree and one big lab sits 30 % above them: with each lab weighted equally the five alone
    reach 80 % (5 of 6 labs inside), yet the big lab's 100 rows, two thirds of all, would all fall outside. The
    pooled floor widens the margin until a band built without the big lab reaches its rows."""
    import app.calibration.held_out.bands as calibration_bands

    rows: list[dict] = []
    cases: list[dict] = []
    labs = [(f"small-{k}", 0.98 + 0.01 * k, 20) for k in range(5)] + [("big-lab", 1.3, 100)]
    for source, centre, count in labs:
        r, c = _case_rows([centre + 0.0002 * i for i in range(count)], "trtllm", source=source)
        rows += r
        cases += [case | {"covered": True} for case in c]
    with_floor = calibration_bands.fit_margins(rows, cases, GPUS, MODELS)["output_tok_s_per_gpu"]
    monkeypatch.setattr(calibration_bands, "HELD_OUT_ROW_FLOOR", 0.0)
    without_floor = calibration_bands.fit_margins(rows, cases, GPUS, MODELS)["output_tok_s_per_gpu"]
    assert without_floor < 0.1 < 0.2 < with_floor  # 1.3 / 1.02: e^0.24
    bands_ = calibration_bands.held_out_bands(rows, cases, GPUS, MODELS, {"output_tok_s_per_gpu": with_floor})
    inside = [b[0] <= c["measured"] / c["loso_predicted"] <= b[1] for b, c in zip(bands_, cases, strict=True)]
    assert sum(inside) / len(inside) >= bands.HELD_OUT_ROW_FLOOR


def test_the_committed_bands_say_how_much_they_were_widened():
    margin = bands.BAND_MARGINS["output_tok_s_per_gpu"]
    assert margin > 0
    assert f"widened {math.exp(margin):.2f}× each way" in bands.band_source("output_tok_s_per_gpu|trtllm|nvidia")


def test_band_coverage_reports_the_held_out_bands_share():
    from app.calibration.validation.validate import band_coverage

    def case(source: str, inside: bool, held: bool, margin_held: bool = False) -> dict:
        return {"metric": "ttft_ms", "source": source, "covered": True, "low": None, "loso_inside_band": inside,
                "held_out_inside_band": held, "margin_held_out_inside_band": margin_held}  # fmt: skip

    cases = [case("big", True, True) for _ in range(8)] + [case("small", True, False), case("small", True, True, True)]
    stats = band_coverage(cases)["ttft_ms"]
    assert stats["share"] == 1.0 and stats["held_out_share"] == pytest.approx(0.9)
    assert stats["held_out_publication_share"] == pytest.approx(0.75)
    assert stats["margin_held_out_share"] == pytest.approx(0.1)
    assert stats["margin_held_out_publication_share"] == pytest.approx(0.25)


def test_a_thin_regimes_own_spread_widens_its_parent_only_from_two_publications():
    """InferenceX's ten SGLang R1 FP4 TTFT rows, one run collapsing at 64 clients, had set their regime's top at 109x
    the estimate: one publication's rows share a setup, and they already weigh as one publication in the parent."""
    wide_rows, wide = _case_rows([0.8 + 0.01 * i for i in range(41)], "vllm", source="many-lab")
    lone_rows, lone = _case_rows([1.0, 1.1, 3.0, 5.0, 9.0, 20.0], "vllm", dtype="fp8", source="burst-lab")
    one = band_table(wide_rows + lone_rows, wide + lone, GPUS, MODELS)
    assert one["output_tok_s_per_gpu|vllm|nvidia|fp8|dense"][:2] == one["output_tok_s_per_gpu|vllm|nvidia"][:2]
    split = [row | {"source": "other-lab"} if i % 2 else row for i, row in enumerate(lone_rows)]
    two = band_table(wide_rows + split, wide + lone, GPUS, MODELS)
    assert two["output_tok_s_per_gpu|vllm|nvidia|fp8|dense"][1] > two["output_tok_s_per_gpu|vllm|nvidia"][1]


def test_the_multinode_regime_keeps_its_own_spread_from_one_publication():
    """Its rows are in no other regime, so its parent has never seen them."""
    single_rows, single = _case_rows([0.95 + 0.005 * i for i in range(21)], "sglang")
    multi_rows = [
        row | {"tensor_parallel": "16", "gpu_count": "16", "source": "tt"} for row in _case_rows([1] * 6, "sglang")[0]
    ]
    multi = [{"loso_predicted": 100.0, "measured": 30.0 + 5 * i} for i in range(6)]
    table = band_table(single_rows + multi_rows, single + multi, GPUS, MODELS)
    assert table["output_tok_s_per_gpu|multinode"][0] < 0.5 < table["output_tok_s_per_gpu"][0]


def test_a_margin_held_out_is_fitted_without_the_publication_it_scores():
    """Three labs agree within ±15 % and a fourth sits 60 % above them. The committed margin is fitted on all four
    held-out shares, the far lab's included, so it widens until the far lab's rows count too; refitted without the
    far lab (as the next publication's would be), the margin is the three's, and the far lab falls outside."""
    from app.calibration.held_out.bands import fit_margins, mark_held_out_bands, mark_margin_held_out

    rows: list[dict] = []
    cases: list[dict] = []
    for source, centre in (("low-lab", 0.85), ("mid-lab", 1.0), ("high-lab", 1.15), ("far-lab", 1.6)):
        r, c = _case_rows([centre + 0.002 * i for i in range(10)], "trtllm", source=source)
        rows += r
        cases += [case | {"covered": True} for case in c]
    mark_held_out_bands(rows, cases, GPUS, MODELS, fit_margins(rows, cases, GPUS, MODELS))
    mark_margin_held_out(rows, cases, GPUS, MODELS)
    far = [c for r, c in zip(rows, cases, strict=True) if r["source"] == "far-lab"]
    assert sum(c["held_out_inside_band"] for c in far) > 0  # the committed margin was widened for it
    assert not any(c["margin_held_out_inside_band"] for c in far)
    near = [c for r, c in zip(rows, cases, strict=True) if r["source"] != "far-lab"]
    assert all(c["margin_held_out_inside_band"] is not None for c in near)


def test_a_band_for_an_engine_never_measured_on_its_vendor_says_so():
    """SGLang on AMD has no validation row: its band is every row's (1,964), which read as its own evidence count
    and came out narrower than vLLM on AMD's (633 rows of its own); the evidence now names the empty regime."""
    assert "output_tok_s_per_gpu|sglang|amd" not in BAND_TABLE
    _, _, sglang_amd = bands.band_ratio("output_tok_s_per_gpu", "sglang", "AMD", "fp8", "moe")
    assert "no validation row measures sglang on amd (output tokens/s per GPU, SGLang on AMD)" in sglang_amd
    _, _, vllm_amd = bands.band_ratio("output_tok_s_per_gpu", "vllm", "AMD", "fp8", "moe")
    _, _, sglang_nvidia = bands.band_ratio("output_tok_s_per_gpu", "sglang", "NVIDIA", "fp8", "moe")
    assert "no validation row measures" not in vllm_amd + sglang_nvidia


def test_committed_bands_are_answered_once_per_regime() -> None:
    regime = ("ttft_ms", "vllm", "NVIDIA", "fp8", "dense", True, 2, "latency_bound")
    first = bands.band_ratio(*regime)
    assert bands.band_ratio(*regime) is first  # the regime's answer kept, not written again
    assert first == bands.band_ratio(*regime, table=BAND_TABLE)  # and it is the committed table's answer


def test_a_widened_band_says_the_floor_it_is_widened_to_in_the_numbers_it_shows():
    """UNKNOWN_BAND is 0.55-1.6 times the estimate, -45 % / +60 %, but every answer widened to it said '±50 % at
    least' beside a band whose low end is 45 % under the estimate (found by qa14)."""
    low, high = bands.UNKNOWN_BAND
    words = f"−{round((1 - low) * 100)}% / +{round((high - 1) * 100)}%"
    assert bands.UNKNOWN_BAND_WORDS == words == "−45% / +60%"
    args = ("output_tok_s_per_gpu", "vllm", "NVIDIA", "fp8", "moe")
    evidences = [
        bands.band_ratio("no_such_metric", "x", "y", "z", "w")[2],
        bands.band_ratio(*args, pipeline_stages=2)[2],
        bands.band_ratio(*args, spans_nodes=True, table={})[2],
        bands.band_ratio("output_tok_s_per_gpu", "vllm", "NVIDIA", "int4", "dense")[2],
    ]
    for evidence in evidences:
        assert words in evidence and "±50" not in evidence, evidence
