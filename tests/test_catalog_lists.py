"""/models, /providers and a GPU's offers sort and filter by their query strings (the URL is the shareable link, a
plain GET form without JavaScript), as /gpus does: the page, its .json twin and the API read one pydantic model, a
bad value is a 422 naming the field (the page re-renders with the error beside it), never a 500. Before, none of the
three took a parameter, and a provider selling only per-token API access read "0 GPU offers" (found by catalog2)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event


def rows(page: str) -> list[str]:
    return re.findall(r'<th scope="row" class="full" role="rowheader"><a href="/\w+/([^"?]+)"', page)


def test_models_filter_by_family_kind_size_and_context_and_sort_by_params(client: TestClient) -> None:
    page = client.get("/models?family=Qwen&kind=moe&min_params_b=100&sort=params")
    assert page.status_code == 200
    assert rows(page.text) == ["qwen3-coder-480b-a35b", "qwen3-235b-a22b"]
    twin = client.get("/models.json?family=Qwen&kind=moe&min_params_b=100&sort=params").json()
    api = client.get("/api/v1/models?family=Qwen&kind=moe&min_params_b=100&sort=params").json()
    assert [m["id"] for m in twin] == [m["id"] for m in api] == rows(page.text)
    assert all(m["family"] == "Qwen" and m["num_experts"] > 0 for m in api)
    dense = client.get("/api/v1/models?kind=dense&max_params_b=8&min_context=100000&sort=context").json()
    contexts = [m["max_context"] for m in dense]
    assert dense and contexts == sorted(contexts, reverse=True) and min(contexts) >= 100_000
    assert all(m["num_experts"] == 0 and m["params_b"] <= 8 for m in dense)


def test_a_sortable_header_is_a_link_keeping_the_filters_and_says_the_order(client: TestClient) -> None:
    page = client.get("/models?kind=moe&sort=context").text
    assert (
        '<th scope="col" aria-sort="descending" role="columnheader"><a href="/models?kind=moe&amp;sort=context">'
        in page
    )
    assert '<a href="/models?kind=moe&amp;sort=params">Params (B)</a>' in page
    assert '<a href="/models?kind=moe">Model</a>' in page  # name is the default: no sort in the canonical URL
    offers = client.get("/gpus/H100-SXM?price_type=on_demand").text
    assert 'aria-sort="ascending" role="columnheader"><a href="/gpus/H100-SXM?price_type=on_demand">' in offers
    assert '<a href="/gpus/H100-SXM?price_type=on_demand&amp;sort=date">As of</a>' in offers


def test_the_filter_forms_are_plain_get_forms(client: TestClient) -> None:
    """Without JavaScript a form's submit is the canonical link (htmx only swaps the table in place)."""
    for path in ("/models", "/providers", "/gpus/H100-SXM"):
        assert f'<form class="filters" method="get" action="{path}"' in client.get(path).text
    typed = client.get("/models?family=qwen&kind=&min_params_b=70.0", follow_redirects=False)
    assert typed.status_code == 303 and typed.headers["location"] == "/models?family=Qwen&min_params_b=70"


BAD = [
    ("/models", "sort=size", "sort", "Input should be 'name', 'params' or 'context'"),
    ("/models", "kind=sparse", "kind", "Input should be 'dense' or 'moe'"),
    ("/models", "min_params_b=abc", "min_params_b", "must be a number of billion parameters"),
    ("/models", "min_params_b=nan", "min_params_b", "finite"),
    ("/models", "min_params_b=70&max_params_b=8", "max_params_b", "8 billion is fewer than the least asked for, 70"),
    ("/models", "family=lama", "family", "unknown model family 'lama'; known: BLOOM"),
    ("/providers", "sells=tokens", "sells", "Input should be 'gpu_offers' or 'per_token_only'"),
    ("/providers", "sort=cheapest", "sort", "Input should be 'name', 'offers' or 'h100_price'"),
    ("/gpus/H100-SXM", "price_type=hourly", "price_type", "Input should be 'on_demand'"),
    ("/gpus/H100-SXM", "min_gpus=0", "min_gpus", "must be at least 1 GPU"),
    ("/gpus/H100-SXM", "provider=amazon", "provider", "unknown provider id 'amazon'"),
    ("/gpus/H100-SXM", "sort=cost", "sort", "Input should be 'price', 'date' or 'provider'"),
]


@pytest.mark.parametrize(("path", "query", "field", "why"), BAD)
def test_a_bad_sort_or_filter_is_a_422_naming_the_field_on_the_page_and_in_json(
    client: TestClient, path: str, query: str, field: str, why: str
) -> None:
    response = client.get(f"{path}?{query}")
    assert response.status_code == 422
    beside = re.search(rf'id="f-{field}"[^>]*aria-invalid="true".*?id="err-{field}">(.*?)</span>', response.text, re.S)
    assert beside and why in unescape(beside.group(1)), response.text[-3000:]
    assert 'id="error-summary"' in response.text and "<tbody" not in response.text.split('id="error-summary"')[1]
    for twin in (f"{path}.json?{query}", f"/api/v1{path}?{query}"):
        answer = client.get(twin)
        assert answer.status_code == 422, twin
        assert answer.json()["detail"][0]["field"] == field and why in answer.json()["detail"][0]["message"]


def test_a_smallest_size_above_the_largest_reads_in_the_forms_words_not_query_keys(client: TestClient) -> None:
    page = client.get("/models?min_params_b=70&max_params_b=8")
    shown = unescape(re.sub(r"<[^>]+>", " ", page.text.split('id="f-max_params_b"')[1].split(">", 1)[1]))
    assert "8 billion is fewer than the least asked for, 70 billion" in shown
    assert "min_params_b" not in shown and "max_params_b" not in shown


def test_a_key_the_list_does_not_take_is_named(client: TestClient) -> None:
    page = client.get("/providers?sort_by=offers").text
    assert "sort_by: not a query parameter of GET /providers (did you mean sort?)" in unescape(page)
    assert client.get("/api/v1/gpus/H100-SXM?gpus=2").json()["detail"][0]["field"] == "gpus"


def test_providers_filter_per_token_only_and_show_their_token_prices(client: TestClient) -> None:
    page = client.get("/providers?sells=per_token_only").text
    listed = rows(page)
    assert "deepinfra" in listed and "lambda" not in listed
    deepinfra = page.split('href="/providers/deepinfra"')[1].split("</tr>")[0]
    assert "none: per-token API" in deepinfra and "/M in" in deepinfra and "/M out" in deepinfra
    assert 'href="/providers/deepinfra#token-prices"' in deepinfra
    api = {p["id"]: p for p in client.get("/api/v1/providers?sells=per_token_only").json()}
    assert set(api) == set(listed)
    assert all(p["offer_count"] == 0 and p["token_price_count"] > 0 for p in api.values())
    first = api["deepinfra"]["cheapest_token_price"]
    assert first["provider_id"] == "deepinfra" and first["source_url"].startswith("http")
    renting = client.get("/api/v1/providers?sells=gpu_offers").json()
    assert renting and all(p["offer_count"] > 0 for p in renting)


def test_a_per_token_providers_page_lists_its_prices_dated_and_sourced(client: TestClient) -> None:
    page = client.get("/providers/deepinfra")
    assert page.status_code == 200 and 'id="token-prices"' in page.text
    detail = client.get("/api/v1/providers/deepinfra").json()
    assert detail["offers"] == [] and len(detail["token_prices"]) == detail["token_price_count"] > 5
    for price in detail["token_prices"]:
        assert f"{price['output_usd_per_mtok']:.2f}" in page.text
    assert page.text.count('rel="noopener noreferrer external" target="_blank">source</a>') >= len(
        detail["token_prices"]
    )
    assert client.get("/providers/deepinfra.json").json() == detail
    assert client.get("/providers/DeepInfra", follow_redirects=False).headers["location"] == "/providers/deepinfra"
    assert client.get("/api/v1/providers/amazon").status_code == 404


def test_a_token_price_dated_on_or_before_says_what_its_sign_means_on_both_provider_pages(client: TestClient) -> None:
    listing = client.get("/providers?sells=per_token_only").text
    listed = listing.split('href="/providers/deepinfra"')[1].split("</tr>")[0]
    detail = client.get("/providers/deepinfra").text.split('id="token-prices"')[1]
    for page in (listed, detail):
        dated = re.search(r"≤(\d{4}-\d{2}-\d{2})", unescape(page))
        assert dated and f'title="on or before {dated.group(1)}: read that day' in page
    assert "cheapest:" in listed and "first:" not in listed


def test_providers_sort_by_the_cheapest_current_on_demand_h100(client: TestClient) -> None:
    listed = client.get("/api/v1/providers?sort=h100_price").json()
    prices = [p["h100_usd_per_gpu_hour"] for p in listed]
    priced = [p for p in prices if p is not None]
    assert priced and priced == sorted(priced) and prices[: len(priced)] == priced  # none last
    lambda_offers = client.get("/api/v1/offers?provider=lambda&price_type=on_demand").json()
    h100 = [o for o in lambda_offers if o["gpu_id"].startswith("H100") and not o["stale"]]
    lambda_row = next(p for p in listed if p["id"] == "lambda")
    assert lambda_row["h100_usd_per_gpu_hour"] == min(o["usd_per_gpu_hour"] for o in h100)
    most = client.get("/api/v1/providers?sort=offers").json()
    assert [p["offer_count"] for p in most] == sorted((p["offer_count"] for p in most), reverse=True)


def test_a_gpus_offers_filter_by_provider_terms_region_and_size_and_sort_by_date(client: TestClient) -> None:
    every = client.get("/api/v1/gpus/H100-SXM").json()
    kept = client.get("/api/v1/gpus/H100-SXM?region=US&min_gpus=8&price_type=on_demand&sort=date").json()
    assert kept["offers"] and len(kept["offers"]) < len(every["offers"])
    for offer in kept["offers"]:
        assert "us" in offer["region"].lower() and offer["gpu_count"] >= 8 and offer["price_type"] == "on_demand"
    dates = [o["as_of"] or "" for o in kept["offers"]]
    assert dates == sorted(dates, reverse=True)
    assert kept["on_demand_usd_per_gpu_hour"] == every["on_demand_usd_per_gpu_hour"]  # the card's price stays
    page = client.get("/gpus/H100-SXM?provider=lambda").text
    table = page.split('<table class="data stack"')[1].split("</table>")[0]  # the offers, not the chart's numbers
    assert set(re.findall(r'data-label="Provider" role="cell">(.*?)</td>', table)) == {"Lambda"}
    assert (
        client.get("/gpus/H100-SXM.json?provider=lambda").json()
        == client.get("/api/v1/gpus/H100-SXM?provider=lambda").json()
    )


def test_an_htmx_filter_change_swaps_only_the_table(client: TestClient) -> None:
    for path, block in (("/models?kind=sparse", "model-table"), ("/gpus/H100-SXM?min_gpus=x", "offer-table")):
        response = client.get(path, headers={"HX-Request": "true"})
        assert response.status_code == 422 and response.text.lstrip().startswith(f'<div id="{block}"')


@pytest.mark.parametrize("path", ["/models?sort=params", "/providers?sort=h100_price", "/gpus/H100-SXM?sort=date"])
def test_a_list_page_reads_the_database_a_fixed_number_of_times(client: TestClient, path: str) -> None:
    """No query per row: /providers reads offers, token prices and providers once each."""
    statements: list[str] = []

    def count(conn, cursor, statement, *args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    engine = client.app.state.engine  # type: ignore[attr-defined]
    client.get(path)  # warm the snapshot
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert client.get(path).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(statements) <= 3, statements


def test_each_providers_row_sums_up_what_its_page_lists(client: TestClient) -> None:
    """The list counts stored rows (no payload per price); its count and first price are its page's."""
    for row in client.get("/api/v1/providers").json():
        detail = client.get(f"/api/v1/providers/{row['id']}").json()
        assert row["offer_count"] == len(detail["offers"]), row["id"]
        assert row["token_price_count"] == len(detail["token_prices"]), row["id"]
        assert row["cheapest_token_price"] == (detail["token_prices"][0] if detail["token_prices"] else None)
        assert row["h100_usd_per_gpu_hour"] == detail["h100_usd_per_gpu_hour"], row["id"]
