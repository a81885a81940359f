"""The catalog's "from" price is the lowest current on-demand one; cheaper terms and stale prices stand apart."""

from __future__ import annotations

import re
from datetime import date

from fastapi.testclient import TestClient

from app.catalog.prices.price_floors import PricedOffer, TermFloor, price_floors

OLD, NEW = date(2026, 3, 3), date(2026, 10, 1)


def _offer(term: str, usd: float, stale: bool = False) -> PricedOffer:
    return PricedOffer("X", term, usd, OLD if stale else NEW, stale)


def test_from_is_current_on_demand_and_only_cheaper_terms_are_listed_stale_ones_marked():
    offers = [_offer("on_demand", 3.45), _offer("on_demand", 1.0, stale=True), _offer("spot", 0.95, stale=True)]
    offers += [_offer("reserved", 4.0), _offer("marketplace", 2.4), _offer("marketplace", 2.0, stale=True)]
    floors = price_floors(offers)["X"]
    assert floors.on_demand_usd_per_gpu_hour == 3.45  # not the stale $1.00, not the spot $0.95
    assert floors.other_terms == [
        TermFloor("spot", 0.95, True, OLD),  # no current spot offer: the stale one, marked
        TermFloor("marketplace", 2.4, False, NEW),  # a current one wins over a cheaper stale one
    ]  # reserved at $4.00 does not undercut on demand


def test_without_a_current_on_demand_offer_every_term_is_listed():
    floors = price_floors([_offer("on_demand", 1.0, stale=True), _offer("spot", 0.5)])["X"]
    assert floors.on_demand_usd_per_gpu_hour is None
    assert [t.price_type for t in floors.other_terms] == ["spot", "on_demand"]


def test_the_gpus_page_and_its_twin_show_the_on_demand_price_and_label_the_rest(client: TestClient):
    rows = {g["id"]: g for g in client.get("/gpus.json").json()}
    priced = [g for g in rows.values() if g["other_terms"] and g["on_demand_usd_per_gpu_hour"]]
    assert priced  # the seeded catalog has GPUs whose spot or reserved price undercuts on demand
    page = client.get("/gpus").text
    for gpu in priced:
        cell = re.search(rf'<a href="/gpus/{gpu["id"]}">.*?From \$/GPU-h on demand" role="cell">(.*?)</td>', page, re.S)
        assert cell, gpu["id"]
        first = gpu["other_terms"][0]
        assert cell.group(1).startswith(f"${gpu['on_demand_usd_per_gpu_hour']:,.2f}")
        assert f"{first['price_type'].replace('_', ' ')} from ${first['usd_per_gpu_hour']:,.2f}" in cell.group(1)
        assert ("stale" in cell.group(1)) == any(t["stale"] for t in gpu["other_terms"])
    detail = client.get(f"/gpus/{priced[0]['id']}").text
    assert f"From <strong>${priced[0]['on_demand_usd_per_gpu_hour']:,.2f}/GPU-h on demand</strong>" in detail
