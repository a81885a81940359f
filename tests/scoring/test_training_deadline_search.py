"""The training count search and a row's deadline verdict are one check (price_terms.finish_hours: the start-up, then
the run): on a tight deadline the search never keeps a count whose row is late while a larger count is on time, nor
passes over a count its row would call on time.

A 20-minute LoRA of Llama 3.1 8B on H100 nodes finishes in 15.5-40.9 minutes at 1-64 GPUs, 15 of them start-up:
deadlines between and at those finishes are where the two checks could part."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.pricing.price_terms import STARTUP_HOURS, finish_hours, interruptions_per_node_month, spot_run
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LLAMA_8B = MODELS["llama-3.1-8b"]
NODES = Offer(
    "neo",
    "Neo",
    "H100-SXM",
    1,
    "on_demand",
    2.0,
    date(2026, 11, 1),
    gpus_per_node=8,
    intra_node_link="nvlink",
    inter_node_fabric="infiniband",
    inter_node_gbps_per_gpu=400,
    max_nodes=16,
)
SNAPSHOT = CatalogSnapshot(gpus=GPUS, models=MODELS, offers=(NODES,))


def _workload(max_days: float, limits_at: str = "estimate") -> TrainingWorkload:
    return TrainingWorkload(
        model="llama-3.1-8b", method="lora", total_tokens=2e7, max_days=max_days, max_gpus=64, limits_at=limits_at
    )


def _finish_hours_by_count(limits_at: str) -> dict[int, float]:
    """Each count's finish where the deadline is checked, from the cost-time chart's points (start-up and run)."""
    frontier = rank_training(_workload(30.0, limits_at), SNAPSHOT, LLAMA_8B).frontier
    return {p.gpu_count: p.days * 24 for p in frontier}


def test_a_run_finishes_with_its_start_up_first() -> None:
    assert finish_hours(1.0) == 1.0 + STARTUP_HOURS
    assert finish_hours(1.0, 1.5) == 1.5 + STARTUP_HOURS  # the band's slow end stretches the run, not the start-up


@pytest.mark.parametrize("limits_at", ["estimate", "band_high"])
def test_the_count_search_and_the_rows_agree_on_a_tight_deadline(limits_at: str) -> None:
    finishes = _finish_hours_by_count("estimate")
    assert min(finishes.values()) > STARTUP_HOURS and len(finishes) >= 6
    for hours in sorted(finishes.values())[:6]:
        for deadline in (hours - 1e-9, hours, hours + 1e-9):
            ranking = rank_training(_workload(deadline / 24, limits_at), SNAPSHOT, LLAMA_8B)
            top = ranking.options[0]
            point = {p.gpu_count: p for p in ranking.frontier}[top.gpu_count]
            assert point.on_time == top.feasible  # the chart and the row say the same of the count chosen
            if limits_at == "estimate":
                on_time = [n for n, h in finishes.items() if h <= deadline]
                assert top.feasible == bool(on_time), (deadline, top.gpu_count, top.reason)
            if top.feasible:
                assert top.total_hours <= deadline  # a count called on time finishes, start-up and all, by then
            else:  # late everywhere: no count the machine supplies within Max GPUs finishes in time
                assert not any(p.on_time for p in ranking.frontier), (deadline, top.gpu_count, top.reason)


def _either_side(hours: float) -> tuple[float, float]:
    """Deadlines just either side of a spot count's finish. Not the finish itself: the test recomputes a spot finish
    from the chart's days (days x 24 - start-up, then the interruptions), which can differ from the row's own sum in
    the last bit, so a tie says nothing (with the 2026-12-07 training constants 64 GPUs' finish did, by 1 ulp)."""
    return (hours - 1e-9, hours + 1e-9)


def _spot_finish_hours_by_count(w: TrainingWorkload) -> dict[int, float]:
    """Each count's finish on Neo's spot capacity: its run stretched by the interruptions its nodes expect."""
    rate = interruptions_per_node_month("neo", w.interruptions_per_node_month)
    return {
        n: finish_hours(spot_run(hours - STARTUP_HOURS, -(-n // 8), rate, w.checkpoint_interval_hours).wall_hours)
        for n, hours in _finish_hours_by_count("estimate").items()
    }


def test_the_count_search_times_a_spot_row_with_its_interruptions() -> None:
    """At 15.877 min a 32xH100 spot row finished at 15.878 (late: the search timed 32 without interruptions, its row
    added them) while 40 would have been on time (found by plan13, fixed by leftovers17). With the training constants
    refitted on 2026-12-07 (train8) the 32xH100 spot row finished at 15.881 min; after train11's refit (Hopper
    attention at 1.0) at 15.845; after fsdpbytes' refit (data-parallel rings across nodes on every NIC) at 15.853."""
    spot = CatalogSnapshot(gpus=GPUS, models=MODELS, offers=(replace(NODES, price_type="spot"),))
    finishes = _spot_finish_hours_by_count(_workload(1.0))
    assert finishes[32] * 60 == pytest.approx(15.853, abs=1e-3) and finishes[40] < finishes[32]
    for hours in sorted(finishes.values())[:6]:
        for deadline in _either_side(hours):
            w = _workload(deadline / 24).model_copy(update={"price_types": ["spot"]})
            top = rank_training(w, spot, LLAMA_8B).options[0]
            on_time = [n for n, h in finishes.items() if h <= deadline]
            assert top.feasible == bool(on_time), (deadline * 60, top.gpu_count, top.reason)
            if top.feasible:
                assert top.total_hours <= deadline


def test_the_cost_time_chart_marks_a_spot_count_on_time_as_its_row_does() -> None:
    """The chart's on-time mark timed a spot count without its interruptions, so at a deadline between a count's
    finish with and without them the chart drew it on time while its row was late (found by fold19)."""
    spot = CatalogSnapshot(gpus=GPUS, models=MODELS, offers=(replace(NODES, price_type="spot"),))
    finishes = _spot_finish_hours_by_count(_workload(1.0))
    plain = _finish_hours_by_count("estimate")
    parted = [n for n in finishes if finishes[n] > plain[n]]
    assert parted  # interruptions stretch every count's finish
    for hours in sorted(finishes.values())[:6]:
        for deadline in _either_side(hours):
            w = _workload(deadline / 24).model_copy(update={"price_types": ["spot"]})
            ranking = rank_training(w, spot, LLAMA_8B)
            points = {p.gpu_count: p for p in ranking.frontier}
            top = ranking.options[0]
            assert points[top.gpu_count].on_time == top.feasible, (deadline * 60, top.gpu_count, top.reason)
            for n, point in points.items():
                assert point.on_time == (finishes[n] <= deadline), (deadline * 60, n)


def test_a_spot_point_sits_where_its_rows_run_ends_and_costs_what_it_bills() -> None:
    """A spot point was drawn at its run without interruptions, so it could sit left of the deadline line and still be
    marked late; it now is its row's run (offer_terms.run_terms): the same days and the same billed total."""
    spot = CatalogSnapshot(gpus=GPUS, models=MODELS, offers=(replace(NODES, price_type="spot"),))
    finishes = _spot_finish_hours_by_count(_workload(1.0))
    w = _workload(30.0).model_copy(update={"price_types": ["spot"]})
    ranking = rank_training(w, spot, LLAMA_8B)
    points = {p.gpu_count: p for p in ranking.frontier}
    assert points and all(points[n].days * 24 == pytest.approx(finishes[n], rel=1e-12) for n in points)
    top = ranking.options[0]
    assert points[top.gpu_count].days == pytest.approx(top.days, rel=1e-12)
    assert points[top.gpu_count].total_usd == pytest.approx(top.total_usd, rel=1e-12)
    assert points[top.gpu_count].days * 24 > _finish_hours_by_count("estimate")[top.gpu_count]  # interruptions count
