"""How an estimate explains itself: named terms with units, and an uncertainty band."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

Row = TypeVar("Row")


@dataclass(frozen=True, slots=True)
class Term:
    """One line of an explanation: `decode weight read = 8.4 ms (70.6 GB / (4 × 3.35 TB/s × 0.62))`."""

    name: str
    value: float
    unit: str
    detail: str = ""


class LazyTerms(Sequence[Term]):
    """An explanation written when first read. A ranking explains the layout it keeps on every (GPU, machine) slot,
    and a lean answer (the rank API's terms=false) or a results page shows few of them: writing the terms was about
    a seventh of a ranking's time (benchmarks/bench_http.py). Every offer of one configuration holds this one
    object, so its terms are written once, and a JSON answer converts them once (service.rank.plain)."""

    __slots__ = ("_terms", "_write")

    def __init__(self, write: Callable[[], list[Term]]) -> None:
        self._write: Callable[[], list[Term]] | None = write
        self._terms: list[Term] | None = None

    def written(self) -> list[Term]:
        """The terms, written on the first read. Two threads reading at once may both write them (the same
        terms); `_terms` is set before `_write` is dropped, so a reader that finds no writer finds the terms."""
        if self._terms is None:
            write = self._write
            if write is not None:
                self._terms = write()
                self._write = None  # what the writer held (the solved configuration) may go
        assert self._terms is not None
        return self._terms

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self.written()[index]

    def __len__(self) -> int:
        return len(self.written())

    def __iter__(self) -> Iterator[Term]:
        return iter(self.written())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyTerms):
            other = other.written()
        return self.written() == other

    __hash__ = None  # type: ignore[assignment]  # a list's equality, a list's unhashability

    def __repr__(self) -> str:
        return f"LazyTerms({self.written()!r})"


def figure(value: float, digits: int = 4) -> str:
    """`value` with at least `digits` significant digits and no exponent (136.6, 0.02120, 3,040), so that a term's
    arithmetic, written with these figures, reproduces its value to within about 0.05 % per figure."""
    if not math.isfinite(value):
        return f"{value:g}"
    if value == round(value) and abs(value) < 1e15:  # counts: 61 layers, 50 sequences
        return f"{round(value):,}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def fixed(value: float, decimals: int = 1, thousands: bool = True) -> str:
    """`value` to `decimals` places (1,000.0), except that a value those places would show as 0 while it is not
    zero gets two significant figures instead: 0.1 requests/day at 0 places is '0.1', a 0.0008 ms target at one
    place '0.0008' (they read '0' and '0.0'). Every number shown to a person rounds through here."""
    text = f"{value:{',' if thousands else ''}.{decimals}f}"
    if value == 0 or not math.isfinite(value) or float(text.replace(",", "")) != 0:
        return text
    places = 1 - math.floor(math.log10(abs(value)))  # two significant figures, no exponent
    return f"{value:.{places}f}".rstrip("0")


def range_places(low: float, high: float, decimals: int) -> int:
    """The places both ends of a range are written with: `decimals`, or more where fixed would give one end more
    (a band of $0.0033–0.0052 at two places read 0.0033–0.01)."""
    return max(_places(low, decimals), _places(high, decimals))


def _places(value: float, decimals: int) -> int:
    if value == 0 or not math.isfinite(value) or round(value, decimals) != 0:
        return decimals
    return 1 - math.floor(math.log10(abs(value)))


def in_flight_text(mean: float) -> str:
    """A mean below one request in flight: two places, never rounded up to a whole one ("1.00 ... below one")."""
    return fixed(mean, 2) if mean < 0.995 else "just under 1"


def batch_words(batch: float) -> str:
    """A running batch in words: "batch 8", or a mean one (a light load's, an open loop's by Little's law) the mean
    requests in flight, never "batch 0.17087" or "batch 1.05545"."""
    if batch == round(batch) and batch >= 1:
        return f"batch {round(batch)}"
    mean = in_flight_text(batch) if batch < 1 else fixed(batch, 2)
    return f"{mean} requests in flight on average"


def percent(fraction: float, decimals: int = 0) -> str:
    """A fraction as a percentage through fixed: 0.6 → '60%', 0.0001 → '0.01%' (it read '0%')."""
    return f"{fixed(fraction * 100, decimals, thousands=False)}%"


def duration_text(seconds: float) -> str:
    """Seconds in the unit a person reads them in: s up to two minutes, then minutes, hours, days."""
    for unit, size in (("days", 86_400.0), ("h", 3_600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            value = seconds / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{fixed(seconds, 0)} s"


@dataclass(frozen=True, slots=True)
class Band:
    """Low/high range of a predicted value, from the validation residuals of its regime."""

    low: float
    high: float

    @classmethod
    def around(cls, value: float, low_ratio: float, high_ratio: float) -> Band:
        return cls(low=value * low_ratio, high=value * high_ratio)

    def overlaps(self, other: Band) -> bool:
        return self.low <= other.high and other.low <= self.high


def is_close_call(band: Band, winner: Band | None, same_estimate: bool = False) -> bool:
    """A runner-up is a close call when its band overlaps the winner's, unless it rests on the winner's own estimate
    (the same GPU, count and layout at another price or under other terms): the band is the estimate's uncertainty,
    and one estimate errs the same way for both rows, so their prices order them with certainty."""
    return winner is not None and not same_estimate and band.overlaps(winner)


def win_is_contested(winner: Band | None, runners_up: Iterable[tuple[float, Band]], lowest_low_ratio: float) -> bool:
    """The winner is a close call too when any runner-up's band overlaps its own (the win is within the noise).

    Runners-up come cheapest first as (cost, band), every band at least cost × `lowest_low_ratio`; once that
    passes the winner's high end no later band can reach back, so the scan stops there. Rows that rest on the
    winner's own estimate are left out by the caller (is_close_call)."""
    if winner is None:
        return False
    for cost, band in runners_up:
        if cost * lowest_low_ratio > winner.high:
            return False
        if band.overlaps(winner):
            return True
    return False


@dataclass(frozen=True, slots=True)
class CloseCalls:
    """Which rows of a ranking are close calls, as both rankings flag them (close_calls builds it)."""

    winner: Band | None  # the winning row's band (None: nothing ranks)
    winner_estimate: Hashable  # what the winner's estimate is keyed by (rank.estimate_key)
    contested: bool  # some runner-up is a close call: the winner's own flag

    def flag(self, band: Band, estimate: Hashable, first: bool, rival: bool = True) -> bool:
        """A row's close_call. The winner's (`first`) says its win is contested; a runner-up's, that its band overlaps
        the winner's and it rests on another estimate (is_close_call). A row that is no `rival` (another tier than the
        winner's: over the latency limits, or late) is never one."""
        if not rival:
            return False
        return self.contested if first else is_close_call(band, self.winner, estimate == self.winner_estimate)


def shown_as_close_call(close_call: bool, rank: int) -> bool:
    """Whether a row is shown as a close call to the best (the close badge, the count of close calls): the best's own
    flag (rank 1) only says its win is contested, and it is no close call to itself."""
    return close_call and rank != 1


def close_calls(
    tier: Sequence[Row],
    cost_of: Callable[[Row], float],
    band_of: Callable[[Row], Band],
    estimate_of: Callable[[Row], Hashable],
    lowest_low_ratio: float,
) -> CloseCalls:
    """The close calls of a ranking whose winner is the first row of `tier`, the winner's tier best first (each row's
    ranked cost, band, and estimate key: rows with one key rest on one estimate). Runners-up are read, and banded,
    only as far as win_is_contested needs, with `lowest_low_ratio` as its bound."""
    if not tier:
        return CloseCalls(winner=None, winner_estimate=None, contested=False)
    top = tier[0]
    winner, winner_estimate = band_of(top), estimate_of(top)
    runners_up = ((cost_of(row), band_of(row)) for row in islice(tier, 1, None) if estimate_of(row) != winner_estimate)
    return CloseCalls(winner, winner_estimate, win_is_contested(winner, runners_up, lowest_low_ratio))
