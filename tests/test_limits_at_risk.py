"""Where an estimate meets the p99 latency limits but a p99 at its band's slow end would not, the row says so."""

from fastapi.testclient import TestClient

from app.scoring.inference.bands.limits import limits_at_risk
from app.scoring.workload import InferenceWorkload


def test_each_limit_a_bands_slow_end_passes_is_named():
    w = InferenceWorkload(ttft_ms=1000, tpot_ms=40)
    text = limits_at_risk(w, 410.0, 33.2, 1412.0, 44.9)
    assert text == (
        "TTFT p99 1,412 ms at its band's slow end, over the 1,000 ms limit; "
        "TPOT p99 44.9 ms at its band's slow end, over the 40 ms limit"
    )
    assert limits_at_risk(InferenceWorkload(ttft_ms=2000, tpot_ms=40), 410.0, 33.2, 1412.0, 44.9).startswith("TPOT")
    assert limits_at_risk(InferenceWorkload(ttft_ms=2000, tpot_ms=50), 410.0, 33.2, 1412.0, 44.9) == ""


def test_no_risk_is_claimed_where_the_limits_are_missed_or_not_applied():
    over = InferenceWorkload(scenario="concurrency", concurrency=8, ttft_ms=1000, tpot_ms=30)
    assert limits_at_risk(over, 410.0, 33.2, 1412.0, 44.9) == ""  # already over the TPOT limit: labelled as such
    fixed = InferenceWorkload(scenario="max_throughput", ttft_ms=1000, tpot_ms=40)
    assert limits_at_risk(fixed, 410.0, 33.2, 1412.0, 44.9) == ""  # limits reported, not applied


def test_the_rows_and_the_winners_sentence_say_which_limits_are_at_risk(client: TestClient):
    body = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "tpot_ms": 40}
    best = client.post("/api/v1/rank/inference?limit=1", json=body).json()["options"][0]
    assert best["limits_at_risk"].startswith("TTFT p99") and best["tpot_p99_band"]["high"] > 40
    page = client.get("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40").text
    assert "limits at risk" in page and "over the 40 ms limit" in page
    loose = client.post(
        "/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b", "ttft_ms": 60000, "tpot_ms": 1000}
    )
    assert loose.json()["options"][0]["limits_at_risk"] == ""
    assert "limits at risk" not in client.get("/?phase=inference&model=llama-3.1-8b&ttft_ms=60000&tpot_ms=1000").text
