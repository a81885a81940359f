"""How an estimate explains itself: named terms with units, and an uncertainty band."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Generic, TypeVar

Row = TypeVar("Row")
Value = TypeVar("Value")


@dataclass(frozen=True, slots=True)
class Term:
    """One line of an explanation: `decode weight read = 8.4 ms (70.6 GB / (4 × 3.35 TB/s × 0.62))`."""

    name: str
    value: float
    unit: str
    detail: str = ""


class WrittenOnce(Generic[Value]):
    """A value written when first read, then kept: an estimate's refusal words and memory footprint, which a ranking
    writes for every layout it refuses and shows for about one in five (the refusal that explains its machine). Like
    LazyTerms, two threads reading at once may both write it (the same value); equal to an equal value or another
    WrittenOnce of one."""

    __slots__ = ("_value", "_write")

    def __init__(self, write: Callable[[], Value]) -> None:
        self._write: Callable[[], Value] | None = write
        self._value: Value | None = None

    def read(self) -> Value:
        if self._value is None:
            write = self._write
            if write is not None:
                self._value = write()
                self._write = None  # what the writer held (operating points, the context) may go
        assert self._value is not None
        return self._value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WrittenOnce):
            other = other.read()
        return bool(self.read() == other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WrittenOnce({self.read()!r})"


def read_once(value: Value | WrittenOnce[Value]) -> Value:
    """`value`, or what it writes where it is written on the first read."""
    return value.read() if isinstance(value, WrittenOnce) else value


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
    value += 0.0  # -0.0 (a sign flipped on a zero) reads 0.0, not -0.0
    text = f"{value:{',' if thousands else ''}.{decimals}f}"
    # at 1 or more (inf too) no rounding shows 0: the text is read back only for the values that might
    if value >= 1.0 or value <= -1.0 or value == 0 or not math.isfinite(value) or float(text.replace(",", "")) != 0:
        return text
    places = 1 - math.floor(math.log10(abs(value)))  # two significant figures, no exponent
    return f"{value:.{places}f}".rstrip("0")


def significant(value: float, figures: int = 6) -> str:
    """`value` to at most `figures` significant figures as `:g` writes it (trailing zeros dropped), never in exponent
    form and with thousands separators: 1e6 → '1,000,000' (not '1e+06'), 12345 at 3 → '12,300' (not '1.23e+04'),
    0.00001 → '0.00001', 2.50 → '2.5'. For numbers a person gave or a source states, written as given."""
    if value == 0 or not math.isfinite(value):
        return f"{value + 0.0:g}"
    places = figures - 1 - math.floor(math.log10(abs(value)))
    text = f"{round(value, places):,.{max(places, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def signed(value: float, decimals: int = 1) -> str:
    """`value` through fixed with its sign always written: '+12.5', '−3.0' reads '-3.0', and a zero '0.0', never
    '-0.0' or '+0.0' (a signed error of -0.04 % at one place read '-0.0')."""
    text = fixed(value, decimals)
    return text if text.startswith("-") or float(text.replace(",", "")) == 0 else f"+{text}"


def usd_places(amount_usd: float) -> int:
    """The places an amount of dollars (a job's, a run's, a month's) is written with: whole dollars from $10
    ('$71,772', not '$71,772.01'), cents below ('$0.11': a 10-step smoke test billed $0.11 read '$0')."""
    return 0 if abs(amount_usd) >= 10 else 2


def money_places(value: float, most: int) -> int:
    """The places a price is shown with: `most` (a ranking's $/M tokens at 3, $/step at 4), fewer as it grows, so
    it shows four significant figures at most but never less than cents: $0.179 and $0.0117 keep theirs, $19.952/M
    reads $19.95 and $21.6161 a step $21.62. `most` under 2 (whole dollars) is kept."""
    if value == 0 or not math.isfinite(value):
        return most
    return min(most, max(2, 3 - math.floor(math.log10(abs(value)))))


def usd_amount(amount_usd: float) -> str:
    """An amount of dollars as a buyer reads it, to usd_places: '$71,772', '$9.99', '$0.0004'."""
    return f"${fixed(amount_usd, usd_places(amount_usd))}"


def usd_per_mtok(value: float) -> str:
    """A per-million-token price as price lists write it: cents at least, more digits where the price has them
    ($0.90, $2.30, $0.037), never '$0.9' or an exponent."""
    return usd_price(value)


def usd_price(value: float) -> str:
    """A price as given or listed ($ per GPU-hour, per kWh): cents at least, more digits where it has them ($2.50,
    $0.1234), never '$2.5'."""
    return f"${fixed(value, 2)}" if round(value, 2) == value else f"${significant(value)}"


def usd_shown(value: float, most_places: int) -> str:
    """A computed price as the ranking's rows show it (money_places; the pages' usd macro): $0.700 and $0.699 per
    million at 3 places, never '$0.7' (found by qa33)."""
    return f"${fixed(value, money_places(value, most_places))}"


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


SECONDS_PER_YEAR = 365.25 * 86_400.0  # a Julian year: the mean calendar year, leap days included


def duration_text(seconds: float) -> str:
    """Seconds in the unit a person reads them in: s up to two minutes, then minutes, hours, days, and years from one
    year (a 1e9-request job read "5,511 days")."""
    if seconds >= SECONDS_PER_YEAR:
        years = seconds / SECONDS_PER_YEAR
        return f"{fixed(years, 1 if years < 10 else 0)} years"
    for unit, size in (("days", 86_400.0), ("h", 3_600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            value = seconds / size
            return f"{fixed(value, 1 if value < 10 else 0)} {unit}"
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
