"""Prefix caching and speculative decoding: what each does to a forward pass, and its explanation terms.

Both are off unless the workload asks (`prefix_cache_hit`, `spec_acceptance`). The estimator reaches
them through two small hooks in steps.py and prefill.py: prefill work is scaled by `uncached_share`, and
decode steps go through `decode_parts`, which verifies k drafted tokens per sequence in one pass, adds the
draft passes, and divides the step by the tokens it yields on average.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.scoring.explain import Term, batch_words, fixed, percent, significant
from app.scoring.hashed_once import HashedOnce, hashed_once

if TYPE_CHECKING:
    from app.scoring.inference.batching.operating_points import OperatingPoint
    from app.scoring.workload import InferenceWorkload

# One drafted token costs this share of a target forward pass: DeepSeek-V3's MTP module is 14 B params
# beside the 671 B main model (serving_techniques.csv, mtp_module_params; arXiv 2412.19437). EAGLE heads
# are one decoder layer, the same order (1/L of an 80-layer 70B is 1.25%).
DRAFT_COST_SHARE = 14 / 671
# Drafted tokens per step when only an acceptance rate is given: MTP depth 1, as DeepSeek-V3 serves it.
DEFAULT_DRAFT_TOKENS = 1
SOURCE = "serving_techniques.csv"


def expected_tokens_per_step(acceptance: float, draft_tokens: int) -> float:
    """Tokens a sequence advances per verify pass: (1 - a^(k+1)) / (1 - a) (Leviathan et al. 2023, eq. 1)."""
    if draft_tokens < 1 or acceptance <= 0:
        return 1.0
    return (1.0 - acceptance ** (draft_tokens + 1)) / (1.0 - acceptance)


@hashed_once
@dataclass(frozen=True, slots=True)
class ServingTechniques(HashedOnce):
    """What the serving engine does beyond plain continuous batching (all zero = nothing)."""

    prefix_cache_hit: float = 0.0  # share of prompt tokens whose KV is reused from the prefix cache
    spec_acceptance: float = 0.0  # chance each drafted token is accepted by the target model
    spec_draft_tokens: int = 0  # tokens drafted per step (0 = no speculative decoding)
    draft_cost_share: float = DRAFT_COST_SHARE
    # What the fields above give, worked out once when built (__post_init__): every forward pass, search and sizing
    # reads them (~2,000 reads a ranking, each a property call before). Outside eq, hash and repr, as HashedOnce's
    # hash is; replace() builds them afresh.
    speculative: bool = field(init=False, repr=False, compare=False)
    active: bool = field(init=False, repr=False, compare=False)
    uncached_share: float = field(init=False, repr=False, compare=False)  # prompt tokens that still run the model
    # causal attention FLOPs of the uncached suffix: positions hL..L of L, so (L^2 - (hL)^2) / L^2
    uncached_attention_share: float = field(init=False, repr=False, compare=False)
    tokens_per_step: float = field(init=False, repr=False, compare=False)  # expected_tokens_per_step, 1 without

    def __post_init__(self) -> None:
        speculative = self.spec_draft_tokens > 0 and self.spec_acceptance > 0
        derived = {
            "speculative": speculative,
            "active": self.prefix_cache_hit > 0 or speculative,
            "uncached_share": 1.0 - self.prefix_cache_hit,
            "uncached_attention_share": 1.0 - self.prefix_cache_hit**2,
            "tokens_per_step": (
                expected_tokens_per_step(self.spec_acceptance, self.spec_draft_tokens) if speculative else 1.0
            ),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: the dataclass's own __setattr__ refuses


NO_TECHNIQUES = ServingTechniques()


def techniques_for(workload: InferenceWorkload) -> ServingTechniques:
    """What the workload asks the engine to do beyond plain continuous batching; NO_TECHNIQUES (one frozen value,
    equal to what would be built) where it asks for neither, as nearly every question does: a ranking reads this
    for every layout it sizes."""
    if not workload.prefix_cache_hit and not workload.spec_acceptance:
        return NO_TECHNIQUES
    acceptance = workload.spec_acceptance or 0.0
    draft = (workload.spec_draft_tokens or DEFAULT_DRAFT_TOKENS) if acceptance > 0 else 0
    return ServingTechniques(
        prefix_cache_hit=workload.prefix_cache_hit or 0.0, spec_acceptance=acceptance, spec_draft_tokens=draft
    )


def _change(name: str, new: float, old: float, unit: str, detail: str) -> Term:
    return Term(name, new - old, unit, f"{fixed(old, 1)} → {fixed(new, 1)} {unit}; {detail}")


def technique_terms(t: ServingTechniques, point: OperatingPoint, base: OperatingPoint) -> list[Term]:
    """Each technique's own lines, then its effect against the same batch without it."""
    terms: list[Term] = []
    if t.prefix_cache_hit > 0:
        terms += [
            Term(
                "prefix cache: prompt tokens prefilled",
                t.uncached_share * 100,
                "%",
                f"{percent(t.prefix_cache_hit)} of prompt tokens reuse cached KV and skip the forward pass; the rest "
                f"still attend to the whole prompt ({percent(t.uncached_attention_share)} of attention FLOPs); "
                f"{SOURCE}",
            ),
            _change("prefix cache: prefill time", point.prefill.total_ms, base.prefill.total_ms, "ms", "one prompt"),
        ]
    if t.speculative:
        step = point.step
        verify_ms = step.pipeline_stages * (step.busy_ms + step.comm_ms + step.overhead_ms)
        terms += [
            Term(
                "speculative: tokens per step",
                t.tokens_per_step,
                "tokens/step",
                f"(1 - a^(k+1)) / (1 - a) with acceptance a = {significant(t.spec_acceptance)}, k = "
                f"{t.spec_draft_tokens} "
                f"drafted (Leviathan et al. 2023); published: MTP 85-90% acceptance, EAGLE-3 2.8-5.1 tokens/step "
                f"on Llama 3.3 70B ({SOURCE})",
            ),
            Term(
                "speculative: verify pass",
                verify_ms,
                "ms",
                f"{t.spec_draft_tokens + 1} tokens per sequence in one pass, {step.bound}-bound: cheap while "
                "memory-bound (small batches), costs compute once compute-bound (large ones)",
            ),
            Term(
                "speculative: draft passes",
                step.pipeline_stages * step.draft_ms,
                "ms",
                f"k × ({fixed(t.draft_cost_share, 3)} × a plain decode pass + one layer's launch); draft share = "
                f"DeepSeek-V3 MTP module 14B / 671B params ({SOURCE})",
            ),
        ]
    same = f"at {batch_words(point.batch)}, same configuration"
    terms += [
        _change("techniques: TTFT change", point.ttft_ms, base.ttft_ms, "ms", same),
        _change("techniques: TPOT change", point.tpot_ms, base.tpot_ms, "ms", same),
        Term(
            "techniques: cost per token change",
            (base.tokens_per_s / point.tokens_per_s - 1.0) * 100 if point.tokens_per_s else 0.0,
            "%",
            f"{fixed(base.tokens_per_s, 0)} → {fixed(point.tokens_per_s, 0)} output tokens/s {same}; cost ∝ 1 / "
            "tokens/s",
        ),
    ]
    return terms
