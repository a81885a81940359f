"""A GPU's price chart draws the offers its table lists: filtering /gpus/H100-SXM to on-demand charted spot offers
too, beside a table without them (found by catalog3). Its caption says the filters."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.testclient import TestClient

GPU = "/gpus/H100-SXM"


def _chart(html: str) -> dict[str, Any]:
    block = re.search(r'data-chart="price-chart">\s*(.*?)\s*</script>', html, re.S)
    assert block is not None, "no price chart"
    return json.loads(block.group(1))  # type: ignore[no-any-return]


def _bars(html: str) -> set[tuple[str, float]]:
    trace = _chart(html)["data"][0]
    return set(zip(trace["y"], trace["x"], strict=True))


def _expected_bars(offers: list[dict[str, Any]]) -> set[tuple[str, float]]:
    """The cheapest offer per provider and price type (a fresh price before a stale one), as the chart labels it."""
    cheapest: dict[tuple[str, str], dict[str, Any]] = {}
    for offer in offers:
        key = (offer["provider_name"], offer["price_type"])
        held = cheapest.get(key)
        if held is None or (offer["stale"], offer["usd_per_gpu_hour"]) < (held["stale"], held["usd_per_gpu_hour"]):
            cheapest[key] = offer
    return {
        (
            f"{o['provider_name']} ({o['price_type'].replace('_', ' ')}{', stale' if o['stale'] else ''})",
            round(o["usd_per_gpu_hour"], 3),
        )
        for o in cheapest.values()
    }


def test_the_chart_draws_the_offers_the_table_and_the_twin_keep(client: TestClient) -> None:
    every = client.get(f"{GPU}.json").json()["offers"]
    assert {o["price_type"] for o in every} > {"on_demand"}, "the seed's H100 has offers on other terms to filter out"
    for query in ("", "?price_type=on_demand", "?price_type=spot", "?region=us&min_gpus=8", "?provider=lambda"):
        kept = client.get(f"{GPU}.json{query}").json()["offers"]
        html = client.get(f"{GPU}{query}").text
        assert kept, query
        assert _bars(html) == _expected_bars(kept), query
        table_ids = re.findall(r'<tr id="offer-(\d+)"', html)
        assert sorted(map(int, table_ids)) == sorted(o["id"] for o in kept), query


def test_on_demand_only_charts_no_spot_bar(client: TestClient) -> None:
    labels = _chart(client.get(f"{GPU}?price_type=on_demand").text)["data"][0]["y"]
    assert labels and all("(on demand" in label for label in labels)
    assert any("(spot" in label for label in _chart(client.get(GPU).text)["data"][0]["y"])


def test_the_caption_says_the_filters_and_only_them(client: TestClient) -> None:
    unfiltered = client.get(GPU).text
    assert "per provider and price type; grey bars" in unfiltered
    filtered = client.get(f"{GPU}?price_type=on_demand&provider=lambda&min_gpus=8").text
    said = "per provider and price type, of the offers the filters keep (on demand, at Lambda, 8 GPUs or more); grey"
    assert said in filtered and 'aria-label="Cheapest listed' in filtered


def test_an_htmx_filter_swaps_the_chart_with_the_table(client: TestClient) -> None:
    fragment = client.get(f"{GPU}?price_type=on_demand", headers={"HX-Request": "true"}).text
    assert fragment.lstrip().startswith('<div id="offer-table"') and "<html" not in fragment
    assert all("(on demand" in label for label in _chart(fragment)["data"][0]["y"])


def test_a_filter_keeping_no_offer_draws_no_chart(client: TestClient) -> None:
    html = client.get(f"{GPU}?region=nowhere-at-all").text
    assert "No offer matches these filters." in html and 'data-chart="price-chart"' not in html
