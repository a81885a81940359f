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
