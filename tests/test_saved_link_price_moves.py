"""A saved link reopened after its #1's price moved says which offer moved, from what to what (qa43): it said "1 offer
changed since" and named none, the #1 shown at its saved $6.89/GPU-h with no word that it rents at $9.89 today."""

from __future__ import annotations

from html import unescape

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.main import create_app
from app.models.hardware import Offer
from tests.conftest import settings_for

QUERY = "phase=inference&model=llama-3.1-70b&output_len=300&scenario=request_rate&requests_per_s=5"


def test_a_saved_link_whose_best_was_repriced_names_it_with_both_prices(fresh_url: str) -> None:
    app = create_app(settings_for(fresh_url))
    with TestClient(app) as client:
        slug_url = client.post("/share", json={"path": "/", "query": QUERY}).json()["url"]
        best = client.get(slug_url + ".json").json()["options"][0]
        with Session(app.state.engine) as session:
            offer = session.get(Offer, best["offer_id"])
            assert offer is not None
            offer.usd_per_gpu_hour = round(best["usd_per_gpu_hour"] + 3, 2)
            session.add(offer)
            session.commit()
        app.state.snapshots.invalidate()
        saved = client.get(slug_url + ".json").json()["saved"]
        page = " ".join(unescape(client.get(slug_url).text).split())
    moved = [m for m in saved["price_moves"] if m["offer_id"] == best["offer_id"]]
    assert [(m["saved_usd_per_gpu_hour"], m["usd_per_gpu_hour"]) for m in moved] == [
        (best["usd_per_gpu_hour"], round(best["usd_per_gpu_hour"] + 3, 2))
    ]
    then, now = f"${best['usd_per_gpu_hour']:.2f}", f"${best['usd_per_gpu_hour'] + 3:.2f}"
    assert f"{best['provider_name']}'s {best['gpu_count']}×{best['gpu_id']} on demand, saved at {then}/GPU-h" in page
    assert f"Its best below is priced {now}/GPU-h today, not {then}" in page
