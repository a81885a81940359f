"""A load one replica takes whole (clients in flight, a request rate) links the same load spread over replicas sized to
meet the limits on every face. The results page always gave the link ("Each row is one replica taking all …"); the
JSON and the CLI gave it only where those replicas were at least twice cheaper per token (`replicas`), so a tool
reading the JSON could not offer what the page offers. Now `replicas_url` is always there; `replicas` keeps the
comparison (found by trust7)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli

MODEL_70B = ["--model", "llama-3.1-70b"]
LOAD_WORDS = {"concurrency": "32 clients", "request_rate": "2 requests/s"}
SPREAD = {"concurrency": "clients", "request_rate": "traffic"}


def _page_text(page: str) -> str:
    """The page's words as read: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


LOADS = [  # (the question's query, its API body, its CLI flags): neither is twice cheaper on replicas
    ("scenario=concurrency&concurrency=32", {"scenario": "concurrency", "concurrency": 32}, ["--concurrency", "32"]),
    (
        "scenario=request_rate&requests_per_s=2",
        {"scenario": "request_rate", "requests_per_s": 2},
        ["--requests-per-s", "2"],
    ),
]


@pytest.mark.parametrize(("load", "body", "flags"), LOADS)
def test_a_fixed_load_links_the_same_replicas_on_the_page_in_the_json_and_in_the_cli(
    client: TestClient, database: str, capsys: Any, load: str, body: dict[str, Any], flags: list[str]
) -> None:
    query = f"phase=inference&model=llama-3.1-70b&{load}"
    answer = client.get(f"/rank.json?{query}").json()
    assert answer["feasible_options"] and "replicas" not in answer and "overloaded" not in answer
    url = answer["replicas_url"]  # the JSON had no link here, the page had
    assert url.startswith("/?") and "scenario=" not in url and "peak_" in url
    assert f'href="{url.replace("&", "&amp;")}"' in client.get(f"/?{query}").text
    assert client.post("/api/v1/rank/inference", json={"model": "llama-3.1-70b", **body}).json()["replicas_url"] == url
    assert cli(["rank", "inference", *MODEL_70B, "--scenario", body["scenario"], *flags, "--limit", "1"]) == 0
    # the CLI says what the page says beside the link: each row takes the whole load (it gave only the link)
    load_words = LOAD_WORDS[body["scenario"]]
    said = f"Each row is one rented instance taking all {load_words}, spread over the copies it holds. The same "
    said += SPREAD[body["scenario"]]
    sentence = f"{said} spread over replicas sized to meet the limits"
    assert f"{sentence}: {url}" in capsys.readouterr().out
    assert sentence in _page_text(client.get(f"/?{query}").text)
    assert client.get(f"/rank.json?{url[2:]}").json()["feasible_options"]  # the link ranks


def test_a_question_without_a_fixed_load_has_no_replicas_link(client: TestClient) -> None:
    answer = client.get("/rank.json?phase=inference&model=llama-3.1-70b").json()
    assert "replicas_url" not in answer
    page = client.get("/?phase=inference&model=llama-3.1-70b").text
    assert "spread over replicas sized to meet the limits" not in page
