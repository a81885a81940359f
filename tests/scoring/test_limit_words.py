"""A training row's limits in words that hold at the extremes (app/scoring/training/run/limit_words.py): spot at 1,000
interruptions a node-month said "would waste 11541% of the run at 1 nodes", a $0.01 budget "over the $0 budget",
and a 0.0001-day deadline "finishes in 0.0 days, after the 0.0001-day deadline"."""

from __future__ import annotations

import pytest

from app.scoring.training.run.limit_words import (
    days_text,
    deadline_text,
    over_budget_text,
    past_deadline_text,
    plural,
    spot_waste_text,
    usd_text,
)


@pytest.mark.parametrize(
    ("days", "text"),
    [(67.62, "67.6 days"), (1.0, "1.0 days"), (0.1, "2.4 h"), (0.01, "14 min"), (0.001, "86 s"), (0.0001, "8.6 s")],
)
def test_days_read_in_the_unit_of_their_size(days: float, text: str) -> None:
    assert days_text(days) == text


def test_a_run_over_a_year_reads_in_years() -> None:
    """A 15T-token pretraining of an 8B on 8 GPUs read "2,445.6 days" in its row, the answer and the nearest-option
    note, and one past a 10-year deadline "finishes in 9,584.7 days" (found by leftovers10)."""
    assert (days_text(364), days_text(400), days_text(2_445.6), days_text(9_584.7)) == (
        "364.0 days",
        "1.1 years",
        "6.7 years",
        "26 years",
    )
    late = past_deadline_text(3_749.7, 3_650)  # 10.27 years after a 9.99-year deadline: "10 years" read as on time
    assert (late, deadline_text(3_650, late)) == ("10.3 years", "3,650-day deadline")
    assert past_deadline_text(401, 400) == "1.098 years"


def test_a_tiny_length_is_never_zero() -> None:
    assert days_text(1e-9) == "0.000086 s"


@pytest.mark.parametrize(
    ("days", "text"), [(30, "30-day deadline"), (1.5, "1.5-day deadline"), (0.0001, "8.6 s deadline")]
)
def test_a_deadline_reads_in_days_from_one_day_up(days: float, text: str) -> None:
    assert deadline_text(days) == text


@pytest.mark.parametrize(
    ("usd", "text"), [(42.456, "$42.46"), (0.01, "$0.01"), (0.004, "$0.0040"), (12_345.6, "$12,346")]
)
def test_dollars_keep_the_digits_that_matter(usd: float, text: str) -> None:
    assert usd_text(usd) == text


def test_a_cost_over_its_budget_never_reads_equal_to_it() -> None:
    assert over_budget_text(42.46, 0.01) == "costs $42.46, over the $0.01 budget"
    assert over_budget_text(1_234.4, 1_234.0) == "costs $1,234.40, over the $1,234.00 budget"
    assert over_budget_text(50_000, 20_000) == "costs $50,000, over the $20,000 budget"  # as rows said before


def test_one_node_is_singular() -> None:
    assert plural(1, "node") == "1 node" and plural(2, "node") == "2 nodes" and plural(1024, "node") == "1,024 nodes"


def test_spot_waste_past_the_whole_run_says_it_never_finishes() -> None:
    assert spot_waste_text(0.6, 4, 0.1, 1.5) == "spot interruptions would waste 60% of the run at 4 nodes"
    text = spot_waste_text(115.41, 1, 1000 / 730, 84.5)
    assert "%" not in text and "at 1 node " in text and "one every 44 min" in text and "3.5 days" in text
    assert text.endswith("it would never finish")


def test_a_deadline_beside_a_finish_never_reads_later_than_it() -> None:
    """ "finishes in 15.878 min, after the 16 min deadline" read as on time (found by leftovers17, on a spot row)."""
    finish = past_deadline_text(15.878 / 1440, 15.877 / 1440)
    assert (finish, deadline_text(15.877 / 1440, finish)) == ("15.878 min", "15.877 min deadline")
    late = past_deadline_text(18.3 / 1440, 18 / 1440)
    assert (late, deadline_text(18 / 1440, late)) == ("18.3 min", "18 min deadline")  # already apart: as it was
    assert deadline_text(30, "30.04 days") == "30-day deadline"
