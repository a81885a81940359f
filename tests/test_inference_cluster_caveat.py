"""An inference replica over several nodes of an offer that does not say how many nodes it supplies rests on an
assumption the buyer must confirm before renting, as a training run over several nodes does. Found by qa13: DeepSeek-R1
on H100s ranked 16×H100 over two CoreWeave nodes first, the unstated node count only in a table cell's tooltip and in
the JSON's `machine` words, where a training run on the same offer says "node count unstated" in every face."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

from app.cli.main import main as cli

R1_ON_H100 = "phase=inference&model=deepseek-r1&gpus=H100-SXM"
CAVEAT = "2 nodes of 8 GPUs: the offer does not state how many nodes it supplies to one replica"


def test_a_replica_over_nodes_of_unstated_count_says_so_in_the_json_csv_and_page(client: TestClient) -> None:
    best = client.get(f"/rank.json?{R1_ON_H100}").json()["options"][0]
    assert best["nodes"] == 2 and "node count not stated" in best["machine"]
    assert best["cluster_caveat"].startswith(CAVEAT)
    header, first, *_ = csv.reader(io.StringIO(client.get(f"/rank.csv?{R1_ON_H100}").text))
    # added last, in order (then the peak's two, a fixed load's spread, four, a peak's spread, three, rocmdate's one)
    assert header[-13:-10] == ["cluster_caveat", "requests_per_s", "idle_gpus"]
    assert first[header.index("cluster_caveat")] == best["cluster_caveat"]
    summary = client.get(f"/?{R1_ON_H100}").text.split('<p class="summary">', 1)[1].split("</p>", 1)[0]
    assert "node count unstated</span> " + CAVEAT in summary


def test_the_cli_flags_the_replica_and_says_why(database: str, capsys: Any) -> None:
    assert cli(["rank", "inference", "--model", "deepseek-r1", "--gpus", "H100-SXM", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "NODES?" in out.splitlines()[3]  # the first ranked row
    assert f"#1: NODES? {CAVEAT}" in out


def test_a_replica_inside_one_node_has_no_caveat(client: TestClient) -> None:
    options = client.get("/rank.json?phase=inference&model=deepseek-r1").json()["options"]
    inside = [o for o in options if o["feasible"] and o["nodes"] == 1]
    assert inside and all(o["cluster_caveat"] == "" for o in inside)


def test_the_serving_plan_says_it_of_its_replicas_too(client: TestClient, database: str, capsys: Any) -> None:
    query = "model=deepseek-r1&requests_per_day=500000&gpus=H100-SXM"
    best = client.get(f"/plan.json?{query}").json()["options"][0]
    assert best["nodes"] == 2 and best["cluster_caveat"].startswith(CAVEAT)
    html = client.get(f"/plan?{query}").text
    assert f"node count unstated</span> Each replica: {CAVEAT}" in html
    argv = ["plan", "serving", "--model", "deepseek-r1", "--requests-per-day", "500000", "--gpus", "H100-SXM"]
    assert cli(argv) == 0
    note = next(line for line in capsys.readouterr().out.splitlines() if f"NODES? {CAVEAT}" in line)
    assert note.startswith("#1")


def test_compare_cards_say_it_in_both_phases(client: TestClient) -> None:
    for query in (
        "phase=inference&model=deepseek-r1&gpus=H100-SXM,B200",
        "phase=training&model=llama-3.1-70b&method=full_ft&max_days=3&total_tokens=5000000000&gpus=H100-SXM,B200",
    ):
        options = client.get(f"/compare.json?{query}").json()["options"]
        h100_best = next(o for o in options if o["feasible"] and o["gpu_id"] == "H100-SXM")
        html = client.get(f"/compare?{query}").text.split('<div class="cards">', 1)[1].split("</div>", 1)[0]
        h100 = html.split('href="/gpus/H100-SXM"', 1)[1].split("</article>", 1)[0]
        assert h100_best["cluster_caveat"] and f'title="{h100_best["cluster_caveat"]}"' in h100
        assert f"{h100_best['nodes']} nodes" in h100
