"""The close call between aggregated and disaggregated serving: each side's monthly cost across its throughput band,
close where the two bands overlap (explain.is_close_call, /rank's rule)."""

import pytest

from app.scoring.efficiency.bands import band_ratio
from app.scoring.serving.disaggregated.close_call import aggregated_cost_band, close_call, plan_cost_band
from app.scoring.serving.disaggregated.plan import compare
from tests.scoring.test_disaggregated_band_high import ASKED, BUSY, LLAMA, SNAPSHOT


def test_each_pool_costs_across_the_throughput_band_of_its_regime_and_the_call_is_the_overlap():
    c = compare(ASKED, BUSY, SNAPSHOT, LLAMA)
    assert c.aggregated is not None and c.best is not None
    plan = c.best
    expected_low = expected_high = 0.0
    for pool, instance in ((plan.prefill, plan.pairing.prefill_instance), (plan.decode, plan.pairing.decode_instance)):
        assert instance.band_regime is not None
        low, high, _ = band_ratio("output_tok_s_per_gpu", *instance.band_regime)
        assert low < 1 < high
        expected_low += pool.monthly_usd / high  # the fast end of the throughput band: the cheap end of the cost
        expected_high += pool.monthly_usd / low
    band = plan_cost_band(plan)
    assert band is not None
    assert band.low == pytest.approx(expected_low) and band.high == pytest.approx(expected_high)
    regime = c.aggregated_regime  # the aggregated layout's, looked up as a pool's: vLLM, NVIDIA, FP8, dense
    assert regime is not None and tuple(regime)[:5] == ("vllm", "NVIDIA", "fp8", "dense", False)
    a = aggregated_cost_band(c.aggregated, regime)
    low, high, _ = band_ratio("output_tok_s_per_gpu", *regime)
    monthly = c.aggregated.cost.monthly_usd_autoscaled
    assert a is not None and a.low == pytest.approx(monthly / high) and a.high == pytest.approx(monthly / low)
    call = close_call(c.aggregated, regime, plan)
    assert call is not None and call.close == a.overlaps(band)
    assert close_call(None, regime, plan) is None and close_call(c.aggregated, regime, None) is None
    assert close_call(c.aggregated, None, plan) is None  # no regime, no band: no call claimed
