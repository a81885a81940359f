"""A low traffic on /disagg's fabric path: each pool rents a whole 8-GPU CoreWeave instance holding several copies of
its instance type, the peak hour keeps one copy busy, and every face (page, htmx fragment, JSON, CLI) says each pool's
copies and idle GPUs in the ranking's words (idle_gpus_words) while the bill stays the whole instance's (the
aggregated row's fleet_note, tests/test_fleet_idle_gpus.py, said so before; the pools did not)."""

from __future__ import annotations

import math

import pytest
from markupsafe import escape

from app.cli.main import main
from app.scoring.inference.ranking.options import idle_gpus_words

FABRIC = "model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=h100-sxm,a100-sxm-80gb"
FACES = ({}, {"HX-Request": "true"})  # the page and the fragment an htmx submit swaps in
PREFILL = "one copy on a rented 8-GPU instance, 6 GPUs idle at peak"  # one TP2 copy of four on 8 A100s
DECODE = "one copy on a rented 8-GPU instance, 7 GPUs idle at peak"  # one TP1 copy of eight


def _best(client):  # type: ignore[no-untyped-def]
    body = client.get(f"/disagg.json?{FABRIC}").json()
    return body, body["disaggregated"][0]


def test_each_fabric_pool_says_its_copies_and_idle_gpus(client):
    body, d = _best(client)
    p, q = d["prefill"], d["decode"]
    assert d["path"] == "fabric"
    assert (p["gpu_count"], p["copies_per_rental"], p["rentals_at_peak"], p["gpus_at_peak"]) == (2, 4, 1, 8)
    peak = body["traffic"]["peak_requests_per_s"]
    assert math.ceil(peak / p["capacity_requests_per_s"]) == 1  # by hand: the peak keeps one prefill copy busy
    assert (p["idle_gpus_at_peak"], p["fleet_note"]) == (8 - 1 * 2, PREFILL)
    assert (q["idle_gpus_at_peak"], q["fleet_note"]) == (8 - 1 * 1, DECODE)
    assert p["fleet_note"] == idle_gpus_words(6, 1, 8, 1, "at peak")
    # the numbers stand: the bill is both whole instances, every copy they hold still counted
    assert (p["replicas_at_peak"], q["replicas_at_peak"]) == (4, 8)
    assert d["monthly_usd"] == pytest.approx(p["monthly_usd"] + q["monthly_usd"])
    assert p["monthly_usd"] == pytest.approx(q["monthly_usd"])  # 8 A100s each, one price
    why = " ".join(body["verdict"]["why"])
    assert f"(4 each; {PREFILL})" in why and f"(8 each; {DECODE})" in why


def test_node_path_pools_say_nothing_idle(client):
    body = client.get("/disagg.json?model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=b200").json()
    assert body["disaggregated"]
    for d in body["disaggregated"]:
        assert d["path"] == "node"
        for pool in (d["prefill"], d["decode"]):
            assert (pool["idle_gpus_at_peak"], pool["fleet_note"]) == (0, "")


def test_page_and_fragment_say_each_pools_idle_gpus(client):
    for headers in FACES:
        page = client.get(f"/disagg?{FABRIC}", headers=headers).text
        assert f"prefill: {escape(PREFILL)}" in page and f"decode: {escape(DECODE)}" in page, headers  # the summary
        assert page.count('class="muted idle-gpus" title="the peak hour\'s rented instances') >= 2, headers  # pool rows
        assert page.count(str(escape(PREFILL))) >= 3, headers  # the summary, the pool's row, the why line


def test_cli_says_each_pools_idle_gpus(database, capsys):
    flags = ["--model", "llama-3.1-8b", "--requests-per-day", "5000", "--providers", "coreweave"]
    assert main(["disagg", *flags, "--gpus", "h100-sxm,a100-sxm-80gb"]) == 0
    out = capsys.readouterr().out
    assert f"4P:8D prefill 4 × 2×A100-SXM-80GB TP2: {PREFILL}" in out
    assert f"4P:8D decode 8 × 1×A100-SXM-80GB TP1: {DECODE}" in out
    assert f"(4 each; {PREFILL})" in out
