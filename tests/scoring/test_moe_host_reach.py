"""The MoE prefill host time is fitted on loads of at most a prompt every 16 steps: beyond them the band reaches the
throughput without it, and the estimate says why; at the loads its evidence spans, nothing changes."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def _thin(assumptions: list[str]) -> list[str]:
    return [a for a in assumptions if a.startswith("thin evidence: the MoE prefill host time")]


def test_a_chat_shaped_moe_load_beyond_the_evidence_gets_a_band_reaching_the_step_without_the_term():
    """gpt-oss-120b on one B200 on vLLM at a 50 ms TPOT: 19.8 ms of a 39.2 ms step was this one fitted term, charged
    for a prompt every 4 steps, with the band as narrow as a well-evidenced regime's."""
    w = InferenceWorkload(model="gpt-oss-120b", weight_dtype="fp4", tpot_ms=50, engine="vllm")
    est = estimate_inference(GPUS["B200"], 1, MODELS["gpt-oss-120b"], w)
    [note] = _thin(est.assumptions)
    host_ms = next(t.value for t in est.terms if t.name == "MoE prefill host time per step")
    step_ms = est.tpot_ms
    assert est.band.high == pytest.approx(est.output_tokens_per_s * step_ms / (step_ms - host_ms), rel=0.02)
    assert est.band.high > 1.8 * est.output_tokens_per_s and f"{est.band.high:,.0f} tok/s" in note
    assert est.band.low < est.output_tokens_per_s  # the regime's own low side stays


def test_the_loads_the_term_was_fitted_on_and_compiled_engines_are_unchanged():
    r1 = MODELS["deepseek-r1"]
    inferencex = InferenceWorkload(  # 64 clients at 1k/1k: the largest evidenced load, a prompt every 16 steps
        model="deepseek-r1", weight_dtype="fp8", engine="sglang", scenario="concurrency", concurrency=64,
        input_len=1024, output_len=1024,
    )  # fmt: skip
    assert _thin(estimate_inference(GPUS["H200"], 8, r1, inferencex).assumptions) == []
    llamacpp = InferenceWorkload(model="gpt-oss-120b", weight_dtype="int4", tpot_ms=50, engine="llamacpp")
    assert _thin(estimate_inference(GPUS["B200"], 1, MODELS["gpt-oss-120b"], llamacpp).assumptions) == []
    dense = InferenceWorkload(model="llama-3.1-8b", tpot_ms=50, engine="vllm")
    assert _thin(estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], dense).assumptions) == []


def _reach_building_every_breakdown(ctx, eff, point, tokens_per_s):  # type: ignore[no-untyped-def]
    """moe_host_reach as it was before it answered a pass with no MoE prefill host time without its breakdown."""
    from app.scoring.explain import fixed
    from app.scoring.inference.bands import moe_host_reach as reach

    per_pass_ms = reach.moe_prefill_ms(ctx, eff)
    detail = point.step.breakdown
    if per_pass_ms <= 0 or detail is None or detail.moe_host_ms <= 0:
        return 0.0, []
    passes = detail.moe_host_ms / per_pass_ms
    step_ms = point.step.total_ms
    host_ms = detail.moe_host_ms * point.step.pipeline_stages / point.step.tokens_per_step
    if passes <= reach.EVIDENCED_PROMPTS_PER_STEP or host_ms < reach.NOTABLE_STEP_SHARE * step_ms or host_ms >= step_ms:
        return 0.0, []
    without = tokens_per_s * step_ms / (step_ms - host_ms)
    steps_per_prompt = 1 / min(passes, 1.0)
    note = (
        f"thin evidence: the MoE prefill host time takes {fixed(host_ms, 1)} ms of each {fixed(step_ms, 1)} ms step "
        f"here, charged for a prompt every {fixed(steps_per_prompt, 1)} steps; it is fitted on runs with a prompt at "
        f"most every {fixed(1 / reach.EVIDENCED_PROMPTS_PER_STEP, 0)} steps (SGLang DeepSeek-R1, vLLM gpt-oss), and "
        "whether an engine pays it per prompt at this load is not measured, so the band reaches the throughput without "
        f"it ({fixed(without, 0)} tok/s)"
    )
    return without, [note]


def test_the_reach_is_what_it_was_where_no_breakdown_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass with no MoE prefill host time (a dense model, a compiled engine) reaches nothing, without building the
    pass's breakdown (a dataclass of its parts, for every row a ranking explains); every other pass as before."""
    import itertools

    from app.scoring.inference.bands.moe_host_reach import moe_host_reach
    from app.scoring.inference.estimates.estimate import solve_inference
    from app.scoring.inference.estimates.results import Solution
    from app.scoring.inference.step.steps import StepParts

    solutions = []
    for (model, dtype), engine, tpot_ms in itertools.product(
        (("llama-3.1-8b", "bf16"), ("gpt-oss-120b", "fp4"), ("qwen3-30b-a3b", "fp8"), ("deepseek-r1", "fp8")),
        ("vllm", "sglang", "trtllm"),
        (20, 50, 200),
    ):
        w = InferenceWorkload(model=model, weight_dtype=dtype, engine=engine, tpot_ms=tpot_ms)
        for gpu, count in (("B200", 1), ("H200", 8)):
            solved = solve_inference(GPUS[gpu], count, MODELS[model], w)
            if isinstance(solved, Solution):
                solutions.append(solved)
    answers = [_reach_building_every_breakdown(s.ctx, s.efficiency, s.point, s.point.tokens_per_s) for s in solutions]
    built: list[int] = []
    breakdown = StepParts.breakdown
    monkeypatch.setattr(StepParts, "breakdown", property(lambda step: built.append(1) or breakdown.fget(step)))
    for solved, answer in zip(solutions, answers, strict=True):
        before = len(built)
        assert moe_host_reach(solved.ctx, solved.efficiency, solved.point, solved.point.tokens_per_s) == answer
        if not solved.model.is_moe:
            assert len(built) == before  # no MoE prefill host time: no breakdown built
    assert len(solutions) > 40 and sum(bool(a[1]) for a in answers) > 2 and 0 < len(built) < len(solutions)
