"""/own with one power figure: a buyer who gives a server's power draw for a GPU tco.csv has no power rows for
(MI300X) was still asked for its provisioned power, and the other way round. The missing one is derived at the DGX
H100's maximum input over its typical draw (tco.csv's one server with both: 10.2 kW over 6.5-8.5 kW), its source
named; a sourced default is never replaced; the form says which figure prices what."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

HEADROOM = 10.2 / 7.5  # tco.csv: DGX H100 maximum input over the midpoint of its typical draw
GIVEN = {"gpu": "MI300X", "purchase_usd_per_server": 250_000}


def _power_inputs(client: TestClient, **given: float | str) -> dict[str, dict]:
    response = client.post("/api/v1/own", json={**GIVEN, **given})
    assert response.status_code == 200, response.json()
    return {i["name"]: i for i in response.json()["inputs"] if i["name"].endswith("kw_per_server")}


def test_a_given_draw_derives_the_provisioned_power_naming_the_factor(client: TestClient) -> None:
    power = _power_inputs(client, power_kw_per_server=6)
    provisioned = power["provisioned_kw_per_server"]
    assert provisioned["value"] == pytest.approx(6 * HEADROOM) and not provisioned["overridden"]
    assert "your 6 kW power draw × 1.36" in provisioned["source"] and "DGX H100" in provisioned["source"]
    assert "tco.csv" in provisioned["source"] and provisioned["source_url"]


def test_a_given_provisioned_power_derives_the_draw(client: TestClient) -> None:
    power = _power_inputs(client, provisioned_kw_per_server=10)
    draw = power["power_kw_per_server"]
    assert draw["value"] == pytest.approx(10 / HEADROOM) and "your 10 kW provisioned ÷ 1.36" in draw["source"]


def test_a_sourced_provisioned_power_is_kept_beside_a_given_draw(client: TestClient) -> None:
    power = _power_inputs(client, gpu="H100-SXM", power_kw_per_server=6)
    assert power["provisioned_kw_per_server"]["value"] == 10.2  # tco.csv's maximum input, not 6 × 1.36


def test_with_neither_power_figure_both_are_asked_saying_one_is_enough(client: TestClient) -> None:
    detail = client.post("/api/v1/own", json=GIVEN).json()["detail"]
    asked = {d["field"]: d["message"] for d in detail}
    assert {"power_kw_per_server", "provisioned_kw_per_server"} <= asked.keys()
    assert "or only the other power figure" in asked["provisioned_kw_per_server"]


def test_the_form_says_which_power_figure_prices_what(client: TestClient) -> None:
    page = client.get(
        "/own?gpu=MI300X&gpu_count=8&utilisation_pct=60&purchase_usd_per_server=250000&power_kw_per_server=6"
    )
    assert page.status_code == 200 and 'id="gap-provisioned_kw_per_server"' not in page.text
    assert "average draw while on, for the energy bill; kW per server; your value" in page.text
    assert "the maximum input, which colocation bills per kW; kW per server; default 8.16" in page.text
