"""A ranking's point and bar charts in numbers: cost against time for the leading configurations (with their bands and
the Pareto front), memory per GPU against the card, and the training deadline frontier."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.explain import fixed, significant
from app.scoring.training.run.limit_words import days_text
from app.service.charts.tables import BarSeries, ChartTable, Series, categories_table, points_table

SCATTER_CONFIGS = 12
MEMORY_TITLE = "GB per GPU"


@dataclass(frozen=True, kw_only=True)
class BandedPoints(Series):
    """One GPU's configurations: `text` names each (count × GPU · provider (terms)); `above`/`below` the band's reach
    from each point in the plotted unit (empty where the ranking gives no band)."""

    text: list[str]
    above: list[float]
    below: list[float]


@dataclass(frozen=True, kw_only=True)
class CostScatter:
    points: list[BandedPoints]  # a series per GPU, in the order first ranked
    front: Series | None  # the Pareto front over every point
    x_title: str
    y_title: str
    x_from_zero: bool
    y_reach: list[float]  # the plotted values and their bands' ends: what the y axis must span

    def table(self) -> ChartTable:
        series = [*self.points, *([self.front] if self.front else [])]
        return points_table(series, self.x_title, self.y_title)


def pareto_front(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points not beaten on both axes (lower x and lower y are better), sorted by x."""
    front: list[tuple[float, float]] = []
    for x, y in sorted(points):
        if not front or y < front[-1][1]:
            front.append((x, y))
    return front


def front_series(points: Sequence[tuple[float, float]]) -> Series | None:
    front = pareto_front(points)
    return Series(name="Pareto front", x=[p[0] for p in front], y=[p[1] for p in front]) if front else None


def cost_scatter(
    options: Sequence[dict[str, Any]],
    x_key: str,
    y_key: str,
    x_title: str,
    y_title: str,
    band_of: str,
    configs: int = SCATTER_CONFIGS,
    x_from_zero: bool = True,
) -> CostScatter:
    """The best offer of each of the top configurations (a series per GPU), its band (of `band_of`, scaled to
    `y_key`), and the Pareto front."""
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for option in options:
        key = (option["gpu_id"], option["gpu_count"])
        if option["feasible"] and option.get(x_key) and option.get(y_key) and key not in best:
            best[key] = option
        if len(best) >= configs:
            break
    chosen = list(best.values())
    series = []
    for gpu_id in dict.fromkeys(o["gpu_id"] for o in chosen):
        rows = [o for o in chosen if o["gpu_id"] == gpu_id]
        banded = bool(rows[0].get("band"))
        series.append(
            BandedPoints(
                name=gpu_id,
                x=[o[x_key] for o in rows],
                y=[o[y_key] for o in rows],
                text=[f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} ({o['price_type']})" for o in rows],
                above=[o[y_key] * (o["band"]["high"] / o[band_of] - 1) for o in rows] if banded else [],
                below=[o[y_key] * (1 - o["band"]["low"] / o[band_of]) for o in rows] if banded else [],
            )
        )
    front = front_series([(o[x_key], o[y_key]) for o in chosen])
    reach = _with_band_ends(chosen, y_key, band_of)
    return CostScatter(
        points=series, front=front, x_title=x_title, y_title=y_title, x_from_zero=x_from_zero, y_reach=reach
    )


def _with_band_ends(rows: Sequence[dict[str, Any]], key: str, band_of: str) -> list[float]:
    """The plotted values and their error bars' ends: the axis's ticks span what is drawn (1-2-5 ticks where the bars
    reach a decade; on the points alone, every digit's label piled up on a ~150 px axis)."""
    values = [o[key] for o in rows]
    for o in rows:
        if o.get("band") and o.get(band_of):
            values += [o[key] * o["band"]["low"] / o[band_of], o[key] * o["band"]["high"] / o[band_of]]
    return values


@dataclass(frozen=True, kw_only=True)
class MemoryBars:
    """GB per GPU stacked by part, a row per configuration, with the card's capacity and, where the fit check allows
    less than the card, that limit."""

    parts: list[BarSeries]
    limit: BarSeries | None
    capacity: BarSeries

    def table(self) -> ChartTable:
        return categories_table([*self.parts, *([self.limit] if self.limit else []), self.capacity], MEMORY_TITLE)


def memory_bars(
    rows: Sequence[tuple[str, dict[str, float], float]],
    parts: Sequence[tuple[str, str]],
    limit: tuple[str, Sequence[float]] | None = None,
) -> MemoryBars:
    """`rows`: (label, breakdown GB, capacity GB); `parts`: (breakdown key, title); `limit`: its name and GB per row."""
    labels = [label for label, _, _ in rows]
    return MemoryBars(
        parts=[
            BarSeries(name=title, y=labels, x=[round(b.get(key, 0.0), 2) for _, b, _ in rows]) for key, title in parts
        ],
        limit=BarSeries(name=limit[0], y=labels, x=[round(gb, 2) for gb in limit[1]]) if limit else None,
        capacity=BarSeries(name="capacity", y=labels, x=[capacity for _, _, capacity in rows]),
    )


def limit_line(x: float, ys: Sequence[float], name: str) -> Series:
    """A vertical line at `x` over the values `ys` span (drawn as a trace: shapes would need log10 coordinates)."""
    return Series(name=name, x=[x, x], y=[min(ys) * 0.8, max(ys) * 1.25])


@dataclass(frozen=True, kw_only=True)
class FrontierLine(Series):
    """One machine's runs: `x` days to finish, `y` total $ per GPU count; `text` each point's words; `nth_of_gpu` how
    many lines of the same GPU come before it (drawn with another dash and marker)."""

    text: list[str]
    nth_of_gpu: int


@dataclass(frozen=True, kw_only=True)
class FrontierChart:
    lines: list[FrontierLine]
    deadline: Series | None
    days_reach: list[float]
    totals_usd: list[float]
    cents: bool  # a run under $10 is said to the cent

    def table(self) -> ChartTable:
        return points_table([*self.lines, *([self.deadline] if self.deadline else [])], "days to finish", "total $")


def frontier_lines(points: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The frontier's points by machine, named. Points come machine by machine, GPU counts rising: a count that does
    not rise starts the next machine, which may be the same GPU from the same seller at another price (one line
    for both zig-zagged between them); such lines are told apart by their $/GPU-hour."""
    runs: list[list[dict[str, Any]]] = []
    for p in points:
        run = runs[-1] if runs else None
        if run and _offer_name(run[-1]) == _offer_name(p) and p["gpu_count"] > run[-1]["gpu_count"]:
            run.append(p)
        else:
            runs.append([p])
    names = [_offer_name(run[0]) for run in runs]
    lines: dict[str, list[dict[str, Any]]] = {}
    for name, run in zip(names, runs, strict=True):
        if names.count(name) > 1:
            first = run[0]
            price = first["total_usd"] / (first["days"] * 24 * first["gpu_count"])
            name = f"{name}, ${fixed(price, 2)}/GPU-h"
        lines.setdefault(name, []).extend(run)
    return lines


def _offer_name(p: dict[str, Any]) -> str:
    return f"{p['gpu_id']} · {p['provider_name']} ({p['price_type'].replace('_', ' ')})"


def frontier(points: Sequence[dict[str, Any]], deadline_days: float) -> FrontierChart:
    """What scaling out buys: total cost against days, a line per leading machine, a point per GPU count; the
    deadline as a vertical line."""
    lines = []
    seen_per_gpu: dict[str, int] = {}
    for name, rows in frontier_lines(points).items():
        rows = sorted(rows, key=lambda p: p["gpu_count"])
        nth = seen_per_gpu[rows[0]["gpu_id"]] = seen_per_gpu.get(rows[0]["gpu_id"], -1) + 1  # same GPU, other offer
        # the run's length as its row says it: a 15T-token run hovered "2,446 days", a 20-min one "0.0139 days"
        text = [
            f"{p['gpu_count']} GPU" + ("s" if p["gpu_count"] != 1 else "") + f"<br>{days_text(p['days'])}" for p in rows
        ]
        lines.append(
            FrontierLine(
                name=name, x=[p["days"] for p in rows], y=[p["total_usd"] for p in rows], text=text, nth_of_gpu=nth
            )
        )
    totals = [p["total_usd"] for p in points]
    deadline = limit_line(deadline_days, totals, f"deadline {significant(deadline_days)} days") if totals else None
    return FrontierChart(
        lines=lines,
        deadline=deadline,
        days_reach=[*(p["days"] for p in points), deadline_days],
        totals_usd=totals,
        cents=min(totals, default=10) < 10,  # a $1.36 run read "$1"
    )
