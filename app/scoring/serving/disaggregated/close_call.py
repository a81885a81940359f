"""Is the cost gap between aggregated and disaggregated serving inside the estimates' uncertainty?

Each side's monthly cost gets a band: its cost across the p10-p90 throughput band of its regime, cost ∝ 1 /
throughput (not re-rounded to whole replicas at either end). The band is efficiency.bands.band_ratio of output
tokens/s per GPU, the lookup the ranking's own throughput band makes: for the aggregated layout in its own regime,
for each pool aggregated serving's in the pool's regime, borrowed as the pools' latency bands are (bands.py). The gap
is a close call when the two bands overlap: explain.is_close_call, the rule /rank flags a runner-up close to rank 1
by. Pure: no web or database imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, fixed, is_close_call
from app.scoring.inference.bands.latency_bands import BandRegime
from app.scoring.serving.disaggregated.pricing import DisaggregatedPlan
from app.scoring.serving.plans.options import ServingOption

THROUGHPUT_METRIC = "output_tok_s_per_gpu"  # the metric the ranking's throughput band is looked up by

# What the rule assumes, said wherever a close call is (page, JSON, CLI).
CLOSE_CALL_RULE = (
    "Each band is that side's monthly cost across the p10-p90 throughput band of its regime (cost ∝ 1 / throughput, "
    "not re-rounded to whole replicas at either end): the aggregated layout's own, each pool's borrowed from "
    "aggregated serving in its regime. The gap is a close call where the bands overlap: the rule /rank flags close "
    "calls by. It treats the two estimates' errors as independent. Both rest on one model of the same GPUs' steps and "
    "share much of their error (where they erred together the order would hold, as /rank never calls rows on one "
    "estimate close), so an overlap may overstate the doubt; bands apart are apart either way."
)


@dataclass(frozen=True, slots=True)
class CloseCall:
    """The two monthly costs' bands, and whether they overlap."""

    close: bool
    aggregated_usd: Band
    disaggregated_usd: Band
    words: str  # the verdict's sentence: close or not, with both bands


def aggregated_cost_band(s: ServingOption, regime: BandRegime | None) -> Band | None:
    """The aggregated option's monthly cost across the throughput band of its layout's regime (None: no regime)."""
    if regime is None:
        return None
    return _across(s.cost.monthly_usd_autoscaled, regime)


def plan_cost_band(plan: DisaggregatedPlan) -> Band | None:
    """A plan's monthly cost with each pool's cost across its borrowed throughput band (None: a pool with no
    regime)."""
    p, d = plan.pairing.prefill_instance.band_regime, plan.pairing.decode_instance.band_regime
    if p is None or d is None:
        return None
    prefill, decode = _across(plan.prefill.monthly_usd, p), _across(plan.decode.monthly_usd, d)
    return Band(prefill.low + decode.low, prefill.high + decode.high)


def _across(monthly_usd: float, regime: BandRegime) -> Band:
    """A monthly cost across the regime's throughput band: the fast end is the cheap end."""
    slow, fast, _ = band_ratio(THROUGHPUT_METRIC, *regime)
    return Band(monthly_usd / fast, monthly_usd / slow)


def close_call(
    aggregated: ServingOption | None, regime: BandRegime | None, best: DisaggregatedPlan | None
) -> CloseCall | None:
    """Whether the cheaper side's cost band overlaps the other's (None: a side missing, or with no band); `regime`:
    the aggregated layout's (plan.Comparison.aggregated_regime)."""
    if aggregated is None or best is None:
        return None
    a, d = aggregated_cost_band(aggregated, regime), plan_cost_band(best)
    if a is None or d is None:
        return None
    cheaper, other = (a, d) if aggregated.cost.monthly_usd_autoscaled <= best.monthly_usd else (d, a)
    close = is_close_call(other, cheaper)  # two estimates: never the same one
    bands = (
        f"aggregated ${fixed(a.low, 0)}–${fixed(a.high, 0)} a month, disaggregated "
        f"${fixed(d.low, 0)}–${fixed(d.high, 0)}"
    )
    if close:
        words = f"A close call: the two monthly costs' bands overlap ({bands}), so the estimates cannot order them."
    else:
        words = f"Not a close call: the two monthly costs' bands do not overlap ({bands})."
    return CloseCall(close, a, d, words)
