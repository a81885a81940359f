"""A training deadline counts the run's start-up (offer_terms.STARTUP_HOURS) in the note that says why nothing finishes
in time, as the rows do: a 14-minute deadline is shorter than the 15-minute start-up, whatever the GPU count."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

LORA_20_MIN = {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e7, "gpus": ["H100-SXM"]}


def test_a_deadline_shorter_than_the_start_up_names_it_and_no_gpu_count(client: TestClient) -> None:
    """It read: 'the nearest, 64xH100-SXM at CoreWeave, takes 28 s. About 3 H100-SXM would finish in time ...
    With Max GPUs 80, 80xH100-SXM at CoreWeave finishes in time', while that row says it finishes in 15 min."""
    body = client.post("/api/v1/rank/training?terms=false", json={**LORA_20_MIN, "max_days": 0.01}).json()
    assert not any(o["feasible"] for o in body["options"])
    note = body["notes"][0]
    assert "takes 15 min (15 min start-up + 28 s of run)" in note, note
    assert "start-up alone fills the deadline" in note
    assert "would finish in time" not in note and "With Max GPUs" not in note


def test_the_gpus_a_late_run_would_need_leave_room_for_its_start_up(client: TestClient) -> None:
    """18 minutes leave 3 for the run: 8 H100s take 3.2, so about 9 (it said 2, as if the run had all 18)."""
    workload = {**LORA_20_MIN, "max_days": 0.0125, "max_gpus": 8}
    note = client.post("/api/v1/rank/training?terms=false", json=workload).json()["notes"][0]
    assert "takes 18 min (15 min start-up + 3.2 min of run)" in note and "About 9 H100-SXM" in note, note


def test_the_deadline_at_risk_badge_does_not_stretch_the_start_up_by_the_band(client: TestClient) -> None:
    """A 36-minute deadline: 2xH100 finish in 28 min, 35 at the band's slow end (the start-up does not run slower).
    The badge read 'finishes in 44 min at its band's slow end', the 15-minute start-up stretched with the run, while
    limits_at=band_high, which checks the same slow end, ranked that row on time."""
    workload = {**LORA_20_MIN, "max_days": 0.025}
    rows = client.post("/api/v1/rank/training?terms=false", json=workload).json()["options"]
    two = next(o for o in rows if o["gpu_count"] == 2 and o["feasible"])
    assert two["deadline_at_risk"] == ""
    strict = client.post("/api/v1/rank/training?terms=false", json={**workload, "limits_at": "band_high"}).json()
    same = [o for o in strict["options"] if o["offer_id"] == two["offer_id"] and o["gpu_count"] == 2]
    assert same and same[0]["feasible"]


def test_a_short_runs_cost_band_does_not_stretch_its_start_up(client: TestClient) -> None:
    """1xH100 at GMI Cloud: $0.50 of start-up and $0.86 of run; the band scaled both, $1.08-$2.14, where the run's
    tokens/s band moves only the $0.86 ($1.18-$1.86)."""
    body = {**LORA_20_MIN, "providers": ["gmi-cloud"]}
    top = client.post("/api/v1/rank/training?terms=false&limit=1", json=body).json()["options"][0]
    startup_usd = 0.25 * top["gpu_count"] * top["usd_per_gpu_hour"]
    estimate = {k: v for k, v in body.items() if k not in ("gpus", "providers")}
    tok = client.post("/api/v1/estimate/training", json={**estimate, "gpu": "H100-SXM", "gpu_count": 1}).json()
    assert tok["tokens_per_s_per_gpu"] == top["tokens_per_s_per_gpu"]
    run_usd = top["total_usd"] - startup_usd
    low = startup_usd + run_usd * tok["tokens_per_s_per_gpu"] / tok["band"]["high"]
    high = startup_usd + run_usd * tok["tokens_per_s_per_gpu"] / tok["band"]["low"]
    assert top["band"]["low"] == pytest.approx(low, rel=1e-4) and top["band"]["high"] == pytest.approx(high, rel=1e-4)


def test_the_methodology_says_a_training_run_starts_with_its_start_up(client: TestClient) -> None:
    """A batch job's and a training run's time start with one start-up, quoted from the engine (15 minutes)."""
    text = " ".join(client.get("/methodology").text.split())
    assert 'The job\'s time starts with a <span id="start-up">start-up</span> (15 minutes' in text
    assert "a training run is billed the same way, its time starting with the same start-up" in text
    from app.scoring.training.run.limit_words import days_text, past_deadline_text

    assert days_text(18.3 / 1440) == "18 min" == days_text(18 / 1440)
    assert past_deadline_text(18.3 / 1440, 18 / 1440) == "18.3 min"
    assert past_deadline_text(30.04, 30) == "30.04 days"
    assert past_deadline_text(45 / 1440, 18 / 1440) == "45 min"  # already apart: days_text's own words
    assert past_deadline_text(3.5 / 24, 3 / 24) == days_text(3.5 / 24)
