"""Prefix caching and speculative decoding in the estimator: off by default, each effect in the terms."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.techniques import (
    NO_TECHNIQUES,
    ServingTechniques,
    expected_tokens_per_step,
    techniques_for,
)
from app.scoring.workload import InferenceWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def _estimate(model: str = "llama-3.1-70b", gpus: int = 4, **fields: object):  # type: ignore[no-untyped-def]
    workload = InferenceWorkload(model=model, weight_dtype="fp8", **fields)  # type: ignore[arg-type]
    return estimate_inference(GPUS["H100-SXM"], gpus, MODELS[model], workload)


def _term(estimate, name: str) -> float:  # type: ignore[no-untyped-def]
    return next(t.value for t in estimate.terms if t.name == name)


def test_techniques_are_off_unless_asked() -> None:
    plain = _estimate()
    zero = _estimate(prefix_cache_hit=0.0, spec_acceptance=0.0)
    assert (zero.ttft_ms, zero.tpot_ms, zero.batch) == (plain.ttft_ms, plain.tpot_ms, plain.batch)
    assert not [t for t in plain.terms if t.name.startswith(("prefix cache", "speculative", "techniques"))]


def test_a_question_asking_for_no_technique_shares_the_value_it_would_build() -> None:
    """techniques_for answers NO_TECHNIQUES where neither technique is asked (speed11): equal to the value built
    from the workload, and never where one is asked, however slightly."""
    for fields in ({}, {"prefix_cache_hit": 0.0}, {"spec_acceptance": 0.0}):
        workload = InferenceWorkload(model="llama-3.1-70b", **fields)  # type: ignore[arg-type]
        assert techniques_for(workload) is NO_TECHNIQUES == ServingTechniques(0.0, 0.0, 0)
    asked = {"prefix_cache_hit": 1e-9}, {"spec_acceptance": 1e-9}, {"spec_acceptance": 0.5, "spec_draft_tokens": 3}
    for fields in asked:
        techniques = techniques_for(InferenceWorkload(model="llama-3.1-70b", **fields))  # type: ignore[arg-type]
        assert techniques.active and techniques != NO_TECHNIQUES
    assert techniques_for(InferenceWorkload(model="llama-3.1-70b", spec_acceptance=0.5)).spec_draft_tokens == 1


def test_half_the_prompt_from_the_prefix_cache_lowers_ttft_and_cost_in_the_terms() -> None:
    cached = _estimate(prefix_cache_hit=0.5, input_len=8_000)
    plain = _estimate(input_len=8_000)
    assert _term(cached, "prefix cache: prompt tokens prefilled") == pytest.approx(50.0)
    assert _term(cached, "prefix cache: prefill time") < 0
    assert _term(cached, "techniques: TTFT change") < 0
    assert _term(cached, "techniques: cost per token change") < 0
    assert cached.output_tokens_per_s > plain.output_tokens_per_s  # cheaper per token at the ranked batch too


def test_expected_tokens_per_step_follows_leviathan() -> None:
    assert expected_tokens_per_step(0.0, 3) == 1.0
    assert expected_tokens_per_step(0.85, 1) == pytest.approx(1.85)  # MTP depth 1 at DeepSeek's 85 %
    assert expected_tokens_per_step(0.8, 3) == pytest.approx((1 - 0.8**4) / 0.2)


def _fixed(batch: int, **fields: object) -> float:
    workload = InferenceWorkload(
        model="llama-3.1-8b", input_len=200, output_len=200, scenario="fixed_batch", batch=batch, **fields
    )  # type: ignore[arg-type]
    return estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], workload).tpot_ms


def test_speculation_lowers_tpot_at_small_batches_and_costs_compute_at_large_ones() -> None:
    spec = {"spec_acceptance": 0.6, "spec_draft_tokens": 3}
    # 2.18 tokens per step against a verify pass plus three draft passes of one layer each, which pay that layer's
    # launch and the host time per running sequence
    assert _fixed(1, **spec) < 0.8 * _fixed(1)
    assert _fixed(1024, **spec) > _fixed(1024)


def test_speculative_terms_show_tokens_per_step_and_draft_cost() -> None:
    est = _estimate(scenario="single_stream", spec_acceptance=0.8, spec_draft_tokens=3)
    assert _term(est, "speculative: tokens per step") == pytest.approx(expected_tokens_per_step(0.8, 3))
    assert _term(est, "speculative: draft passes") > 0
    assert _term(est, "techniques: TPOT change") < 0
    assert _term(est, "techniques: TTFT change") == pytest.approx(0.0)


def _as_properties(t: ServingTechniques) -> tuple[object, ...]:
    """The derived values as the properties worked them out on every read before speed15 (kept as the reference)."""
    speculative = t.spec_draft_tokens > 0 and t.spec_acceptance > 0
    tokens = expected_tokens_per_step(t.spec_acceptance, t.spec_draft_tokens) if speculative else 1.0
    active = t.prefix_cache_hit > 0 or speculative
    return speculative, active, 1.0 - t.prefix_cache_hit, 1.0 - t.prefix_cache_hit**2, tokens


def _kept(t: ServingTechniques) -> tuple[object, ...]:
    return t.speculative, t.active, t.uncached_share, t.uncached_attention_share, t.tokens_per_step


def test_techniques_values_worked_out_once_read_as_the_properties_did_and_stay_outside_eq_hash_and_repr() -> None:
    """speculative, active, the uncached shares and tokens_per_step are worked out when built (speed15): each reads
    as the property that worked it out per read, a replace() works them out afresh, and two techniques equal in their
    fields are equal, hash alike and print alike, as before."""
    from dataclasses import replace

    checked = 0
    for hit in (0.0, 1e-9, 0.25, 0.5, 0.999):
        for acceptance in (0.0, 1e-9, 0.3, 0.7, 0.95):
            for draft in (0, 1, 2, 5):
                t = ServingTechniques(prefix_cache_hit=hit, spec_acceptance=acceptance, spec_draft_tokens=draft)
                assert repr(_kept(t)) == repr(_as_properties(t)), (hit, acceptance, draft)
                other = replace(
                    NO_TECHNIQUES, prefix_cache_hit=hit, spec_acceptance=acceptance, spec_draft_tokens=draft
                )
                assert other == t and hash(other) == hash(t) and repr(other) == repr(t)
                assert repr(_kept(other)) == repr(_as_properties(other))
                checked += 1
    assert checked == 100
    assert repr(NO_TECHNIQUES) == (
        f"ServingTechniques(prefix_cache_hit=0.0, spec_acceptance=0.0, spec_draft_tokens=0, draft_cost_share="
        f"{NO_TECHNIQUES.draft_cost_share!r})"
    )
