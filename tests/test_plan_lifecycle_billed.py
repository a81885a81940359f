"""A train-then-serve plan says the hours its training $ bills, as the training ranking does: a 20-minute run at
Vultr is billed a whole hour, and its total is that hour x GPUs x price, not the run's 0.85 h."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from app.scoring.training.run.limit_words import days_text

SHORT_AT_VULTR = {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e7, "providers": ["vultr"]}
BODY = {"training": {**SHORT_AT_VULTR, "include_stale": True}, "inference": {"model": "llama-3.1-8b"}, "months": 6}


def test_the_lifecycle_bills_the_hours_the_training_ranking_bills(client: TestClient) -> None:
    plan = client.post("/api/v1/plan/lifecycle", json=BODY).json()
    top = plan["combinations"][0]
    ranked = client.post("/api/v1/rank/training?terms=false", json=BODY["training"]).json()["options"][0]
    assert top["training_billed_hours"] == ranked["billed_hours"] == 1.0
    assert top["training_hours"] == ranked["total_hours"] < 1.0
    assert abs(top["training_usd"] - ranked["billed_hours"] * ranked["gpu_count"] * ranked["usd_per_gpu_hour"]) < 1e-6
    page = " ".join(unescape(re.sub(r"<[^>]+>", " ", client.get(plan["share_url"]).text)).split())
    # the run's length as the ranking's run time says it ("51 min"; it read "0.8 h"), the billed hour in hours
    said = f"(${top['training_usd']:.2f}, {days_text(top['training_hours'] / 24)}, billed 1.0 h; price of "
    assert said + top["training_as_of"] in page  # the price's date, linked to its source
    assert days_text(top["training_hours"] / 24).endswith(" min")
