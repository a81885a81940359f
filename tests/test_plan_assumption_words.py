"""The plan page's assumptions keep their acronyms: Jinja's capitalize lowered every letter after the first, so the
page read "not checked against the ttft and tpot limits (the per-token apis …)" where the JSON says TTFT, TPOT and
APIs (found by qa33)."""

from __future__ import annotations

import html

from fastapi.testclient import TestClient


def test_the_plan_page_says_the_serverless_latency_caveat_as_the_json_does(client: TestClient) -> None:
    question = "model=llama-3.1-70b&requests_per_day=500000"
    caveat = client.get(f"/plan.json?{question}").json()["assumptions"]["serverless_latency"]
    assert "TTFT and TPOT" in caveat and "APIs" in caveat
    page = html.unescape(client.get(f"/plan?{question}").text)
    assert caveat[:1].upper() + caveat[1:] in page
    assert "ttft and tpot" not in page


def test_the_plans_cheapest_serverless_price_says_it_is_at_the_providers_own_precision(client: TestClient) -> None:
    """Qwen3 8B's dedicated side is sized at BF16 while its cheapest API, Novita's, serves qwen3-8b-fp8: the rank
    page's batch-job line said "its list price, at the provider's own precision", /plan said nothing (found by qa33)."""
    question = "model=qwen3-8b&requests_per_day=3000000"
    plan = client.get(f"/plan.json?{question}").json()
    assert plan["weights"]["weight_dtype"] == "bf16" and "fp8" in plan["cheapest_serverless"]["provider_model_id"]
    line = html.unescape(client.get(f"/plan?{question}").text).split("Cheapest serverless:", 1)[1].split("</p>", 1)[0]
    assert "its list price, at the provider's own precision" in line
