"""A low traffic on an offer rented as whole 8-GPU instances: /plan, /mix and /disagg rent one instance for one copy
of a 1-GPU layout, and every face (page, htmx fragment, JSON, CLI) says the copies that run and the GPUs left idle,
in the ranking's words (idle_gpus_words), while the bill stays the whole instance's (found by qa29)."""

from __future__ import annotations

import json

import pytest
from markupsafe import escape

from app.cli.main import main
from app.scoring.inference.ranking.options import idle_gpus_words
from app.scoring.serving.traffic.week import HOURS_PER_MONTH

LOW = "model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=b200"
MIX = LOW + "&mix=chat:0.5,rag:0.5"
NOTE = "one copy on a rented 8-GPU instance, 7 GPUs idle at peak"
INSTANCE_MONTH = 8 * 8.6 * HOURS_PER_MONTH  # CoreWeave's 8xB200 node at $8.60/GPU-h, billed whole: $50,224
FACES = ({}, {"HX-Request": "true"})  # the page and the fragment an htmx submit swaps in


def test_the_ranking_words_say_copies_and_when():
    assert idle_gpus_words(6, 1, 8) == "one copy on a rented 8-GPU instance, 6 GPUs idle at this load"
    assert idle_gpus_words(7, 1, 8, 1, "at peak") == NOTE
    assert idle_gpus_words(10, 2, 8, 3, "at peak") == "3 copies on 2 rented 8-GPU instances, 10 GPUs idle at peak"
    assert idle_gpus_words(0, 1, 8, 8, "at peak") == ""


def test_plan_says_the_idle_gpus_of_its_one_instance(client):
    body = client.get(f"/plan.json?{LOW}").json()
    (b200,) = [o for o in body["options"] if o["copies_per_instance"] == 8]
    assert (b200["replicas_at_peak"], b200["instances_at_peak"]) == (1, 1)
    assert (b200["idle_gpus_at_peak"], b200["fleet_note"]) == (7, NOTE)
    assert b200["monthly_usd_always_on"] == pytest.approx(INSTANCE_MONTH)  # the bill: the whole instance, unchanged
    assert f"8×B200 (8 copies of 1 GPU; {NOTE}) at CoreWeave" in body["verdict"]["text"]
    for headers in FACES:
        page = client.get(f"/plan?{LOW}", headers=headers).text
        assert page.count(str(escape(NOTE))) >= 2, headers  # the summary and the row


def test_plan_fleet_with_every_gpu_busy_says_nothing_idle(client):
    body = client.get("/plan.json?model=llama-3.1-8b&requests_per_day=5000&providers=lambda&gpus=a10").json()
    assert body["options"]
    for o in body["options"]:
        assert (o["idle_gpus_at_peak"], o["fleet_note"]) == (0, "")
    assert "idle at peak" not in body["verdict"]["text"]


def test_mix_says_the_idle_gpus_of_its_one_instance(client):
    body = client.get(f"/mix.json?{MIX}").json()
    (row,) = body["mix"]["rows"]
    assert (row["replicas"], row["copies"], row["copies_at_peak"]) == (1, 8, 1)
    assert (row["idle_gpus_at_peak"], row["fleet_note"]) == (7, NOTE)
    assert row["usd_per_month"] == pytest.approx(INSTANCE_MONTH, abs=0.01)
    for headers in FACES:
        assert str(escape(NOTE)) in client.get(f"/mix?{MIX}", headers=headers).text, headers


def test_disagg_says_the_idle_gpus_of_the_aggregated_instance(client):
    body = client.get(f"/disagg.json?{LOW}").json()
    a = body["aggregated"]
    assert (a["replicas_at_peak"], a["gpus_at_peak"], a["idle_gpus_at_peak"], a["fleet_note"]) == (1, 8, 7, NOTE)
    assert a["monthly_usd"] == pytest.approx(INSTANCE_MONTH)
    assert f"at the peak hour ({NOTE})" in body["verdict"]["headline"]
    assert any(f"1 in all, CoreWeave; {NOTE})" in line for line in body["verdict"]["why"])
    for headers in FACES:
        assert str(escape(NOTE)) in client.get(f"/disagg?{LOW}", headers=headers).text, headers


def test_cli_says_the_idle_gpus(database, capsys):
    flags = ["--model", "llama-3.1-8b", "--requests-per-day", "5000", "--providers", "coreweave", "--gpus", "b200"]
    assert main(["plan", "serving", *flags]) == 0
    out = capsys.readouterr().out
    assert f"#1: {NOTE}" in out and f"(8 copies of 1 GPU; {NOTE})" in out
    assert main(["mix", *flags]) == 0
    assert f"1 × 8×B200 (8 copies of 1) at CoreWeave: {NOTE}" in capsys.readouterr().out
    assert main(["disagg", *flags]) == 0
    assert f"CoreWeave; {NOTE})" in capsys.readouterr().out
    assert main(["plan", "serving", *flags, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"][0]["fleet_note"] == NOTE
