"""A training row's bill explained: the hours billed against the hours used, spot's lost hours, the total's sum."""

import pytest

from app.scoring.hardware.cluster_caveat import unstated_cluster_caveat
from app.scoring.hardware.machines import Machine
from app.scoring.training.run.offer_terms import run_terms
from app.scoring.training.run.run_explain import billing_note, count_text, run_terms_explained
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

W = TrainingWorkload(model="llama-3.1-8b", method="full_ft")


@pytest.mark.parametrize(
    ("args", "note"),
    [
        (
            ("reserved", "fal", None, 1, 29.8),
            "billed 730 h = max(0.25 h start-up + 29.8 h of run, 1-month minimum, assumed: the source states no term)",
        ),
        (
            ("reserved", "fal", 8760.0, 1, 29.8),
            "billed 8,760 h = max(0.25 h start-up + 29.8 h of run, 12-month minimum)",
        ),
        (
            ("capacity_block", "aws", 24.0, 1, 31.1),
            "billed 48 h = max((0.25 h start-up + 31.1 h of run) in whole days, 24 h minimum)",
        ),
        (
            ("on_demand", "vultr", None, 1, 348.743709),
            "billed 349 h = (0.25 h start-up + 348.7 h of run) in whole hours",
        ),
        (("on_demand", "lambda", None, 1, 29.8), ""),  # billed what is used: nothing to add
        # a one-step smoke test read '(0.25 h start-up + 0.0014 h of run)'
        (("on_demand", "vultr", None, 1, 0.0014), "billed 1 h = (0.25 h start-up + 5.0 s of run) in whole hours"),
        (("on_demand", "vultr", None, 1, 0.075), "billed 1 h = (0.25 h start-up + 4.5 min of run) in whole hours"),
    ],
)
def test_a_rows_note_says_how_its_billed_hours_follow_from_its_terms(args, note):
    assert billing_note(run_terms(*args, W)) == note


def test_a_spot_rows_note_says_the_hours_lost_to_interruptions():
    t = run_terms("spot", "neo", None, 4, 100.0, W)  # 4 nodes at 1 per node-month: ~0.5 expected
    assert 0.1 < t.interruptions < 1
    lost = t.run_hours - t.work_hours
    assert billing_note(t) == f"100 h of work +{lost:.2f} h lost to {t.interruptions:.1f} interruptions"
    terms = {term.name: term for term in run_terms_explained(t, 32, 2.0, 1.0, W)}
    run = terms["run time with interruptions"]  # it read 'wall time', less than the row's wall time by the start-up
    assert run.value == t.run_hours and "checkpoint interval" in run.detail
    assert run.value + terms["start-up"].value == pytest.approx(t.wall_hours)


def test_expected_interruptions_below_one_are_never_said_as_zero():
    assert [count_text(n) for n in (0.48, 0.04, 1.44, 12.6)] == ["0.5", "0.04", "1.4", "13"]


@pytest.mark.parametrize("price", [3.49, 4.0, 1.84375, 0.2371])
def test_the_run_totals_line_adds_up_to_its_value(price):
    t = run_terms("capacity_block", "aws", 24.0, 1, 31.1, W)
    total = 8 * price * t.billed_hours
    term = run_terms_explained(t, 8, price, total, W)[-1]
    assert term.name == "run total" and term.value == total
    assert stated_value(term.detail) == pytest.approx(total, rel=5e-4)


def test_a_cluster_of_unstated_size_is_a_caveat_only_beyond_one_node():
    unstated = Machine(gpus_per_node=8, link="nvlink", fabric="infiniband", max_nodes=None, instance_gpus=8)
    assert unstated_cluster_caveat(unstated, 128).startswith("16 nodes of 8 GPUs: the offer does not state how many")
    assert unstated_cluster_caveat(unstated, 8) == ""  # one node: nothing assumed
    stated = Machine(gpus_per_node=8, link="nvlink", fabric="infiniband", max_nodes=32, instance_gpus=8)
    assert unstated_cluster_caveat(stated, 128) == ""
    rack = Machine(gpus_per_node=72, link="nvlink", fabric="infiniband", max_nodes=None, instance_gpus=4, node_gpus=4)
    assert unstated_cluster_caveat(rack, 72) == "" and unstated_cluster_caveat(rack, 144).startswith("2 racks of 72")
