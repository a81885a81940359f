"""Bands and close calls."""

from app.scoring.explain import Band, close_calls


def test_close_calls_mark_overlapping_runners_up_and_a_contested_winner():
    bands = [Band(1.0, 2.0), Band(1.9, 3.0), Band(2.5, 4.0), None]
    assert close_calls(bands) == [True, True, False, False]


def test_clear_winner_is_not_a_close_call():
    assert close_calls([Band(1.0, 1.2), Band(2.0, 2.5)]) == [False, False]
    assert close_calls([]) == []
