"""A low traffic on /disagg's fabric path: each pool rents a whole 8-GPU CoreWeave instance holding several copies of
its instance type, and the peak hour alone would keep one copy busy. Every copy the rental holds serves a share of
the peak (the pool's instances, its busy share and the TTFT's queue wait all count them), so the pool's copies are
replicas_at_peak, the GPUs it leaves idle are those no copy runs on, and every face (page, htmx fragment, JSON, CLI)
says the same copies. Before, fleet_note said 'one copy …, 7 GPUs idle at peak' beside replicas_at_peak 8."""

from __future__ import annotations

import math

import pytest
from markupsafe import escape

from app.cli.main import main

FABRIC = "model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=h100-sxm,a100-sxm-80gb"
FACES = ({}, {"HX-Request": "true"})  # the page and the fragment an htmx submit swaps in
PREFILL = "4 copies on a rented 8-GPU instance share the peak hour's requests (1 would serve them)"  # TP2 copies
DECODE = "8 copies on a rented 8-GPU instance share the peak hour's requests (1 would serve them)"  # TP1 copies


def _best(client):  # type: ignore[no-untyped-def]
    body = client.get(f"/disagg.json?{FABRIC}").json()
    return body, body["disaggregated"][0]


def test_each_fabric_pool_says_the_copies_it_runs(client):
    body, d = _best(client)
    p, q = d["prefill"], d["decode"]
    assert d["path"] == "fabric"
    assert (p["gpu_count"], p["copies_per_rental"], p["rentals_at_peak"], p["gpus_at_peak"]) == (2, 4, 1, 8)
    peak = body["traffic"]["peak_requests_per_s"]
    assert math.ceil(peak / p["capacity_requests_per_s"]) == 1  # by hand: the peak alone would keep one copy busy
    assert (p["replicas_at_peak"], p["copies_needed_at_peak"], p["idle_gpus_at_peak"], p["fleet_note"]) == (
        4,
        1,
        0,
        PREFILL,
    )
    assert (q["replicas_at_peak"], q["copies_needed_at_peak"], q["idle_gpus_at_peak"], q["fleet_note"]) == (
        8,
        1,
        0,
        DECODE,
    )
    # the busy share spreads the peak over every copy replicas_at_peak counts
    busy = peak / (p["replicas_at_peak"] * p["capacity_requests_per_s"])
    assert p["utilisation_at_peak"] == pytest.approx(busy, rel=1e-3)  # JSON rounds it
    assert d["monthly_usd"] == pytest.approx(p["monthly_usd"] + q["monthly_usd"])
    assert p["monthly_usd"] == pytest.approx(q["monthly_usd"])  # 8 A100s each, one price
    why = " ".join(body["verdict"]["why"])
    assert f"(4 each; {PREFILL})" in why and f"(8 each; {DECODE})" in why


def test_a_pools_gpus_are_its_copies_and_its_idle_gpus(client):
    """One source of truth: the GPUs a pool bills are the copies it runs and the GPUs it leaves idle, and its note
    counts the same copies."""
    body = client.get(f"/disagg.json?{FABRIC}").json()
    assert body["disaggregated"]
    for d in body["disaggregated"]:
        for pool in (d["prefill"], d["decode"]):
            used = pool["replicas_at_peak"] * pool["gpu_count"]
            assert pool["gpus_at_peak"] == used + pool["idle_gpus_at_peak"], (d["ratio"], pool["role"])
            if pool["fleet_note"]:
                copies = "one copy" if pool["replicas_at_peak"] == 1 else f"{pool['replicas_at_peak']} copies"
                assert pool["fleet_note"].startswith(f"{copies} on "), pool["fleet_note"]


def test_node_path_pools_say_nothing(client):
    body = client.get("/disagg.json?model=llama-3.1-8b&requests_per_day=5000&providers=coreweave&gpus=b200").json()
    assert body["disaggregated"]
    for d in body["disaggregated"]:
        assert d["path"] == "node"
        for pool in (d["prefill"], d["decode"]):
            assert (pool["copies_needed_at_peak"], pool["idle_gpus_at_peak"], pool["fleet_note"]) == (None, 0, "")


def test_page_and_fragment_say_each_pools_copies(client):
    for headers in FACES:
        page = client.get(f"/disagg?{FABRIC}", headers=headers).text
        assert f"prefill: {escape(PREFILL)}" in page and f"decode: {escape(DECODE)}" in page, headers  # the summary
        assert "prefill 4 × 2×A100-SXM-80GB, decode 8 × 1×A100-SXM-80GB" in page, headers  # the same copies
        assert page.count('class="muted idle-gpus" title="the peak hour\'s rented instances') >= 2, headers  # pools
        assert page.count(str(escape(PREFILL))) >= 3, headers  # the summary, the pool's row, the why line


def test_cli_says_each_pools_copies(database, capsys):
    flags = ["--model", "llama-3.1-8b", "--requests-per-day", "5000", "--providers", "coreweave"]
    assert main(["disagg", *flags, "--gpus", "h100-sxm,a100-sxm-80gb"]) == 0
    out = capsys.readouterr().out
    assert f"4P:8D prefill 4 × 2×A100-SXM-80GB TP2: {PREFILL}" in out
    assert f"4P:8D decode 8 × 1×A100-SXM-80GB TP1: {DECODE}" in out
    assert f"(4 each; {PREFILL})" in out
