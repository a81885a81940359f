"""Is the cost gap between aggregated and disaggregated serving inside the estimates' uncertainty?

Each side's monthly cost gets a band: its cost across the p10-p90 throughput band of its regime (cost ∝ 1 /
throughput, not re-rounded to whole replicas at either end). The aggregated option's ratios are those of the band
the ranking gives its $ per output token (plan.aggregated_option ranks by it), which is 1 / its throughput band;
each pool's are 1 / aggregated serving's throughput band in the pool's regime (efficiency.bands.band_ratio of output
tokens/s per GPU, the lookup the ranking's own throughput band makes), borrowed as the pools' latency bands are
(bands.py). The gap is a close call when the two bands overlap: explain.is_close_call, the rule /rank flags a
runner-up close to rank 1 by. Pure: no web or database imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, is_close_call
from app.scoring.serving.disaggregated.pricing import DisaggregatedPlan
from app.scoring.serving.plans.options import ServingOption

THROUGHPUT_METRIC = "output_tok_s_per_gpu"  # the metric the ranking's throughput band is looked up by

# What the rule assumes, said wherever a close call is (page, JSON, CLI).
CLOSE_CALL_RULE = (
    "Each band is that side's monthly cost across the p10-p90 throughput band of its regime (cost ∝ 1 / throughput, "
    "not re-rounded to whole replicas at either end): the aggregated option's own band, as the ranking gives its $ "
    "per output token; each pool's borrowed from aggregated serving in its regime. The gap is a close call where the "
    "bands overlap: the rule /rank flags close calls by. It treats the two estimates' errors as independent. Both "
    "rest on one model of the same GPUs' steps and share much of their error (where they erred together the order "
    "would hold, as /rank never calls rows on one estimate close), so an overlap may overstate the doubt; bands apart "
    "are apart either way."
)


@dataclass(frozen=True, slots=True)
class CloseCall:
    """The two monthly costs' bands, and whether they overlap."""

    close: bool
    aggregated_usd: Band
    disaggregated_usd: Band
    words: str  # the verdict's sentence: close or not, with both bands


def aggregated_cost_band(s: ServingOption) -> Band | None:
    """The aggregated option's monthly cost across the band of its ranked metric, as ratios: $ per output token's,
    1 / its throughput band, as aggregated_option ranks it (None: no band)."""
    o = s.option
    value = getattr(o, o.band_metric) if o.band_metric else None
    if o.band is None or not value:
        return None
    return Band.around(s.cost.monthly_usd_autoscaled, o.band.low / value, o.band.high / value)


def plan_cost_band(plan: DisaggregatedPlan) -> Band | None:
    """A plan's monthly cost with each pool's cost across its borrowed throughput band (None: a pool with no
    regime)."""
    low = high = 0.0
    for pool, instance in (
        (plan.prefill, plan.pairing.prefill_instance),
        (plan.decode, plan.pairing.decode_instance),
    ):
        if instance.band_regime is None:
            return None
        slow, fast, _ = band_ratio(THROUGHPUT_METRIC, *instance.band_regime)
        low, high = low + pool.monthly_usd / fast, high + pool.monthly_usd / slow
    return Band(low, high)


def close_call(aggregated: ServingOption | None, best: DisaggregatedPlan | None) -> CloseCall | None:
    """Whether the cheaper side's cost band overlaps the other's (None: a side missing, or with no band)."""
    if aggregated is None or best is None:
        return None
    a, d = aggregated_cost_band(aggregated), plan_cost_band(best)
    if a is None or d is None:
        return None
    cheaper, other = (a, d) if aggregated.cost.monthly_usd_autoscaled <= best.monthly_usd else (d, a)
    close = is_close_call(other, cheaper)  # two estimates: never the same one
    bands = f"aggregated ${a.low:,.0f}–${a.high:,.0f} a month, disaggregated ${d.low:,.0f}–${d.high:,.0f}"
    if close:
        words = f"A close call: the two monthly costs' bands overlap ({bands}), so the estimates cannot order them."
    else:
        words = f"Not a close call: the two monthly costs' bands do not overlap ({bands})."
    return CloseCall(close, a, d, words)
