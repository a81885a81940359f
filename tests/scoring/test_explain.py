"""Bands and close calls."""

from app.scoring.explain import Band, close_calls, is_close_call, win_is_contested


def test_close_calls_mark_overlapping_runners_up_and_a_contested_winner():
    winner, runners = Band(1.0, 2.0), [Band(1.9, 3.0), Band(2.5, 4.0)]
    assert [is_close_call(b, winner) for b in runners] == [True, False]
    assert win_is_contested(winner, [(b.low, b) for b in runners], lowest_low_ratio=1.0)


def test_clear_winner_is_not_a_close_call():
    winner = Band(1.0, 1.2)
    assert not is_close_call(Band(2.0, 2.5), winner)
    assert not win_is_contested(winner, [(2.0, Band(2.0, 2.5))], lowest_low_ratio=1.0)
    assert not win_is_contested(None, [], lowest_low_ratio=1.0)


def test_close_calls_flag_rivals_on_other_estimates_and_read_no_further_than_needed() -> None:
    # (cost, estimate): the winner, a copy of its estimate at another price, a rival, then one past the winner's band
    tier = [(1.0, "h100x8"), (1.05, "h100x8"), (1.1, "b200x4"), (2.0, "mi300x"), (9.0, "l40s")]
    banded: list[float] = []

    def band_of(row: tuple[float, str]) -> Band:
        banded.append(row[0])
        return Band.around(row[0], 0.8, 1.25)

    calls = close_calls(tier, lambda row: row[0], band_of, lambda row: row[1], lowest_low_ratio=0.8)
    assert calls.contested and calls.winner == Band(0.8, 1.25)
    assert banded == [1.0, 1.1]  # the winner, then runners-up on other estimates up to the first overlap
    assert calls.flag(band_of(tier[0]), "h100x8", first=True)  # the winner's flag: its win is contested
    assert not calls.flag(band_of(tier[1]), "h100x8", first=False)  # the winner's own estimate at another price
    assert calls.flag(band_of(tier[2]), "b200x4", first=False)
    assert not calls.flag(band_of(tier[2]), "b200x4", first=False, rival=False)  # another tier: no rival
    assert not calls.flag(band_of(tier[3]), "mi300x", first=False)  # 1.6-2.5 misses 0.8-1.25


def test_an_uncontested_win_reads_runners_up_only_until_their_bands_cannot_reach_back() -> None:
    banded: list[float] = []

    def band_of(cost: float) -> Band:
        banded.append(cost)
        return Band.around(cost, 0.8, 1.25)

    calls = close_calls([1.0, 2.0, 9.0], lambda cost: cost, band_of, lambda cost: cost, lowest_low_ratio=0.8)
    assert not calls.contested and banded == [1.0, 2.0]  # 2.0 x 0.8 > 1.25: 9.0 is never banded


def test_nothing_ranked_has_no_close_calls() -> None:
    calls = close_calls([], lambda row: 0.0, lambda row: Band(0.0, 0.0), lambda row: row, lowest_low_ratio=1.0)
    assert calls.winner is None and not calls.contested
    assert not calls.flag(Band(1.0, 2.0), "any", first=True)
