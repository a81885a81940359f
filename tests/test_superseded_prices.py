"""A price a newer price of the same offer replaced is history, never an offer: Nebius's undated $5.50 B200 snapshot
was #1 of a 70B full fine-tune with stale prices asked for (labelled 'superseded by a newer price'), though Nebius
prices the B200 at $8.50 since 2026-10-07. Only an offer's latest price is ranked, stale ones too when asked for; the
catalog lists a superseded one only under its GPU's earlier prices (found by trust7)."""

from __future__ import annotations

from typing import Any

from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE

FULL_FT_70B = {"model": "llama-3.1-70b", "method": "full_ft", "include_stale": True}
SERVE_70B = {"model": "llama-3.1-70b", "include_stale": True}


def _superseded_ids(client: Any) -> set[int]:
    gpus = [g["id"] for g in client.get("/api/v1/gpus").json()]
    earlier = [o for g in gpus for o in client.get(f"/api/v1/gpus/{g}").json()["earlier_prices"]]
    assert all(SUPERSEDED_BY_NEWER_PRICE in o["price_note"] for o in earlier)
    return {o["id"] for o in earlier}


def test_no_ranking_offers_a_superseded_price_even_with_stale_prices_asked_for(client) -> None:  # type: ignore[no-untyped-def]
    superseded = _superseded_ids(client)
    assert len(superseded) >= 7  # Lambda's, Nebius's and RunPod's undated snapshots
    for phase, body in (("training", FULL_FT_70B), ("inference", SERVE_70B)):
        options = client.post(f"/api/v1/rank/{phase}", json=body).json()["options"]
        assert options and not {o["offer_id"] for o in options} & superseded
        assert not any("superseded by a newer price" in o["price_caveats"] for o in options)
    best = client.post("/api/v1/rank/training", json={**FULL_FT_70B, "gpus": ["B200"], "providers": ["nebius"]})
    assert [o["usd_per_gpu_hour"] for o in best.json()["options"][:1]] == [8.5]


def test_the_catalog_lists_a_superseded_price_only_as_its_gpus_history(client) -> None:  # type: ignore[no-untyped-def]
    detail = client.get("/api/v1/gpus/B200").json()
    assert [(o["provider_id"], o["usd_per_gpu_hour"]) for o in detail["earlier_prices"]] == [("nebius", 5.5)]
    assert 5.5 not in {o["usd_per_gpu_hour"] for o in detail["offers"] if o["provider_id"] == "nebius"}
    assert not {o["id"] for o in client.get("/api/v1/offers?provider=nebius").json()} & _superseded_ids(client)
    page = client.get("/gpus/B200").text
    offers, earlier = page.split('id="earlier-prices"')
    assert "$5.50" not in offers.split("<h2>Offers</h2>")[1] and "$5.50" in earlier
    h100 = client.get("/api/v1/gpus/H100-SXM").json()  # Lambda's undated $2.99 is no longer the cheapest of any offer
    assert h100["cheapest_usd_per_gpu_hour"] == min(o["usd_per_gpu_hour"] for o in h100["offers"])


def test_the_methodology_says_a_superseded_price_is_history_not_a_caveat_on_ranked_rows(client) -> None:  # type: ignore[no-untyped-def]
    """It listed 'superseded' among the caveats that go with a price wherever it shows (ranked rows, their JSON and
    CSV), though no ranking shows one since trust7, and said nowhere where such a price is shown (found by qa25)."""
    page = " ".join(client.get("/methodology").text.split())
    said = page.split('id="superseded"')[1].split("</li>")[0]
    assert "no ranking" in said and "stale prices asked for or not" in said
    assert all(name in said for name in ("earlier_prices", "offer_superseded", "saved.superseded_note"))
    assert "(and, where the provider now prices it with a date, superseded)" not in page
