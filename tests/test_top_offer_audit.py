"""The #1 (and top 3) rows of 68 questions pass scripts/top_offer_audit.py: an offer a buyer can act on today, at terms
accepted by default or labelled, priced as the reference prices it and billed by whole instances. Each check is also
shown to catch the row it is for, so the sweep passing means something."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from app.scoring.specs import Offer
from scripts import top_offer_audit as audit

GOLDEN_DAY = date(2026, 12, 1)  # the goldens' day: the seed's prices age no further in this test
CW_B200 = Offer(
    provider_id="coreweave",
    provider_name="CoreWeave",
    gpu_id="B200",
    gpu_count=8,
    price_type="on_demand",
    usd_per_gpu_hour=8.6,
    as_of=date(2026, 9, 20),
    instance_type="HGX B200",
    source_url="https://www.coreweave.com/pricing",
    gpus_per_node=8,
    inter_node_fabric="infiniband",
)
ROW = {
    "gpu_count": 16,
    "gpu_id": "B200",
    "nodes": 2,
    "provider": "coreweave",
    "price_type": "on_demand",
    "usd_per_gpu_hour": 8.6,
    "price_caveats": [],
    "interruptible": False,
    "stale": False,
    "cluster_caveat": "2 nodes of 8 GPUs: the offer does not state how many nodes it supplies to one job",
    "price_source_url": "https://www.coreweave.com/pricing",
    "machine": "8-GPU node (nvlink), rented as 8-GPU instances",
    "billed_hours": 10.0,
    "total_usd": 10.0 * 16 * 8.6,
}


def test_the_top_rows_of_every_question_pass_the_audit() -> None:
    lines, findings = audit.audit(GOLDEN_DAY, top=3)
    assert len(audit.QUESTIONS) >= 40
    assert sum("#1 " in line for line in lines) == len(audit.QUESTIONS)
    assert findings == [], "\n".join(f"{f.question} #{f.position} {f.row}: {f.problem}" for f in findings)


def test_a_multi_node_row_without_a_stated_fabric_or_from_single_gpu_rentals_is_caught() -> None:
    assert audit.topology_problems(ROW, CW_B200) == []
    stitched = replace(CW_B200, gpu_count=1, gpus_per_node=None, inter_node_fabric="")
    problems = audit.topology_problems({**ROW, "gpu_count": 2}, stitched)
    assert any("states no fabric" in p for p in problems) and any("single-GPU rentals" in p for p in problems)
    assert audit.topology_problems({**ROW, "cluster_caveat": ""}, CW_B200) == [
        "several nodes of an offer that states no node count, without a cluster_caveat"
    ]


def test_terms_a_buyer_did_not_ask_for_are_caught() -> None:
    spot = {**ROW, "price_type": "spot", "interruptible": True}
    assert "price type spot not asked for" in audit.term_problems(spot, CW_B200, {"on_demand"}, [])
    reserved = replace(CW_B200, price_type="reserved", min_term_hours=730.0)
    assert "a minimum term of 730.0 h" in audit.term_problems(ROW, reserved, {"on_demand"}, [])
    hosted = replace(CW_B200, price_note="community-hosted: third-party hosts")
    assert "community or marketplace hosts, unlabelled" in audit.term_problems(ROW, hosted, {"on_demand"}, [])


def test_notes_about_another_price_of_the_machine_are_not_its_terms() -> None:
    """CoreWeave's A100 row notes its spot price, Crusoe's rows that B200/GB200 are sold by contacting sales."""
    assert "spot" not in audit.own_words({"price_type": "on_demand", "notes": "spot $9.65 total"}, "A100-SXM-80GB")
    crusoe = {"price_type": "on_demand", "notes": "B200/GB200: contact sales"}
    assert "contact sales" not in audit.own_words(crusoe, "H100-SXM")
    assert "contact sales" in audit.own_words(crusoe, "B200")


def test_stale_undated_and_mispriced_rows_are_caught() -> None:
    old = replace(CW_B200, as_of=date(2026, 1, 1))
    assert any("stale by the app's rule" in p for p in audit.date_problems(ROW, old, GOLDEN_DAY, [], False))
    undated = replace(CW_B200, as_of=None)
    assert audit.date_problems({**ROW, "stale": True}, undated, GOLDEN_DAY, [], True) == []
    assert audit.date_problems({**ROW, "stale": True}, undated, GOLDEN_DAY, [], False) == [
        "a stale price ranked, and include_stale was not asked for"
    ]
    ref = {"price_per_gpu_hour": "8.60", "price_per_hour_total": "68.80"}
    assert audit.price_problems(ROW, CW_B200, [ref], "training") == []
    cheaper = audit.price_problems({**ROW, "usd_per_gpu_hour": 6.0, "total_usd": 960.0}, CW_B200, [ref], "training")
    assert any("the reference says [8.6]" in p for p in cheaper)
    part_billed = {**ROW, "gpu_count": 12, "total_usd": 10.0 * 12 * 8.6}  # 12 GPUs on 8-GPU instances bill 16
    assert any("16 billed GPUs" in p for p in audit.price_problems(part_billed, CW_B200, [ref], "training"))


def test_hours_billed_off_the_providers_unit_are_caught() -> None:
    """terms.csv: Vultr bills Cloud GPU by the hour, so a run's billed hours are whole hours."""
    vultr = replace(CW_B200, provider_id="vultr", gpu_id="MI300X", gpu_count=1, usd_per_gpu_hour=1.85)
    ref = {"price_per_gpu_hour": "1.85", "price_per_hour_total": "1.85"}
    run = {**ROW, "gpu_count": 1, "nodes": 1, "usd_per_gpu_hour": 1.85, "billed_hours": 60.0, "total_usd": 111.0}
    assert audit.price_problems(run, vultr, [ref], "training") == []
    unrounded = {**run, "billed_hours": 59.8, "total_usd": 59.8 * 1.85}
    assert any("whole 1 h units" in p for p in audit.price_problems(unrounded, vultr, [ref], "training"))


def test_the_readme_counts_the_questions_the_sweep_asks() -> None:
    readme = (Path(audit.ROOT) / "README.md").read_text(encoding="utf-8")
    assert f"checks the top rows of {len(audit.QUESTIONS)} questions" in " ".join(readme.split())


def test_a_price_a_newer_one_of_the_same_offer_replaced_is_caught() -> None:
    """Nebius's undated $5.50 B200 snapshot was #1 of a full fine-tune with stale prices asked for, though Nebius
    prices the B200 at $8.50 since 2026-10-07: no offer exists at $5.50."""
    current = replace(CW_B200, usd_per_gpu_hour=9.5, as_of=date(2026, 10, 7), instance_type="HGX B200 (list)")
    snapshot = replace(CW_B200, as_of=None, instance_type="old-8gpu")
    assert audit.superseded_problems(CW_B200, [CW_B200, current]) == []
    assert audit.superseded_problems(snapshot, [snapshot, current]) == [
        "an undated price superseded by coreweave's $9.5/GPU-h of 2026-10-07"
    ]
    assert audit.superseded_problems(snapshot, [snapshot, replace(current, price_type="spot")]) == []
    noted = replace(CW_B200, price_note="historical snapshot; superseded by a newer price: CoreWeave lists $9.5/GPU-h")
    assert any("a superseded price" in p for p in audit.superseded_problems(noted, [noted]))
