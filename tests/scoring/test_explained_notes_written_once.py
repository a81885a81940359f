"""An explained estimate writes its assumption notes and limits-at-risk words when first read, as it writes its memory
and terms: a ranking
explains every (GPU, machine) slot's kept layout and an answer shows the notes of few rows, and some notes time more
(the TPOT floor's lone request; a heads split's data-parallel attention searched in full). Read, they are the notes
every part of explain_estimate says, in its order, the band's evidence last."""

import itertools
from collections.abc import Iterator

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.explain import WrittenOnce
from app.scoring.inference.bands.latency_bands import latency_bands
from app.scoring.inference.bands.limits import limit_multiples, limits_at_risk
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import InferenceEstimate, Solution
from app.scoring.inference.explanation import explain_estimate
from app.scoring.inference.explanation.explain_estimate import explain
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
QUESTIONS = (
    {"model": "llama-3.1-8b", "input_len": 1_013},
    {"model": "llama-3.1-405b", "weight_dtype": "fp8", "engine": "trtllm", "tpot_ms": 40},  # near the TPOT floor
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "scenario": "request_rate", "requests_per_s": 2.0},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang"},  # auto: a heads split's dp note
    {"model": "qwen3-30b-a3b", "scenario": "concurrency", "concurrency": 300, "kv_dtype": "fp8"},
    {"model": "gpt-oss-120b", "weight_dtype": "fp4", "scenario": "max_throughput", "job_requests": 50_000},
)


def _explained_counting(
    monkeypatch: pytest.MonkeyPatch, writer: str
) -> Iterator[tuple[Solution, InferenceEstimate, list[Solution]]]:
    """Each question's solved estimate on a few GPUs, explained, with the solutions explain_estimate's `writer` has
    written words for since (empty until the estimate's words are read)."""
    written: list[Solution] = []
    write = getattr(explain_estimate, writer)

    def counting(s: Solution, *rest):  # type: ignore[no-untyped-def]
        written.append(s)
        return write(s, *rest)

    monkeypatch.setattr(explain_estimate, writer, counting)
    for question, gpu_id, count in itertools.product(QUESTIONS, ("H100-SXM", "H200", "MI300X"), (1, 8)):
        written.clear()  # solving and explaining write nothing yet
        workload = InferenceWorkload.model_validate(question)
        solved = solve_inference(GPUS[gpu_id], count, MODELS[workload.model], workload)
        if isinstance(solved, Solution):
            yield solved, explain(solved), written


def test_explain_writes_no_note_until_one_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for solved, est, written in _explained_counting(monkeypatch, "_assumptions"):
        assert isinstance(est.assumption_notes, WrittenOnce) and written == []
        notes = est.assumptions
        assert written == [solved] and est.assumptions is notes  # written once, then kept
        assert notes == [*solved.ctx.assumptions, *notes[len(solved.ctx.assumptions) :]]
        assert notes[-1] and notes[-1] == est.assumptions[-1]  # the band's evidence last
        checked += 1
    assert checked > 12


def test_limits_at_risk_are_written_when_read() -> None:
    at_risk = 0
    for question, gpu_id, count in itertools.product(QUESTIONS, ("H100-SXM", "L40S", "MI300X"), (1, 2, 8)):
        workload = InferenceWorkload.model_validate(question)
        solved = solve_inference(GPUS[gpu_id], count, MODELS[workload.model], workload)
        if not isinstance(solved, Solution):
            continue
        est = explain(solved)
        if solved.job is not None:  # a batch job's deadline says its risk: no limits at risk
            assert est.limits_at_risk_words == "" and est.limits_at_risk == ""
            continue
        assert isinstance(est.limits_at_risk_words, WrittenOnce)
        multiples = limit_multiples(workload, solved.band_regime)
        highs = latency_bands(solved.band_regime, est.ttft_p99_ms, est.tpot_p99_ms).p99_highs
        words = limits_at_risk(workload, est.ttft_p99_ms, est.tpot_p99_ms, *highs, multiples)
        assert est.limits_at_risk == words and est.limits_at_risk is est.limits_at_risk
        at_risk += bool(words)
    assert at_risk >= 1


def test_fits_words_are_written_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A feasible estimate's reason ('fits: batch N of max M on ...', a light load's words) is written when first read
    (found by speed28): a ranking's row keys and refused rows no longer read every slot's, and an answer shows few."""
    checked = 0
    for solved, est, written in _explained_counting(monkeypatch, "_fits_words"):
        assert isinstance(est.reason_words, WrittenOnce) and written == []
        reason = est.reason
        assert written == [solved] and est.reason is reason
        assert reason.startswith(("fits: ", "fits below one request in flight"))
        checked += 1
    assert checked > 12
