"""Issue 10's "answer smoothly": the smoothness sweep (benchmarks/smoothness_sweep.py) over the latency limits and
the batch cap, for its seven questions as the estimate API answers them. More room never serves fewer tokens/s, and
every step over 1.3x between neighbouring grid points is a whole request more in the batch, a layout switch, a
refusal's edge or light load, or shrinks when its interval is bisected (a steep curve, not a threshold)."""

from functools import cache
from typing import Any

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.results import InferenceEstimate
from benchmarks import smoothness_sweep as sweep

ROOM_AXES = [axis for axis in sweep.AXES if axis.room]  # TPOT limit, TTFT limit, max_num_seqs


@cache
def _flags() -> list[tuple[str, str, dict[str, Any]]]:
    gpus, models = load_gpu_specs(), load_model_specs()
    found = []
    for q in sweep.QUESTIONS:
        for axis in ROOM_AXES:
            points = sweep.sweep(q, axis, sweep.as_the_api, gpus, models)
            at = {p.value: p for p in points}
            for flag in sweep.flags(axis, points):
                if flag["kind"] == "jump" and flag["what"] != "usd_per_m_tokens":
                    flag.update(sweep.refine(q, axis, sweep.as_the_api, flag, gpus, models))
                flag["cause"] = sweep.cause(axis, flag, at[flag["from"]], at[flag["to"]])
                found.append((q.label, axis.name, flag))
    return found


def test_more_latency_room_or_a_larger_batch_cap_never_serves_fewer_tokens_per_s():
    assert [f for f in _flags() if f[2]["kind"] == "wrong way"] == []
    assert [axis.name for axis in ROOM_AXES] == ["tpot_ms", "ttft_ms", "max_num_seqs"]


def test_every_step_over_the_threshold_along_the_limits_has_a_named_cause():
    flags = _flags()
    assert flags  # the TTFT limit's light-load ramp and whole-request steps at small batches are there to explain
    assert [f for f in flags if f[2]["cause"].startswith("DISCONTINUITY")] == []


def _estimate(batch: int, rate: float) -> InferenceEstimate:
    return InferenceEstimate(
        True, "fits", "G", 1, 1, 1, batch=batch, output_tokens_per_s=rate, output_tokens_per_s_per_gpu=rate
    )


def _refined(shape) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """refine() over a TPOT-limit interval of 20 -> 22 ms, tokens/s per GPU = shape(limit)."""
    question = sweep.Question("synthetic", "G", 1, "m", "bf16", "vllm")
    axis = sweep.AXES[0]

    def estimator(gpu, count, model, workload) -> InferenceEstimate:  # type: ignore[no-untyped-def]
        return _estimate(100, shape(workload.tpot_ms))

    flag = {"from": 20.0, "to": 22.0, "kind": "jump", "what": "tokens_per_s_per_gpu"}
    return sweep.refine(question, axis, estimator, flag, {"G": None}, {"m": None})


def test_refining_tells_a_threshold_from_a_steep_curve():
    threshold = _refined(lambda ms: 100.0 if ms < 21.3 else 200.0)
    steep = _refined(lambda ms: 100.0 * 2 ** (ms - 20.0))
    assert threshold["discontinuous"] and threshold["ratio_there"] == 2.0
    assert threshold["finest"][0] < 21.3 <= threshold["finest"][1]
    assert not steep["discontinuous"] and steep["ratio_there"] < 1.001
