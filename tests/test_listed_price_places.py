"""A listed $/GPU-hour reads the same on /providers, a provider's page and a GPU's page (found by qa36: a provider's
page showed $3.900 where /providers showed $3.90): one formatter,
cents at least, more digits where the price has them."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.scoring.explain import usd_price


def test_a_providers_h100_price_reads_alike_on_the_list_and_its_own_page(client: TestClient) -> None:
    providers = client.get("/api/v1/providers").json()
    listed = [p for p in providers if p.get("h100_usd_per_gpu_hour") is not None]
    assert listed
    for provider in listed[:3]:
        price = usd_price(provider["h100_usd_per_gpu_hour"])
        row = client.get("/providers").text.split(f'href="/providers/{provider["id"]}"')[1].split("</tr>")[0]
        assert price in row
        page = client.get(f"/providers/{provider['id']}").text
        assert price in page
        shown = re.findall(r"\$\d+\.\d+", page)
        assert not [p for p in shown if re.fullmatch(r"\$\d+\.\d\d0", p)]  # never $3.900


def test_a_gpus_offer_table_writes_its_prices_as_listed(client: TestClient) -> None:
    offers = client.get("/api/v1/gpus/H100-SXM").json()["offers"]
    page = client.get("/gpus/H100-SXM").text
    assert offers and all(usd_price(o["usd_per_gpu_hour"]) in page for o in offers)
    assert not re.findall(r"\$\d+\.\d\d0\b", page)  # never $3.900
