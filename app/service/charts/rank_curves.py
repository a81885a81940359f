"""Each leading configuration's operating curve in numbers: throughput vs batch, and cost vs latency along the curve,
with the point the ranking chose, the Pareto front and the TPOT limit the answer is held to."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.scoring.inference.batching.curves import CurvePoint, TpotLine
from app.service.charts.rank_points import front_series, limit_line
from app.service.charts.tables import ChartTable, Series, points_table

THROUGHPUT_X_TITLE = "concurrent sequences (batch)"
THROUGHPUT_Y_TITLE = "output tokens/s per replica"
COST_X_TITLE = "mean time per output token (ms)"
COST_Y_TITLE = "$ / M output tokens"
CHOSEN = "★ chosen batch (in its curve's colour)"
OVER_KEY = "dotted: over a latency limit"


@dataclass(frozen=True, slots=True)
class ConfigCurve:
    """One configuration's operating curve (curves.operating_curve) and its answer: the point chosen, priced."""

    label: str  # "2×B200"
    points: list[CurvePoint]
    chosen: CurvePoint
    usd_per_million_chosen: float  # the answer's $ per million output tokens, at its cheapest offer

    def usd_per_million(self, point: CurvePoint) -> float:
        """$/M at another batch at the same hourly price: cost scales as 1 / tokens per second."""
        return self.usd_per_million_chosen * self.chosen.output_tokens_per_s / point.output_tokens_per_s

    def shape(self) -> tuple[tuple[float, float, float], ...]:
        return tuple((p.batch, float(f"{p.output_tokens_per_s:.4g}"), float(f"{p.tpot_ms:.4g}")) for p in self.points)


@dataclass(frozen=True, kw_only=True)
class CurveSeries(Series):
    """A curve's part (`within` the latency limits, or over one), its chosen point (`chosen`), the key to the dotted
    parts (`over_key`, no points), the Pareto front or the TPOT line. `curve`: the curve's place (its colour);
    `points`: the curve's points the part holds, for their batch and TPOT."""

    kind: Literal["within", "over", "chosen", "over_key", "front", "limit"]
    curve: int = -1
    group: str = ""  # the curve's label: its parts are one legend entry
    points: Sequence[CurvePoint] = ()


@dataclass(frozen=True, kw_only=True)
class CurveChart:
    """`series` in drawing order; `curves` the configurations drawn (their chosen points' batch, TPOT and price)."""

    series: list[CurveSeries]
    curves: list[ConfigCurve]
    x_title: str
    y_title: str
    x_reach: list[float]
    y_reach: list[float]

    def table(self) -> ChartTable:
        return points_table(self.series, self.x_title, self.y_title)


def curve_names(curves: Sequence[ConfigCurve]) -> list[str]:
    """Each curve's legend name; one that coincides with an earlier one says so, since it is drawn hidden under it."""
    names: list[str] = []
    seen: dict[tuple[tuple[float, float, float], ...], str] = {}
    for curve in curves:
        same = seen.setdefault(curve.shape(), curve.label)
        names.append(curve.label if same == curve.label else f"{curve.label} (same curve as {same})")
    return names


def within_and_over(
    points: Sequence[CurvePoint], tpot: TpotLine | None, label: str
) -> list[tuple[list[CurvePoint], bool, str]]:
    """A curve's points within the latency limits and over one (joined to the last within): the mean TPOT over its
    line, or the p99 TTFT over its limit (CurvePoint.meets_ttft) where a TPOT line applies. (points, over?, name)"""
    limit = tpot.tpot_ms if tpot else math.inf
    within = [p.tpot_ms <= limit * (1 + 1e-9) and (tpot is None or p.meets_ttft) for p in points]
    ok = [p for p, fine in zip(points, within, strict=True) if fine]
    over = [p for p, fine in zip(points, within, strict=True) if not fine]
    if ok and over:
        over = [ok[-1], *over]
    parts = ((ok, False, label), (over, True, f"{label} (over a latency limit)"))
    return [part for part in parts if part[0]]


def _over_key(series: Sequence[CurveSeries]) -> list[CurveSeries]:
    """One legend entry for every curve's dotted part, where there is one; no points, so the chart's numbers skip it."""
    if not any(s.kind == "over" for s in series):
        return []
    return [CurveSeries(name=OVER_KEY, kind="over_key", x=[None], y=[None])]


def _star(curve: ConfigCurve, place: int, x: float, y: float) -> CurveSeries:
    return CurveSeries(name=CHOSEN, kind="chosen", curve=place, group=curve.label, x=[x], y=[y], points=[curve.chosen])


def throughput_curves(curves: Sequence[ConfigCurve], tpot: TpotLine | None) -> CurveChart:
    """Tokens/s vs batch per configuration, its chosen batch marked."""
    parts: list[CurveSeries] = []
    stars = []
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        for subset, over, name in within_and_over(curve.points, tpot, label):
            x, y = [p.batch for p in subset], [p.output_tokens_per_s for p in subset]
            kind: Literal["within", "over"] = "over" if over else "within"
            parts.append(CurveSeries(name=name, kind=kind, curve=i, group=curve.label, x=x, y=y, points=subset))
        stars.append(_star(curve, i, curve.chosen.batch, curve.chosen.output_tokens_per_s))
    series = parts + stars + _over_key(parts)
    return CurveChart(
        series=series,
        curves=list(curves),
        x_title=THROUGHPUT_X_TITLE,
        y_title=THROUGHPUT_Y_TITLE,
        x_reach=[],
        y_reach=[],
    )


def cost_latency_curves(curves: Sequence[ConfigCurve], tpot: TpotLine | None) -> CurveChart:
    """$/M output tokens vs mean TPOT as the batch grows, per configuration at its answer's price, each with its chosen
    point, the Pareto front over every point, and the TPOT line the answer is held to (none where no limit applies)."""
    parts: list[CurveSeries] = []
    stars = []
    every: list[tuple[float, float]] = []
    for i, (curve, label) in enumerate(zip(curves, curve_names(curves), strict=True)):
        every += [(p.tpot_ms, curve.usd_per_million(p)) for p in curve.points]
        for subset, over, name in within_and_over(curve.points, tpot, label):
            x, y = [p.tpot_ms for p in subset], [curve.usd_per_million(p) for p in subset]
            kind: Literal["within", "over"] = "over" if over else "within"
            parts.append(CurveSeries(name=name, kind=kind, curve=i, group=curve.label, x=x, y=y, points=subset))
        stars.append(_star(curve, i, curve.chosen.tpot_ms, curve.usd_per_million_chosen))
    series = parts + stars + _over_key(parts)
    front = front_series(every)
    if front:
        series.append(CurveSeries(name=front.name, kind="front", x=front.x, y=front.y))
    if every and tpot:
        line = limit_line(tpot.tpot_ms, [y for _, y in every], tpot.name)
        series.append(CurveSeries(name=line.name, kind="limit", x=line.x, y=line.y))
    return CurveChart(
        series=series,
        curves=list(curves),
        x_title=COST_X_TITLE,
        y_title=COST_Y_TITLE,
        x_reach=[tpot for tpot, _ in every],
        y_reach=[usd for _, usd in every],
    )
