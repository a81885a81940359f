"""Admin price import API, offer history, and snapshot invalidation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.models.hardware import OfferBase
from tests.conftest import settings_for

TOKEN = "test-admin-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
OFFER = {
    "provider_id": "runpod",
    "gpu_id": "H100-SXM",
    "gpu_count": 1,
    "price_type": "on_demand",
    "instance_type": "test-box",
    "region": "test-1",
    "usd_per_hour": 0.01,
    "usd_per_gpu_hour": 0.01,
    "as_of": "2026-12-01",
    "source_url": "https://example.com/prices",
}


@pytest.fixture
def admin(fresh_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(settings_for(fresh_url, admin_token=TOKEN))) as client:
        yield client


def offers_now(client: TestClient) -> list[dict]:
    return client.get("/api/v1/offers").json()


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
)
def test_missing_or_wrong_token_is_401_without_hint(admin: TestClient, headers: dict) -> None:
    response = admin.post("/api/v1/admin/offers", json=[OFFER], headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json() == {"detail": [{"field": "authorization", "message": "unauthorized"}]}


def test_disabled_without_token_is_404_and_hidden(client: TestClient) -> None:
    assert client.post("/api/v1/admin/offers", json=[OFFER], headers=AUTH).status_code == 404
    assert "/api/v1/admin/offers" not in client.get("/openapi.json").json()["paths"]


def test_enabled_is_in_schema(admin: TestClient) -> None:
    assert "/api/v1/admin/offers" in admin.get("/openapi.json").json()["paths"]


def test_import_inserts_updates_counts_and_records_history(admin: TestClient) -> None:
    existing = next(o for o in offers_now(admin) if o["provider_id"] == "runpod")
    unchanged = {k: existing[k] for k in OfferBase.model_fields}
    repriced = {
        **unchanged,
        "usd_per_hour": existing["usd_per_hour"] * 2,
        "usd_per_gpu_hour": existing["usd_per_gpu_hour"] * 2,
        "source_url": "https://example.com/new",
    }
    response = admin.post("/api/v1/admin/offers", json=[OFFER, unchanged], headers=AUTH)
    assert response.json() == {"inserted": 1, "updated": 0, "unchanged": 1, "prices_changed": 0, "newer_kept": 0}
    response = admin.post("/api/v1/admin/offers", json=[repriced], headers=AUTH)
    assert response.json() == {"inserted": 0, "updated": 1, "unchanged": 0, "prices_changed": 1, "newer_kept": 0}
    history = admin.get(f"/api/v1/offers/{existing['id']}/history").json()
    assert [h["changed_by"] for h in history] == ["seed", "api:admin"]
    assert history[-1]["usd_per_gpu_hour"] == repriced["usd_per_gpu_hour"]
    assert history[-1]["source_url"] == "https://example.com/new" and history[-1]["changed_at"]


def test_an_older_price_kept_out_is_counted_once_among_the_rows_and_said_so(admin: TestClient) -> None:
    """qa43: a row whose price is older than the stored one counts as unchanged and as newer_kept, which the docs
    said was 'rows identical': the three row counts add up to the rows sent, and the descriptions say the overlap."""
    existing = next(o for o in offers_now(admin) if o["provider_id"] == "runpod" and o["as_of"])
    older = {k: existing[k] for k in OfferBase.model_fields}
    older.update(usd_per_hour=existing["usd_per_hour"] * 3, usd_per_gpu_hour=existing["usd_per_gpu_hour"] * 3)
    older["as_of"] = "2020-01-01"
    counts = admin.post("/api/v1/admin/offers", json=[OFFER, older], headers=AUTH).json()
    assert counts == {"inserted": 1, "updated": 0, "unchanged": 1, "prices_changed": 0, "newer_kept": 1}
    assert counts["inserted"] + counts["updated"] + counts["unchanged"] == 2
    stored = next(o for o in offers_now(admin) if o["id"] == existing["id"])
    assert stored["usd_per_gpu_hour"] == existing["usd_per_gpu_hour"]
    fields = admin.get("/openapi.json").json()["components"]["schemas"]["ImportResult"]["properties"]
    assert "counted in newer_kept too" in fields["unchanged"]["description"]
    assert "also counted in unchanged" in fields["newer_kept"]["description"]


def test_bad_row_rejects_whole_batch_naming_index_and_field(admin: TestClient) -> None:
    before = offers_now(admin)
    bad_reference = {**OFFER, "instance_type": "other", "gpu_id": "NO-SUCH-GPU"}
    response = admin.post("/api/v1/admin/offers", json=[OFFER, bad_reference], headers=AUTH)
    assert response.status_code == 422
    assert response.json()["detail"][0]["field"] == "1.gpu_id"
    negative = {**OFFER, "usd_per_gpu_hour": -1}
    response = admin.post("/api/v1/admin/offers", json=[OFFER, OFFER, negative], headers=AUTH)
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "2.usd_per_gpu_hour"
    assert offers_now(admin) == before


def test_rank_reflects_imported_price_at_once(admin: TestClient) -> None:
    body = {"model": "llama-3.1-8b", "gpus": ["H100-SXM"], "providers": ["runpod"]}
    before = admin.post("/api/v1/rank/inference?limit=1", json=body).json()["options"][0]
    assert before["usd_per_gpu_hour"] > OFFER["usd_per_gpu_hour"]
    assert admin.post("/api/v1/admin/offers", json=[OFFER], headers=AUTH).status_code == 200
    after = admin.post("/api/v1/rank/inference?limit=1", json=body).json()["options"][0]
    assert after["usd_per_gpu_hour"] == OFFER["usd_per_gpu_hour"]


def test_history_of_unknown_offer_is_404(admin: TestClient) -> None:
    assert admin.get("/api/v1/offers/999999/history").status_code == 404
    assert admin.get("/api/v1/offers/99999999999999999999/history").status_code == 422


def test_a_repricing_row_keeps_the_machine_columns_it_leaves_out(admin: TestClient) -> None:
    """The docs' minimal row (price, date, source) wiped Jarvislabs' 8x H100 box to gpus_per_node None and max_nodes
    None (no node limit), and its notes, until the next seed load; a column the row leaves out now keeps the stored
    value, one it sends (null included) replaces it."""
    box = {**OFFER, "provider_id": "jarvislabs", "gpu_count": 8, "instance_type": "8x_H100_192V_1600G"}
    box |= {"region": "IN2", "usd_per_hour": 26.0, "usd_per_gpu_hour": 3.25, "as_of": "2026-12-06"}

    def stored() -> dict:
        return next(o for o in offers_now(admin) if o["instance_type"] == box["instance_type"])

    assert (stored()["gpus_per_node"], stored()["max_nodes"]) == (8, 1)  # the seed's
    assert admin.post("/api/v1/admin/offers", json=[box], headers=AUTH).json()["prices_changed"] == 1
    assert (stored()["usd_per_gpu_hour"], stored()["gpus_per_node"], stored()["max_nodes"]) == (3.25, 8, 1)
    assert stored()["price_note"] == "historical snapshot" and stored()["topology_source"]  # the seed's, kept
    assert admin.post("/api/v1/admin/offers", json=[{**box, "max_nodes": None}], headers=AUTH).status_code == 200
    assert (stored()["gpus_per_node"], stored()["max_nodes"]) == (8, None)


def test_a_repricing_csv_keeps_the_machine_columns_its_header_leaves_out(admin: TestClient) -> None:
    """A gpumatch CSV of the key, price, date and source columns (POST /api/v1/admin/offers/csv, `prices import`)
    wiped the offer's notes, machine and topology source, where the JSON row leaving them out keeps them (found by
    qa41); a column the header has, empty included, still replaces the stored value."""
    box = {**OFFER, "provider_id": "jarvislabs", "gpu_count": 8, "instance_type": "8x_H100_192V_1600G"}
    box |= {"region": "IN2", "usd_per_hour": 26.0, "usd_per_gpu_hour": 3.25, "as_of": "2026-12-06"}
    headers = {**AUTH, "Content-Type": "text/csv"}

    def stored() -> dict:
        return next(o for o in offers_now(admin) if o["instance_type"] == box["instance_type"])

    seed = stored()
    assert (seed["gpus_per_node"], seed["max_nodes"]) == (8, 1) and seed["notes"] and seed["topology_source"]
    upload = ",".join(box) + "\n" + ",".join(str(value) for value in box.values()) + "\n"
    answer = admin.post("/api/v1/admin/offers/csv", content=upload, headers=headers).json()
    assert (answer["updated"], answer["prices_changed"]) == (1, 1)
    kept = ("gpus_per_node", "max_nodes", "notes", "price_note", "topology_source", "intra_node_link")
    assert stored()["usd_per_gpu_hour"] == 3.25 and {k: stored()[k] for k in kept} == {k: seed[k] for k in kept}
    cleared = ",".join(box) + ",notes\n" + ",".join(str(value) for value in box.values()) + ",\n"
    assert admin.post("/api/v1/admin/offers/csv", content=cleared, headers=headers).status_code == 200
    assert stored()["notes"] == "" and stored()["gpus_per_node"] == 8
