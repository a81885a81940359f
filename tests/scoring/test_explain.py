"""Bands and close calls."""

from app.scoring.explain import Band, is_close_call, win_is_contested


def test_close_calls_mark_overlapping_runners_up_and_a_contested_winner():
    winner, runners = Band(1.0, 2.0), [Band(1.9, 3.0), Band(2.5, 4.0)]
    assert [is_close_call(b, winner) for b in runners] == [True, False]
    assert win_is_contested(winner, [(b.low, b) for b in runners], lowest_low_ratio=1.0)


def test_clear_winner_is_not_a_close_call():
    winner = Band(1.0, 1.2)
    assert not is_close_call(Band(2.0, 2.5), winner)
    assert not win_is_contested(winner, [(2.0, Band(2.0, 2.5))], lowest_low_ratio=1.0)
    assert not win_is_contested(None, [], lowest_low_ratio=1.0)
