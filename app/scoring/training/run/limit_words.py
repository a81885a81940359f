"""The words a training row gives its limits in, meaningful at any scale: a deadline of 0.0001 days read "finishes
in 0.0 days, after the 0.0001-day deadline", a $0.01 budget "over the $0 budget", and spot at 1,000 interruptions a
node-month "would waste 11541% of the run at 1 nodes"."""

from __future__ import annotations

from app.scoring.explain import SECONDS_PER_YEAR, duration_text, figure, fixed, percent, significant

SECONDS_PER_DAY = 86_400.0
SLOW_END = "at its band's slow end"  # where a run is checked at its tokens/s band's low end (limits_at band_high)


def plural(count: float, word: str) -> str:
    """`1 node`, `8 nodes`, `1,024 nodes`."""
    return f"{significant(count)} {word}" + ("" if count == 1 else "s")


def days_text(days: float) -> str:
    """A run's length: `67.6 days` from a day up (as rows always said), in years from a year (duration_text's `6.7
    years`: a 15T-token pretraining on 8 GPUs read "2,445.6 days"), else in the unit a person reads it in (`2.3 h`,
    `14 min`, `86 s`, `8.6 s`, `0.086 s`), never `0.0 days`."""
    seconds = days * SECONDS_PER_DAY
    if seconds >= SECONDS_PER_YEAR:
        return duration_text(seconds)
    if days >= 1:
        return f"{fixed(days, 1)} days"
    return f"{figure(seconds, 2)} s" if seconds < 10 else duration_text(seconds)


def interruptions_text(expected: float) -> str:
    """Spot interruptions expected over a run, as a row gives them beside its length: `<0.1` below 0.05 (never `0`
    or `0.0`: a spot run may be interrupted), `0.4` below one, whole numbers from one."""
    return "<0.1" if expected < 0.05 else fixed(expected, 1 if expected < 1 else 0)


# Days in each unit days_text writes a length in, and the most decimals past_deadline_text adds to tell two apart.
DAYS_PER_YEAR = SECONDS_PER_YEAR / SECONDS_PER_DAY
UNIT_DAYS = {"years": DAYS_PER_YEAR, "days": 1.0, "h": 1 / 24, "min": 1 / 1440, "s": 1 / SECONDS_PER_DAY}
MOST_DECIMALS = 4


def past_deadline_text(finish_days: float, max_days: float) -> str:
    """A finish past the deadline, with the digits that tell the two apart: days_text's "18 min" after an 18-minute
    deadline reads "18.3 min" (it read "finishes in 18 min, after the 18 min deadline"), "30.0 days" after a 30-day one
    "30.04 days"; days_text's own words where they already differ."""
    text = days_text(finish_days)
    number, _, unit = text.partition(" ")
    size = UNIT_DAYS.get(unit)
    if size is None:
        return text
    decimals = len(number.partition(".")[2])
    value, deadline = finish_days / size, max_days / size
    while round(value, decimals) <= round(deadline, decimals) and decimals < MOST_DECIMALS:
        decimals += 1
    return text if decimals == len(number.partition(".")[2]) else f"{value:,.{decimals}f} {unit}"


def deadline_text(max_days: float, finish: str = "") -> str:
    """`30-day deadline` from a day up; below it the deadline in hours, minutes or seconds: `8.6 s deadline`. Beside a
    `finish` (past_deadline_text) that its own figure does not precede, the deadline has the finish's digits: "finishes
    in 15.878 min, after the 15.877 min deadline" (it read "after the 16 min deadline", the later figure)."""
    if max_days >= 1:
        return f"{significant(max_days)}-day deadline"
    text = days_text(max_days)
    number, _, unit = finish.partition(" ")
    shown, _, own_unit = text.partition(" ")
    if unit in UNIT_DAYS and unit == own_unit and _figure_of(shown) >= _figure_of(number):  # reads no earlier
        text = f"{max_days / UNIT_DAYS[unit]:,.{len(number.partition('.')[2])}f} {unit}"
    return f"{text} deadline"


def _figure_of(text: str) -> float:
    return float(text.replace(",", ""))


def usd_text(usd: float) -> str:
    """Dollars as a bill reads them: whole dollars from $100, cents below, two figures under a cent ($0.0040)."""
    if usd >= 100:
        return f"${fixed(usd, 0)}"
    return f"${fixed(usd, 2)}" if usd >= 0.01 else f"${figure(usd, 2)}"


def over_budget_text(total_usd: float, budget_usd: float, where: str = "") -> str:
    """`costs $42.17, over the $0.01 budget`, with the digits that tell the two apart ($1,234.40 over $1,234.00);
    `where`: said after the cost (` at its band's slow end`)."""
    cost, budget = usd_text(total_usd), usd_text(budget_usd)
    decimals = 2
    while cost == budget and decimals <= 6:
        cost, budget = f"${total_usd:,.{decimals}f}", f"${budget_usd:,.{decimals}f}"
        decimals += 2
    return f"costs {cost}{where}, over the {budget} budget"


def spot_waste_text(lost_share: float, nodes: int, interruptions_per_hour: float, loss_hours: float) -> str:
    """Why spot cannot carry the run: the share of it lost, or (at or past the whole run) that interruptions undo
    work faster than it is done, with how often they come and what each costs."""
    at = f"at {plural(nodes, 'node')}"
    if lost_share < 1:
        return f"spot interruptions would waste {percent(lost_share)} of the run {at}"
    every = duration_text(3600 / interruptions_per_hour)
    return (
        f"spot interruptions would lose work faster than the run makes it {at} (one every {every}, each costing "
        f"{duration_text(loss_hours * 3600)} of work and restart): it would never finish"
    )


def deadline_at_risk_text(
    wall_hours: float,
    slow_end_hours: float,
    total_usd_high: float,
    max_days: float,
    budget_usd: float | None,
    startup_hours: float = 0.0,
) -> str:
    """What an on-time run would miss at its band's slow end (`slow_end_hours`: the run's hours after its
    `startup_hours`, which do not scale, × tok/s ÷ band low; `total_usd_high`: its billed band's high), in words; ''
    where it misses nothing there."""
    missed = []
    finish_hours = startup_hours + (wall_hours - startup_hours) * slow_end_hours
    if finish_hours > max_days * 24:
        finish = past_deadline_text(finish_hours / 24, max_days)
        missed.append(f"finishes in {finish} {SLOW_END}, over the {deadline_text(max_days, finish)}")
    if budget_usd is not None and total_usd_high > budget_usd:
        missed.append(over_budget_text(total_usd_high, budget_usd, f" {SLOW_END}"))
    return "; ".join(missed)
