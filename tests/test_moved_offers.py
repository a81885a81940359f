"""A saved link replays its prices under the labels the catalog has since corrected (app/service/moved_offers.py)."""

from __future__ import annotations

import orjson
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.main import create_app
from app.models.versions import PriceSnapshot, ShareLink
from tests.conftest import settings_for

QUERY = "phase=inference&model=llama-3.1-8b&gpus=RTX-4090,A100-SXM-80GB,H100-SXM"


def _as_before_migration_0010(offers_json: str) -> str:
    """The stored offers as a link saved before 0010 held them: Community Cloud under `runpod`, on demand."""
    rows = orjson.loads(offers_json)
    moved = 0
    for row in rows:
        if row["provider_id"] == "runpod-community":
            row.update(provider_id="runpod", provider_name="RunPod", price_type="on_demand", price_note="")
            moved += 1
    assert moved, "the seed has RunPod Community Cloud rows"
    return orjson.dumps(rows).decode()


def _ranked(body: dict) -> list[tuple]:
    return [(o["provider"], o["price_type"], o["gpu_id"], o["usd_per_gpu_hour"]) for o in body["options"]]


def test_a_link_saved_before_the_runpod_split_replays_community_rows_as_the_marketplace(fresh_url: str) -> None:
    app = create_app(settings_for(fresh_url))
    with TestClient(app) as client:
        response = client.post("/share", data={"path": "/", "query": QUERY}, headers={"Accept": "application/json"})
        slug = response.json()["slug"]
        today = client.get(f"/s/{slug}.json?show=all").json()
        with Session(app.state.engine) as session:
            link = session.get(ShareLink, slug)
            assert link is not None
            stored = session.get(PriceSnapshot, link.snapshot_id)
            assert stored is not None
            stored.offers_json = _as_before_migration_0010(stored.offers_json)
            session.add(stored)
            session.commit()
        old = client.get(f"/s/{slug}.json?show=all").json()
        page = client.get(f"/s/{slug}")
    # Community Cloud is a marketplace, out of a default ranking: the old link ranks what a new one does, and no
    # third-party host's price is ranked as RunPod on demand
    assert _ranked(old) == _ranked(today) and old["options"]
    assert old["saved"]["offers_changed_since"] == today["saved"]["offers_changed_since"] == 0
    assert page.status_code == 200


def _saved_then_gone(fresh_url: str, query: str, key: str, old: str, new: dict[str, str]) -> tuple:
    """Save `query` as a link, then rename what it saved under `key` == `old` (in its stored offers and its query) as
    if that id had left the catalog since: (the .json twin's response, the page's response)."""
    app = create_app(settings_for(fresh_url))
    with TestClient(app) as client:
        slug = client.post("/share", json={"path": "/", "query": query}).json()["slug"]
        with Session(app.state.engine) as session:
            link = session.get(ShareLink, slug)
            assert link is not None
            stored = session.get(PriceSnapshot, link.snapshot_id)
            assert stored is not None
            rows = orjson.loads(stored.offers_json)
            for row in rows:
                if row[key] == old:
                    row.update(new)
            stored.offers_json = orjson.dumps(rows).decode()
            link.query = link.query.replace(f"={old}", f"={new[key]}")
            session.add_all([stored, link])
            session.commit()
        return client.get(f"/s/{slug}.json"), client.get(f"/s/{slug}")


def test_a_link_whose_provider_left_the_catalog_answers_from_its_saved_prices(fresh_url: str) -> None:
    """The link stores its offers: a provider removed since is no reason for a 422 (found by leftovers16)."""
    query = "phase=inference&model=llama-3.1-8b&providers=lambda"
    gone = {"provider_id": "gone-cloud", "provider_name": "Gone Cloud"}
    twin, page = _saved_then_gone(fresh_url, query, "provider_id", "lambda", gone)
    assert twin.status_code == 200, twin.text[:300]
    body = twin.json()
    assert body["options"] and {o["provider"] for o in body["options"]} == {"gone-cloud"}
    assert body["saved"]["providers_removed_since"] == ["gone-cloud"]
    assert page.status_code == 200 and "Gone Cloud (gone-cloud) has left the catalog since" in page.text


def test_a_link_asking_for_a_gpu_that_left_the_catalog_is_a_422_naming_it(fresh_url: str) -> None:
    """The link stores prices, not GPU specs: a GPU removed since cannot be ranked, and was refused as a typo."""
    query = "phase=inference&model=llama-3.1-8b&gpus=H100-SXM"
    twin, page = _saved_then_gone(fresh_url, query, "gpu_id", "H100-SXM", {"gpu_id": "GONE-GPU"})
    assert twin.status_code == 422
    assert "GPU 'GONE-GPU' left the catalog since this link was saved" in twin.text
    assert page.status_code == 422 and "left the catalog since this link was saved" in page.text
