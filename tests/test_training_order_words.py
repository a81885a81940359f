"""A training ranking says what it is ranked by: what each run bills (total $ under the offer's terms), not $/step,
which spot's lost work and reserved minimum terms make a different order."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

# Spot and reserved offers beside on-demand: their runs bill more (or less) than $/step x steps
MIXED_TERMS = "/?phase=training&model=llama-3.1-8b&method=lora&price_types=on_demand,reserved,spot"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_training_ranking_is_in_billed_total_order_and_says_so(client: TestClient) -> None:
    options = [o for o in client.get(MIXED_TERMS.replace("/?", "/rank.json?")).json()["options"] if o["feasible"]]
    totals, per_step = [o["total_usd"] for o in options], [o["usd_per_step"] for o in options]
    assert totals == sorted(totals) and per_step != sorted(per_step)  # the order is the bill, not $/step
    html = client.get(MIXED_TERMS).text
    strip, results = html.split('<form class="workload"', 1)
    caption = _text(results.split("<caption", 1)[1].split("</caption>", 1)[0])
    assert "ranked by what each run bills (Total $" in caption and "$/step shown" in caption
    assert "best first" not in caption
    ranked = results.split('<table class="data ranked', 1)[1]  # the ranking, not a chart's numbers above it
    header = _text(ranked.split("<thead", 1)[1].split("</thead>", 1)[0])
    assert "Total $ (ranks; band)" in header and "$/step (band)" not in header  # the band is the total's
    first_row = results.split('<tr class="row best"', 1)[1].split("</tr>", 1)[0]
    primary = re.search(r'<td class="n primary" data-label="([^"]+)"', first_row)
    assert primary and primary.group(1) == "Total $ (ranks; band)"
    best = options[0]
    total = f"${best['total_usd']:,.0f}"
    assert f"{total} for the run" in _text(strip.split("answer-strip", 1)[1])
    summary = _text(results.split('<p class="summary">', 1)[1].split("</p>", 1)[0])
    band = f"(band ${best['band']['low']:,.0f}–${best['band']['high']:,.0f})"
    assert f"the run bills {total} {band} under the offer's terms" in summary


def test_the_training_api_and_docs_say_the_order(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    described = spec["paths"]["/api/v1/rank/training"]["post"]["description"]
    assert "ranked by what the run bills" in described and "optimizer step" in described
    assert "cost per optimizer step" not in spec["info"].get("summary", "")
