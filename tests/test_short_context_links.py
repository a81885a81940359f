"""Links between pages about a model of a 2,048-token context (BLOOM, OPT, GPT-3, LLaMA v1) ask at lengths it holds: the
form's default 2,000 + 400 tokens overflow it, so a link without lengths of its own led to a 422 (found by qa37,
crawling every link two pages deep from the pages a buyer walks)."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from app.service.query.fitting_lengths import lengths_within


def _link(page: str, words: str) -> str:
    found = re.search(rf'<a href="([^"]+)">{words}', page)
    assert found, words
    return unescape(found.group(1))


def test_lengths_within_keep_the_defaults_where_they_fit() -> None:
    assert lengths_within(None) == {} and lengths_within(131_072) == {} and lengths_within(2_400) == {}
    assert lengths_within(2_048) == {"input_len": 1_648, "output_len": 400}
    assert lengths_within(512) == {"input_len": 384, "output_len": 128}  # 400 is most of it: a quarter


def test_a_training_rankings_plan_link_serves_at_lengths_the_model_holds(client: TestClient) -> None:
    page = client.get("/?phase=training&model=gpt-3-175b").text
    link = _link(page, "Train it, then serve it for a year")
    assert "input_len=1648" in link
    assert client.get(link).status_code == 200


def test_a_plan_offers_no_mix_whose_default_buckets_overflow_the_model(client: TestClient) -> None:
    """RAG's 7,590-token prompts do not fit BLOOM's 2,048: /plan linked a /mix that answered 422."""
    short = client.get("/plan?model=bloom-176b&input_len=1648&requests_per_day=100000")
    assert short.status_code == 200 and "Chat and RAG on a mix of GPUs" not in short.text
    long = client.get("/plan?model=llama-3.1-8b&requests_per_day=100000").text
    assert client.get(_link(long, "Chat and RAG on a mix of GPUs")).status_code == 200
