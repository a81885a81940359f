"""A saved link of a question that set no weight_dtype stores the release's dtype (so the link keeps its precision)
and said "Weights BF16, as asked" where the live page says "BF16 is assumed" or "as released" (found by tidy): the
saved page now says where the precision came from as the live page does, and a question that named it still reads
"as asked"."""

from __future__ import annotations

import re
from html import unescape

import pytest


def _weights_note(client, url: str) -> str:  # type: ignore[no-untyped-def]
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(url).text)))
    return re.search(r"Weights [^.]*(?:\([^)]*\))?[^.]*\.", text).group(0)  # type: ignore[union-attr]


def _saved(client, query: str) -> str:  # type: ignore[no-untyped-def]
    response = client.post("/share", json={"path": "/", "query": query})
    assert response.status_code == 201, response.text
    return response.json()["url"]


@pytest.mark.parametrize("model", ["llama-3.1-8b", "gpt-oss-120b"])  # BF16 assumed; MXFP4 as released
def test_a_saved_link_says_where_its_precision_came_from_as_the_live_page(client, model) -> None:  # type: ignore[no-untyped-def]
    query = f"phase=inference&model={model}"
    live = _weights_note(client, f"/?{query}")
    saved = _saved(client, query)
    assert "as asked" not in live
    assert _weights_note(client, saved) == live
    assert client.get(f"{saved}.json").json()["options"] == client.get(f"/rank.json?{query}").json()["options"]


def test_a_saved_link_that_named_its_precision_still_says_as_asked(client) -> None:  # type: ignore[no-untyped-def]
    query = "phase=inference&model=llama-3.1-8b&weight_dtype=bf16"
    assert "as asked" in _weights_note(client, _saved(client, query)) == _weights_note(client, f"/?{query}")
