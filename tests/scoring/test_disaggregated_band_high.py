"""Disaggregated pools at limits_at band_high: each pool meets its limit at the slow end of the band of aggregated
serving in its regime (the ranking's lookup), the KV transfer on the estimate."""

from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.bands import band_ratio
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.hardware.machines import Machine
from app.scoring.inference.bands.latency_bands import p99_high_ratios
from app.scoring.serving.disaggregated.bands import band_terms, pool_bands, slow_end_line
from app.scoring.serving.disaggregated.plan import compare
from app.scoring.serving.disaggregated.pools import decode_instance, prefill_instance
from app.scoring.serving.disaggregated.reasons import verdict
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LLAMA = MODELS["llama-3.1-70b"]
# The brief's question: Llama-3.1-70B FP8, a 1 s TTFT and 50 ms TPOT, as compare() asks it (latency bound)
ASKED = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", ttft_ms=1000, tpot_ms=50)
SAFE = ASKED.model_copy(update={"limits_at": "band_high"})
BUSY = Traffic(requests_per_day=2_000_000)


def _offers() -> tuple[Offer, ...]:
    return tuple(
        Offer(
            "p",
            "P",
            gpu,
            8,
            "on_demand",
            price,
            date(2026, 1, 1),
            offer_id=i,
            gpus_per_node=8,
            intra_node_link="nvlink",
            inter_node_fabric="infiniband",
            inter_node_gbps_per_gpu=400.0,
        )  # fmt: skip
        for i, (gpu, price) in enumerate((("H100-SXM", 3.0), ("B200", 5.0)), start=1)
    )


SNAPSHOT = CatalogSnapshot(gpus=GPUS, offers=_offers())


def test_each_pool_meets_its_limit_at_its_bands_slow_end_with_the_kv_transfer_on_the_estimate():
    comparison = compare(SAFE, BUSY, SNAPSHOT, LLAMA)
    assert comparison.plans
    mean_ttft_budget = SAFE.ttft_ms / DEFAULT_EFFICIENCY.p99_ttft_over_mean
    tpot_target = DEFAULT_EFFICIENCY.slo_tpot_utilisation * SAFE.tpot_ms
    for plan in comparison.plans:
        p, d = plan.pairing.prefill_instance, plan.pairing.decode_instance
        assert p.band_regime is not None and d.band_regime is not None
        ttft_high = band_ratio("ttft_ms", *p.band_regime)[1]
        tpot_high = band_ratio("tpot_ms", *d.band_regime)[1]
        assert ttft_high > 1 and tpot_high > 1  # the check below is not the estimate's
        transfer = plan.pairing.transfer_ms
        assert (plan.ttft_ms - transfer) * ttft_high + transfer <= mean_ttft_budget * (1 + 1e-9)
        assert plan.tpot_ms * tpot_high <= tpot_target * (1 + 1e-9)
        bands = pool_bands(plan)
        assert bands is not None
        assert bands.ttft_mean_ms.high <= mean_ttft_budget * (1 + 1e-9) and bands.tpot_mean_ms.high <= tpot_target
        assert bands.ttft_mean_ms.low <= plan.ttft_ms <= bands.ttft_mean_ms.high
        assert bands.tpot_mean_ms.low <= plan.tpot_ms <= bands.tpot_mean_ms.high


def test_band_high_needs_at_least_the_estimates_gpus_and_serves_no_more_per_decode_gpu():
    plain, safe = compare(ASKED, BUSY, SNAPSHOT, LLAMA).best, compare(SAFE, BUSY, SNAPSHOT, LLAMA).best
    assert plain is not None and safe is not None

    def gpus(plan) -> int:  # type: ignore[no-untyped-def]
        return plan.prefill.gpus_at_peak + plan.decode.gpus_at_peak + plan.idle_gpus_at_peak

    assert gpus(safe) > gpus(plain)
    assert safe.monthly_usd > plain.monthly_usd
    per_gpu = [x.pairing.decode_instance.capacity_rps / x.pairing.decode_instance.gpu_count for x in (plain, safe)]
    assert per_gpu[1] < per_gpu[0]
    on_estimate = pool_bands(plain)  # the estimate's answer carries the borrowed bands too, sized at nothing
    assert on_estimate is not None and on_estimate.tpot_mean_ms.low <= plain.tpot_ms <= on_estimate.tpot_mean_ms.high
    assert band_terms(on_estimate, ASKED) == [] and slow_end_line(plain, ASKED) is None


def test_the_pools_look_their_bands_up_as_the_ranking_does_at_its_load():
    gpu, machine = GPUS["H100-SXM"], Machine(gpus_per_node=8, link="nvlink")
    latency_bound = SAFE.model_copy(update={"scenario": "latency_bound"})
    d = decode_instance(gpu, machine, LLAMA, latency_bound, 2)
    p = prefill_instance(gpu, machine, LLAMA, latency_bound, 2)
    assert d is not None and p is not None and d.band_regime == p.band_regime
    assert d.band_regime is not None and d.band_regime.scenario == "latency_bound"  # under traffic, as compare asks
    ratios = p99_high_ratios(d.band_regime)
    assert ratios == (
        band_ratio("ttft_ms", "vllm", "nvidia", "fp8", "dense", scenario="latency_bound")[1],
        band_ratio("tpot_ms", "vllm", "nvidia", "fp8", "dense", scenario="latency_bound")[1],
    )
    assert d.tpot_target_ms == pytest.approx(DEFAULT_EFFICIENCY.slo_tpot_utilisation * 50 / ratios[1])
    on_estimate = decode_instance(gpu, machine, LLAMA, ASKED, 2)
    assert on_estimate is not None and on_estimate.tpot_target_ms == DEFAULT_EFFICIENCY.slo_tpot_utilisation * 50
    assert on_estimate.batch > d.batch


def test_the_why_says_the_slow_end_in_numbers_and_that_the_bands_are_borrowed():
    safe, plain = compare(SAFE, BUSY, SNAPSHOT, LLAMA), compare(ASKED, BUSY, SNAPSHOT, LLAMA)
    why = verdict(safe, LLAMA, SAFE).why
    slow_end = [line for line in why if line.startswith("At the slow end of the bands: prefill first token + queue")]
    assert len(slow_end) == 1 and "KV transfer" in slow_end[0] and "(on the estimate: no band)" in slow_end[0]
    assert "borrowed because no publication measures disaggregated pools" in slow_end[0]
    assert any("p99 limit, a mean of 500 ms at its band's slow end)" in line for line in why)
    assert not any("slow end" in line for line in verdict(plain, LLAMA, ASKED).why)


def test_no_plan_weighs_the_fastest_prompt_at_its_ttft_bands_slow_end():
    tight = SAFE.model_copy(update={"ttft_ms": 300, "input_len": 8000})
    answer = verdict(compare(tight, BUSY, SNAPSHOT, LLAMA), LLAMA, tight)
    line = next(x for x in answer.why if x.startswith("Disaggregated: the fastest prefill instance"))
    assert "against the budget (× " in line and ": its TTFT band's high ratio)" in line
