"""An offer asked for by id whose price is history (an old link's offer_id): the estimate says it was replaced, by
which price since when, and links the current offer, where it had estimated silently on a price no one rents at;
the GPU page's earlier prices link the same current offer (found by trust7's report, fixed by leftovers18)."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi.testclient import TestClient

ESTIMATES = {
    "training": {"model": "llama-3.1-8b", "method": "lora", "gpu": "B200", "gpu_count": 8},
    "inference": {"model": "llama-3.1-8b", "gpu": "B200", "gpu_count": 8},
}
# The words scripts/offer_notes.py mark_superseded writes: "superseded by a newer price: Nebius lists $8.5/GPU-h (date)"
WRITTEN = re.compile(r"superseded by a newer price: .* lists \$([0-9.]+)/GPU-h \((\d{4}-\d\d-\d\d)\)")


def _earlier(client: TestClient) -> list[dict[str, Any]]:
    gpus = [g["id"] for g in client.get("/api/v1/gpus").json()]
    return [o for g in gpus for o in client.get(f"/api/v1/gpus/{g}").json()["earlier_prices"]]


def _nebius_b200(client: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """Nebius's undated $5.50 B200 snapshot and the $8.50 price of 2026-10-07 that replaced it."""
    earlier = client.get("/api/v1/gpus/B200").json()["earlier_prices"]
    [old] = [o for o in earlier if o["provider_id"] == "nebius"]
    offers = client.get("/api/v1/offers?gpu=B200&provider=nebius&price_type=on_demand").json()
    [now] = [o for o in offers if (o["usd_per_gpu_hour"], o["as_of"]) == (8.5, "2026-10-07")]
    assert old["usd_per_gpu_hour"] == 5.5 and old["as_of"] is None
    return old, now


def test_an_estimate_on_a_superseded_offer_says_what_replaced_it_and_since_when(client: TestClient) -> None:
    old, now = _nebius_b200(client)
    for phase, body in ESTIMATES.items():
        response = client.post(f"/api/v1/estimate/{phase}", json={**body, "offer_id": old["id"]})
        assert response.status_code == 200, response.text
        said = response.json()["offer_superseded"]
        assert said == {
            "note": f"superseded: offer {old['id']}'s $5.50/GPU-h (undated) was replaced by Nebius's $8.50/GPU-h "
            f"since 2026-10-07 (offer {now['id']}); no one rents at the earlier price and no ranking lists it. This "
            f"estimate is of offer {old['id']}'s machine, which carries no price",
            "usd_per_gpu_hour": 5.5,
            "as_of": None,
            "replaced_by_offer_id": now["id"],
            "replaced_by_usd_per_gpu_hour": 8.5,
            "replaced_since": "2026-10-07",
            "url": f"/gpus/B200#offer-{now['id']}",
        }
        current = client.post(f"/api/v1/estimate/{phase}", json={**body, "offer_id": now["id"]}).json()
        assert current["offer_superseded"] is None  # the current offer, and no offer at all, say nothing
        assert client.post(f"/api/v1/estimate/{phase}", json=body).json()["offer_superseded"] is None


def test_every_superseded_price_names_the_offer_its_note_says_replaced_it(client: TestClient) -> None:
    """The app's replacement is the price the seed builder's note names (same provider, GPU and terms), and it is
    an offer /api/v1/offers lists, for each of the catalog's superseded prices."""
    offers = {o["id"]: o for o in client.get("/api/v1/offers").json()}
    earlier = _earlier(client)
    assert len(earlier) >= 7
    for old in earlier:
        now = offers[old["replaced_by_offer_id"]]
        assert [now[k] for k in ("provider_id", "gpu_id", "price_type")] == [
            old[k] for k in ("provider_id", "gpu_id", "price_type")
        ]
        written = WRITTEN.search(old["price_note"])
        assert written and (float(written[1]), written[2]) == (now["usd_per_gpu_hour"], now["as_of"]), old
        body = {"model": "llama-3.1-8b", "method": "lora", "gpu": old["gpu_id"], "gpu_count": old["gpu_count"]}
        said = client.post("/api/v1/estimate/training", json={**body, "offer_id": old["id"]}).json()
        assert said["offer_superseded"]["replaced_by_offer_id"] == now["id"]


def test_the_gpu_pages_earlier_price_links_the_offer_that_replaced_it(client: TestClient) -> None:
    old, now = _nebius_b200(client)
    page = html.unescape(client.get("/gpus/B200").text)
    offers, earlier = page.split('id="earlier-prices"')
    assert f'<tr id="offer-{now["id"]}"' in offers  # the estimate's url lands on the current offer's row
    row = re.search(r"<tr class=\"stale\".*?</tr>", earlier, re.S)
    assert row and "$5.50" in row[0]
    assert f'<a href="#offer-{now["id"]}">$8.50 since 2026-10-07</a>' in row[0]


def test_a_superseded_offers_price_history_says_its_latest_price_was_replaced(client: TestClient) -> None:
    """/api/v1/offers/{id}/history listed Nebius's $5.50 B200 snapshot as the offer's latest price with no word that a
    newer price replaced it, while an estimate on the same id said so (found by qa25)."""
    old, now = _nebius_b200(client)
    body = {**ESTIMATES["training"], "offer_id": old["id"]}
    estimate = client.post("/api/v1/estimate/training", json=body).json()["offer_superseded"]
    history = client.get(f"/api/v1/offers/{old['id']}/history").json()
    assert [row["usd_per_gpu_hour"] for row in history][-1:] == [5.5]
    assert all(row["superseded_note"] is None for row in history[:-1])
    note = history[-1]["superseded_note"]
    assert note == f"{estimate['note'].split('. This estimate')[0]} ({estimate['url']})"
    assert f"$8.50/GPU-h since 2026-10-07 (offer {now['id']})" in note
    current = client.get(f"/api/v1/offers/{now['id']}/history").json()
    assert [row["superseded_note"] for row in current] == [None] * len(current)
