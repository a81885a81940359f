"""The catalog JSON API: every endpoint, every filter, 404s that name the id."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from app.catalog import queries, snapshot


def test_healthz_reports_catalog_counts(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["gpus"] >= 30 and body["offers"] >= 120


def test_gpus_lists_dense_peaks_with_units(client) -> None:  # type: ignore[no-untyped-def]
    gpus = {g["id"]: g for g in client.get("/api/v1/gpus").json()}
    assert len(gpus) >= 30
    h100 = gpus["H100-SXM"]
    assert h100["bf16_tflops"] == pytest.approx(989.5) and h100["memory_bandwidth_tbs"] == 3.35
    assert h100["scaleup_domain_gpus"] == 8 and h100["cheapest_usd_per_gpu_hour"] > 0


def test_gpus_filter_by_vendor_and_memory(client) -> None:  # type: ignore[no-untyped-def]
    gpus = client.get("/api/v1/gpus", params={"vendor": "amd", "min_memory_gb": 200}).json()
    assert gpus and all(g["vendor"] == "AMD" and g["memory_gb"] >= 200 for g in gpus)


@pytest.mark.parametrize(
    "sort,field",
    [("memory", "memory_gb"), ("bandwidth", "memory_bandwidth_tbs"), ("bf16", "bf16_tflops"), ("fp8", "fp8_tflops")],
)
def test_gpus_sort_descending_with_unknowns_last(client, sort: str, field: str) -> None:  # type: ignore[no-untyped-def]
    values = [g[field] for g in client.get("/api/v1/gpus", params={"sort": sort}).json()]
    known = [v for v in values if v is not None]
    assert known == sorted(known, reverse=True)
    assert values[: len(known)] == known


def test_gpus_sort_by_the_on_demand_price_ascending(client) -> None:  # type: ignore[no-untyped-def]
    prices = [g["on_demand_usd_per_gpu_hour"] for g in client.get("/api/v1/gpus?sort=price").json()]
    known = [p for p in prices if p is not None]
    assert known == sorted(known) and prices[: len(known)] == known


@pytest.mark.parametrize(("sort", "field"), [("price", "on_demand_usd_per_gpu_hour"), ("memory", "memory_gb")])
def test_gpus_that_tie_on_the_sort_key_stay_in_name_order(client, sort: str, field: str) -> None:  # type: ignore[no-untyped-def]
    """Every GPU without a current on-demand price (or every 80 GB card) came in the seed's order, T4 before A10G
    before A100 (found by qa33)."""
    gpus = client.get(f"/api/v1/gpus?sort={sort}").json()
    ties: dict[object, list[tuple[str, str]]] = {}
    for gpu in gpus:
        ties.setdefault(gpu[field], []).append((gpu["vendor"], gpu["name"]))
    assert max(len(group) for group in ties.values()) > 2
    assert all(group == sorted(group) for group in ties.values())


def test_gpu_detail_has_offers_with_dates_and_sources(client) -> None:  # type: ignore[no-untyped-def]
    gpu = client.get("/api/v1/gpus/H200").json()
    assert gpu["offers"] and all(o["gpu_id"] == "H200" and o["source_url"] for o in gpu["offers"])
    assert {"as_of", "stale", "provider_name", "price_type"} <= set(gpu["offers"][0])


def test_unknown_gpu_is_404_naming_the_id(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/api/v1/gpus/H900")
    assert response.status_code == 404
    assert response.json()["detail"] == [
        {"field": "gpu_id", "message": "no GPU with id 'H900'; did you mean H800, H200, GH200?"}
    ]


def test_offers_filters_combine(client) -> None:  # type: ignore[no-untyped-def]
    offers = client.get(
        "/api/v1/offers", params={"gpu": "H100-SXM", "price_type": "on_demand", "max_usd_per_gpu_hour": 3}
    ).json()
    assert offers
    assert all(o["gpu_id"] == "H100-SXM" and o["price_type"] == "on_demand" for o in offers)
    assert all(o["usd_per_gpu_hour"] <= 3 for o in offers)
    prices = [o["usd_per_gpu_hour"] for o in offers]
    assert prices == sorted(prices)


def test_offers_by_provider(client) -> None:  # type: ignore[no-untyped-def]
    offers = client.get("/api/v1/offers", params={"provider": "lambda"}).json()
    assert offers and {o["provider_id"] for o in offers} == {"lambda"}


def test_an_offers_caveats_are_the_labels_its_ranked_row_shows(client) -> None:  # type: ignore[no-untyped-def]
    """/api/v1/offers says what a ranked row says of the same offer: the caveat labels of its price note (GMI Cloud's
    prices come from its own article, one "where available"), so the catalog and the ranking give the same facts."""
    offers = {o["id"]: o for o in client.get("/api/v1/offers?provider=gmi-cloud").json()}
    assert all("provider's article, not its price list" in o["price_caveats"] for o in offers.values())
    ranked = client.get("/rank.json?phase=inference&model=llama-3.1-8b&providers=gmi-cloud").json()["options"]
    assert ranked and all(o["price_caveats"] == offers[o["offer_id"]]["price_caveats"] for o in ranked)
    assert any("capacity not guaranteed" in o["price_caveats"] for o in offers.values())


@pytest.mark.parametrize("zone", ["Etc/GMT-14", "Etc/GMT+12"])  # at any hour one of them is on another day than UTC
def test_the_catalog_counts_staleness_from_the_day_the_ranking_does(zone: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """/api/v1/offers' `stale` and the ranking's (snapshot: stale from as_of + days + 1, UTC) agree on a server in any
    time zone: a price the catalog calls fresh is never one the ranking leaves out as stale, nor the reverse."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        today = datetime.now(UTC).date()
        for age in (179, 180, 181, 182):
            as_of = today - timedelta(days=age)
            assert queries.is_stale(as_of, 180) == (snapshot.stale_since(as_of, 180) <= today), age
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_offers_reject_bad_filter_with_field_name(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/api/v1/offers", params={"price_type": "free"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["field"] == "price_type"


def test_providers_have_kinds_and_offer_counts(client) -> None:  # type: ignore[no-untyped-def]
    providers = {p["id"]: p for p in client.get("/api/v1/providers").json()}
    assert len(providers) >= 20
    assert providers["gmi-cloud"]["kind"] == "neocloud" and providers["gmi-cloud"]["offer_count"] >= 3


def test_a_providers_offer_count_is_the_offers_listed_for_it_and_names_sort_as_people_read(client) -> None:  # type: ignore[no-untyped-def]
    """Lambda read '17 GPU offers' where /api/v1/offers?provider=lambda lists 14: its three superseded prices
    (history, never ranked) were counted; and AWS came before Akash, fal.ai after Vultr (found by qa33)."""
    providers = client.get("/api/v1/providers").json()
    assert client.get("/api/v1/gpus/H100-SXM").json()["earlier_prices"], "needs a superseded price to mean anything"
    for provider in providers:
        listed = client.get("/api/v1/offers", params={"provider": provider["id"]}).json()
        assert provider["offer_count"] == len(listed), provider["id"]
    names = [p["name"] for p in providers]
    assert names == sorted(names, key=str.casefold)
    page = client.get("/providers").text
    assert page.index("Akash Network") < page.index("AWS") < page.index("fal.ai") < page.index("Vultr")


def test_models_and_model_detail(client) -> None:  # type: ignore[no-untyped-def]
    models = {m["id"] for m in client.get("/api/v1/models").json()}
    assert {"llama-3.1-70b", "mixtral-8x7b", "deepseek-v3"} <= models
    detail = client.get("/api/v1/models/llama-3.1-70b").json()
    assert detail["num_kv_heads"] == 8 and detail["token_prices"]


def test_unknown_model_is_404_naming_the_id(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/api/v1/models/gpt-9")
    assert response.status_code == 404 and "gpt-9" in response.json()["detail"][0]["message"]


def test_token_prices_filter_by_model(client) -> None:  # type: ignore[no-untyped-def]
    prices = client.get("/api/v1/token-prices", params={"model": "llama-3.1-70b"}).json()
    assert prices and all(p["model_id"] == "llama-3.1-70b" for p in prices)
    assert all(p["output_usd_per_mtok"] >= 0 and p["source_url"] for p in prices)


def test_openapi_documents_catalog_but_not_pages(client) -> None:  # type: ignore[no-untyped-def]
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/v1/offers" in paths and "/api/v1/token-prices" in paths
    assert "/gpus" not in paths
