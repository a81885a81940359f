"""A low traffic on an offer rented as whole 8-GPU instances: /plan, /mix and /disagg rent one instance for one copy
of a 1-GPU layout, and every face (page, htmx fragment, JSON, CLI) says the copies the peak needs and the GPUs billed
spare beyond them (spare_gpus_words), while the bill stays the whole instance's (found by qa29). They said '7 GPUs
idle at peak', the word a /disagg pool uses for GPUs no copy runs on, where its every copy serves (found by small2)."""

from __future__ import annotations

import json

import pytest
from markupsafe import escape

from app.cli.main import main
from app.scoring.inference.ranking.options import idle_gpus_words
from app.scoring.serving.spare_gpus import spare_gpus_words
from app.scoring.serving.traffic.week import HOURS_PER_MONTH

LOW = "model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=b200"
MIX = LOW + "&mix=chat:0.5,rag:0.5"
NOTE = "one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are billed, spare at peak"
# /plan and /disagg's aggregated row rent the ranked row's instance: its 7 spare GPUs would run copies too (spread2)
SPREAD = (
    "one copy serves the peak; run 8 copies on the 8 billed GPUs and the peak's p99 TTFT falls to 51.4 ms, "
    "TPOT to 5.34 ms"
)
INSTANCE_MONTH = 8 * 8.6 * HOURS_PER_MONTH  # CoreWeave's 8xB200 node at $8.60/GPU-h, billed whole: $50,224
# /mix's row serves chat and rag on one instance: its 8 copies could share them, but no p99 times a mixed stream (mix3)
MIX_NOTE = (
    f"{NOTE}: all 8 copies it holds could share the peak, 0.0217 requests/s each, of the 12.9 one copy sustains at the "
    "limits; no p99 is given for them: a copy would serve chat and rag together, and an estimate times one request "
    "length at a time"
)
FACES = ({}, {"HX-Request": "true"})  # the page and the fragment an htmx submit swaps in


def test_a_fleet_says_spare_where_a_fixed_load_says_idle():
    assert idle_gpus_words(6, 1, 8) == "one copy on a rented 8-GPU instance, 6 GPUs idle at this load"
    assert spare_gpus_words(7, 1, 8, 1) == NOTE
    three = "3 copies serve the peak; 10 more GPUs of their 2 rented 8-GPU instances are billed, spare at peak"
    assert spare_gpus_words(10, 2, 8, 3) == three
    assert spare_gpus_words(0, 1, 8, 8) == ""


def test_plan_says_the_idle_gpus_of_its_one_instance(client):
    body = client.get(f"/plan.json?{LOW}").json()
    (b200,) = [o for o in body["options"] if o["copies_per_instance"] == 8]
    assert (b200["replicas_at_peak"], b200["instances_at_peak"]) == (1, 1)
    assert (b200["idle_gpus_at_peak"], b200["fleet_note"]) == (7, SPREAD)
    assert b200["monthly_usd_always_on"] == pytest.approx(INSTANCE_MONTH)  # the bill: the whole instance, unchanged
    assert f"8×B200 (8 copies of 1 GPU; {SPREAD}) at CoreWeave" in body["verdict"]["text"]
    for headers in FACES:
        page = client.get(f"/plan?{LOW}", headers=headers).text
        assert page.count(str(escape(SPREAD))) >= 2, headers  # the summary and the row


def test_plan_fleet_with_every_gpu_busy_says_nothing_idle(client):
    body = client.get("/plan.json?model=llama-3.1-8b&requests_per_day=5000&providers=lambda&gpus=a10").json()
    assert body["options"]
    for o in body["options"]:
        assert (o["idle_gpus_at_peak"], o["fleet_note"]) == (0, "")
    assert "spare at peak" not in body["verdict"]["text"]


def test_mix_says_the_idle_gpus_of_its_one_instance(client):
    body = client.get(f"/mix.json?{MIX}").json()
    (row,) = body["mix"]["rows"]
    assert (row["replicas"], row["copies"], row["copies_at_peak"]) == (1, 8, 1)
    assert (row["idle_gpus_at_peak"], row["fleet_note"]) == (7, MIX_NOTE)
    assert row["usd_per_month"] == pytest.approx(INSTANCE_MONTH, abs=0.01)
    for headers in FACES:
        assert str(escape(MIX_NOTE)) in client.get(f"/mix?{MIX}", headers=headers).text, headers


def test_disagg_says_the_idle_gpus_of_the_aggregated_instance(client):
    body = client.get(f"/disagg.json?{LOW}").json()
    a = body["aggregated"]
    assert (a["replicas_at_peak"], a["gpus_at_peak"], a["idle_gpus_at_peak"], a["fleet_note"]) == (1, 8, 7, SPREAD)
    assert a["monthly_usd"] == pytest.approx(INSTANCE_MONTH)
    assert f"at the peak hour ({SPREAD})" in body["verdict"]["headline"]
    assert any(f"1 in all, CoreWeave; {SPREAD})" in line for line in body["verdict"]["why"])
    for headers in FACES:
        assert str(escape(SPREAD)) in client.get(f"/disagg?{LOW}", headers=headers).text, headers


def test_cli_says_the_idle_gpus(database, capsys):
    flags = ["--model", "llama-3.1-8b", "--requests-per-day", "5000", "--providers", "coreweave", "--gpus", "b200"]
    assert main(["plan", "serving", *flags]) == 0
    out = capsys.readouterr().out
    assert f"#1: {SPREAD}" in out and f"(8 copies of 1 GPU; {SPREAD})" in out
    assert main(["mix", *flags]) == 0
    assert f"1 × 8×B200 (8 copies of 1) at CoreWeave: {MIX_NOTE}" in capsys.readouterr().out
    assert main(["disagg", *flags]) == 0
    assert f"CoreWeave; {SPREAD})" in capsys.readouterr().out
    assert main(["plan", "serving", *flags, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"][0]["fleet_note"] == SPREAD


def test_disagg_says_a_pool_s_shared_copies_and_the_aggregated_spare_gpus_apart(client):
    """One page, two models: a fabric pool's copies all serve the peak (its idle GPUs hold no copy), the aggregated
    option's peak is counted onto the copies it needs (its other GPUs are spare); the words and the schema say which."""
    fabric = "model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=h100-sxm,a100-sxm-80gb"
    body = client.get(f"/disagg.json?{fabric}").json()
    aggregated = body["aggregated"]["fleet_note"]
    pools = [p["fleet_note"] for d in body["disaggregated"] for p in (d["prefill"], d["decode"]) if p["fleet_note"]]
    assert aggregated.startswith("one copy serves the peak; run 8 copies on the 8 billed GPUs and the peak's p99")
    assert pools and all("share the peak hour's requests" in note and "spare" not in note for note in pools)
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("ServingOptionOut", "FleetRow", "AggregatedOut"):
        assert "spare" in schemas[name]["properties"]["idle_gpus_at_peak"]["description"], name
    assert "no copy runs on" in schemas["Pool"]["properties"]["idle_gpus_at_peak"]["description"]
    page = client.get(f"/disagg?{fabric}").text
    assert str(escape(aggregated)) in page and str(escape(pools[0])) in page


@pytest.mark.parametrize("page", ["plan", "disagg"])
def test_the_spread_note_hover_says_run_copies_not_spare(client, page):
    """left34: /plan's and /disagg's note read 'run 8 copies on the 8 billed GPUs …' while its hover text still said
    'the other GPUs are spare'; the title now says the spare GPUs would run copies, and the spare words keep theirs."""
    html = client.get(f"/{page}?{LOW}").text
    note = f">{escape(SPREAD)}</span>"
    title = html[: html.index(note)].rsplit('title="', 1)[1]
    assert "the other GPUs are spare" not in title
    assert "would run copies" in title
    if page == "disagg":
        assert client.get(f"/disagg.json?{LOW}").json()["aggregated"]["copies_at_peak_if_spread"] == 8
