"""/disagg's verdict says the prefill pool's $ per million prompt tokens as the pool's row shows it: at one request a
day the row read $50,280.00 and the verdict's line $50,280.000 (fixed at 3 places whatever the size; qa38)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.scoring.explain import usd_shown


def test_the_prefill_lines_price_is_the_rows(client: TestClient) -> None:
    prices = []
    for traffic in (1, 100_000):
        body = client.get(f"/disagg.json?model=llama-3.1-8b&requests_per_day={traffic}").json()
        prefill = body["disaggregated"][0]["prefill"]["usd_per_million_tokens_at_traffic"]
        line = next(w for w in body["verdict"]["why"] if w.startswith("Prefill pool:"))
        shown = usd_shown(prefill, 3)  # the page's m.usd(…, 3): cents at least, 4 significant figures at most
        assert f"{shown} per million prompt tokens" in line, (traffic, shown, line[-120:])
        prices.append(prefill)
    assert prices[0] >= 10 > prices[1]  # both sides of the rule: 2 places from $10, 3 below
