"""The answer strip above the form says what the #1's GPU count rents, as its row and the summary below do.

Found by trust6's sweep of #1 rows (scripts/top_offer_audit.py): the strip, the first thing a shared link shows, read
"Best: 64×B200 at CoreWeave (on demand, 2026-09-20)" for a run over 8 nodes of an offer that states no node count, and
"Best: 4×B200 at Lambda" for a layout billed as half of a whole 8-GPU instance; the row and the summary further down
said both.
"""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def _strip(client: TestClient, query: str) -> str:
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    strip = re.search(r'<p class="answer-strip[^"]*">(.*?)</p>', page.text, re.S)
    assert strip is not None
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", strip.group(1))))


def test_a_run_over_nodes_of_unstated_count_says_so_in_the_strip(client: TestClient) -> None:
    query = "phase=training&model=llama-3.1-405b&method=full_ft"
    best = client.get(f"/rank.json?{query}").json()["options"][0]
    assert best["nodes"] > 1 and best["cluster_caveat"]  # the question's #1: CoreWeave's nodes, count unstated
    strip = _strip(client, query)
    assert f"Best: {best['gpu_count']}×{best['gpu_id']} · {best['nodes']} nodes node count unstated at " in strip


def test_a_layout_sharing_a_whole_instance_says_its_copies_in_the_strip(client: TestClient) -> None:
    query = "phase=inference&model=llama-3.1-405b&weight_dtype=fp4"
    best = client.get(f"/rank.json?{query}").json()["options"][0]
    assert best["copies_per_instance"] > 1  # the #1: a 4-GPU layout on Lambda's 8-GPU instance, billed whole
    strip = _strip(client, query)
    copies = f"{best['copies_per_instance']} copies per {best['instance_gpus']}-GPU instance"
    assert f"Best: {best['gpu_count']}×{best['gpu_id']} · {copies} at " in strip


def test_a_one_machine_answer_adds_nothing_to_the_strip(client: TestClient) -> None:
    strip = _strip(client, "phase=inference&model=llama-3.1-8b")
    assert re.search(r"Best: 1×\S+ at ", strip) and "nodes" not in strip and "copies" not in strip


def test_compares_inference_summary_says_the_nodes_of_a_multi_node_first(client: TestClient) -> None:
    """/compare's summary below the strip read "Best: 16×GB200 at CoreWeave" for a #1 over 4 nodes (a #1 over
    nodes of unstated count read the same): it says them with the strip's macro (machine_note)."""
    query = "phase=inference&model=llama-3.1-405b"
    best = client.get(f"/rank.json?{query}").json()["options"][0]
    assert best["nodes"] > 1  # the #1: GB200 over several nodes
    page = client.get(f"/compare?{query}")
    assert page.status_code == 200
    summary = re.search(r'<p class="summary">(.*?)</p>', page.text, re.S)
    assert summary is not None
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", summary.group(1))))
    assert f"Best: {best['gpu_count']}×{best['gpu_id']} · {best['nodes']} nodes at " in text


def test_an_overloaded_question_says_so_above_the_form(client: TestClient) -> None:
    """qa43: 70B at 50 requests/s falls behind on every offer; the page opened on its form, the word "overloaded"
    below the fold and the results, with no strip at all, where any answer opens with one."""
    query = "phase=inference&model=llama-3.1-70b&output_len=300&scenario=request_rate&requests_per_s=50"
    assert client.get(f"/rank.json?{query}").json()["overloaded"]
    strip = _strip(client, query).strip()
    assert strip.startswith("Overloaded : on every offer that holds the model, one rented instance falls behind 50 ")
    none = _strip(client, "phase=inference&model=llama-3.1-70b&gpus=A10").strip()
    assert none.startswith("No offer runs this question")
