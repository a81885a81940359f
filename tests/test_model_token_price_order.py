"""A model's page lists its per-token prices as /plan does: those it compares with first, then, labelled, those it
never compares with. Before, the list ran by output price alone, so Hyperbolic's unverified $0.12/$0.30 placeholder
headed Llama 3.1 70B's and Groq's deprecated, stale 8B price sat fourth (found by qa33)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

NEVER_COMPARED = {"unverified", "deprecated", "stale"}


def _doubted(price: dict[str, object]) -> bool:
    return bool(NEVER_COMPARED & set(price["flags"]))  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["/models/{}.json", "/api/v1/models/{}", "/api/v1/token-prices?model={}"])
def test_a_models_prices_list_the_compared_ones_first_each_group_cheapest_output_first(
    client: TestClient, url: str
) -> None:
    for model in ("llama-3.1-70b", "llama-3.1-8b", "deepseek-r1"):
        body = client.get(url.format(model)).json()
        prices = body["token_prices"] if isinstance(body, dict) else body
        doubted = [_doubted(p) for p in prices]
        assert any(doubted) and not doubted[0], model
        assert doubted == sorted(doubted), model
        for group in (False, True):
            outputs = [p["output_usd_per_mtok"] for p, d in zip(prices, doubted, strict=True) if d is group]
            assert outputs == sorted(outputs), (model, group)


def test_the_model_page_shows_the_unverified_placeholder_after_every_compared_price(client: TestClient) -> None:
    page = client.get("/models/llama-3.1-70b").text
    table = page.split("Serverless per-token prices", 1)[1]
    assert table.index("Fireworks AI") < table.index("Hyperbolic")
    plan = client.get("/plan.json?model=llama-3.1-70b").json()
    compared = [s["provider"] for s in plan["serverless"] if s["comparable"]]
    listed = [p["provider_id"] for p in client.get("/models/llama-3.1-70b.json").json()["token_prices"]]
    assert set(listed[: len(compared)]) == set(compared)


def test_prices_of_one_output_price_list_the_cheaper_input_first(client: TestClient) -> None:
    """DeepSeek-R1's $7.00 outputs: Together's $3.00 input before SambaNova's $5.00 (before, the provider id broke the
    tie, so the dearer listing came first: qa38)."""
    for url in ("/models/deepseek-r1.json", "/api/v1/token-prices?model=deepseek-r1"):
        body = client.get(url).json()
        prices = [p for p in (body["token_prices"] if isinstance(body, dict) else body) if not _doubted(p)]
        pairs = [(p["output_usd_per_mtok"], p["input_usd_per_mtok"]) for p in prices]
        assert pairs == sorted(pairs), url
        providers = [p["provider_id"] for p in prices if p["output_usd_per_mtok"] == 7.0]
        assert providers.index("together-ai") < providers.index("sambanova"), url
