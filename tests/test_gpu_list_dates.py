"""Every price is dated and linked to where it was read: /gpus' "from" prices were bare figures (a date only on a
stale other-term price), while a ranked row and the per-GPU page's offers date each price (found by leftovers17)."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def test_the_gpu_lists_on_demand_from_price_is_the_date_and_source_of_an_offer_at_that_price(client: TestClient):
    h200 = next(g for g in client.get("/gpus.json").json() if g["id"] == "H200")
    offers = client.get("/gpus/H200.json").json()["offers"]
    sold = {
        (o["usd_per_gpu_hour"], o["provider_name"], o["as_of"], o["source_url"])
        for o in offers
        if o["price_type"] == "on_demand" and not o["stale"]
    }
    floor = (
        h200["on_demand_usd_per_gpu_hour"],
        h200["on_demand_provider"],
        h200["on_demand_as_of"],
        h200["on_demand_price_source_url"],
    )
    assert floor in sold and floor[2] and floor[3].startswith("http")
    for term in h200["other_terms"]:
        assert term["as_of"] and term["price_source_url"].startswith("http")


def test_the_gpu_list_page_links_each_from_price_s_date_to_its_source(client: TestClient):
    rows = {g["id"]: g for g in client.get("/gpus.json").json()}
    page = client.get("/gpus").text
    dated = 0
    for row in page.split('<tr role="row">')[2:]:  # after the header's
        gpu_id = re.search(r'href="/gpus/([^"]+)"', row)
        assert gpu_id is not None
        g = rows[unescape(gpu_id.group(1))]
        if g["on_demand_usd_per_gpu_hour"] is None:
            continue
        link = f'href="{g["on_demand_price_source_url"]}"'
        assert link in unescape(row) and f">{g['on_demand_as_of']}</a>" in row, g["id"]
        dated += 1
    assert dated >= 10
    assert "price-source" in client.get("/gpus/H200").text.split('class="price-floors"')[1].split("</p>")[0]


def test_an_undated_other_term_price_on_the_gpu_list_says_undated(client: TestClient):
    """Oracle's MI355X on-demand $8.60 has no date: /gpus read "stale · price source", as if it were dated and old; the
    per-GPU page and a ranked row say "undated" (found by qa33)."""
    undated = [
        (g["id"], t["usd_per_gpu_hour"])
        for g in client.get("/gpus.json").json()
        for t in g["other_terms"]
        if not t["as_of"] and t["stale"]
    ]
    assert undated, "needs an undated price among the other terms to mean anything"
    page = client.get("/gpus").text
    for gpu_id, usd in undated:
        row = page.split(f'href="/gpus/{gpu_id}"', 1)[1].split("</tr>", 1)[0]
        term = row.split(f"from ${usd:.2f}", 1)[1].split("</span></span>", 1)[0]
        assert ">undated</span>" in term and ">stale</span>" not in term, (gpu_id, term)
