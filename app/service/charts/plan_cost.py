"""The plan's chart in numbers: monthly cost vs requests per day, each dedicated option autoscaled (one more replica
per step), the cheapest scaled to zero where that saves, the compared serverless prices and the break-even; built from
the serving plan's body (POST /api/v1/plan/serving), so the API, the CLI's --json, /plan and /plan.json read one
computation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.scoring.hardware.machines import rented_gpus
from app.scoring.pricing import token_prices
from app.scoring.pricing.price_terms import COMMITTED
from app.scoring.serving.plans.break_even import (
    BREAK_EVEN_MAX_REQUESTS_PER_DAY,
    BREAK_EVEN_MIN_REQUESTS_PER_DAY,
    Replica,
    autoscaled_monthly_usd,
    scale_to_zero_monthly_usd,
)
from app.scoring.serving.plans.options import request_seconds, sustained_tokens_per_s
from app.scoring.serving.serverless.quotes import serverless_monthly_usd
from app.scoring.serving.traffic.week import Traffic
from app.service.charts.tables import ChartTable, Series, points_table

CHART_MIN_REQUESTS_PER_DAY = 1e3
CHART_MAX_REQUESTS_PER_DAY = 1e8
CHART_POINTS = 161  # 32 per decade: steps of one replica stay visible at low traffic
DEDICATED_LINES = 3
SERVERLESS_LINES = 3
CHART_ID = "cost-traffic"
CHART_LABEL = (
    "Monthly cost vs requests per day (log–log): dedicated options autoscaled as steps (one more replica per step), "
    "the cheapest scaled to zero dash-dotted where that saves, serverless as dashed lines, your traffic dotted, the "
    "break-even as a diamond (open: scaled to zero)"
)
X_TITLE = "requests per day (mean over the week)"
Y_TITLE = "$ per month"

CostKind = Literal["dedicated", "scaled_to_zero", "serverless", "break_even", "break_even_scaled_to_zero"]


@dataclass(frozen=True, kw_only=True)
class CostSeries(Series):
    """One line or marker: `x` requests per day, `y` $ per month; `label` the option as its hover names it."""

    kind: CostKind
    label: str


@dataclass(frozen=True, kw_only=True)
class CostTrafficChart:
    series: list[CostSeries]
    requests_per_day_grid: list[float]  # the x axis's span, log-spaced
    user_requests_per_day: float

    def table(self) -> ChartTable:
        """The chart's `charts` entry: (series, requests per day, $ per month) rows, long curves thinned."""
        table = points_table(self.series, X_TITLE, Y_TITLE)
        return table.model_copy(update={"chart_id": CHART_ID, "label": CHART_LABEL})


def cost_vs_traffic(payload: dict[str, Any], traffic: Traffic, output_len: int) -> CostTrafficChart:
    """Autoscaled dedicated cost as steps (the first DEDICATED_LINES distinct options of the payload's), the lead
    scaled to zero, the compared serverless prices (not the unverified, deprecated or excluded stale ones) and the
    break-even points."""
    user_rpd = payload["traffic"]["requests_per_day"]
    grid = _grid(user_rpd, payload["break_even"]["requests_per_day"])
    mult, floor = Counter(traffic.multipliers()), max(1, traffic.min_replicas)
    series: list[CostSeries] = []
    for o in _distinct(payload["options"], DEDICATED_LINES):
        replica = rented_unit(o, output_len)
        label = f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} ({o['price_type'].replace('_', ' ')})"
        costs = [autoscaled_monthly_usd(replica, r, mult, output_len, floor) for r in grid]
        series.append(CostSeries(name=f"dedicated {label}", label=label, kind="dedicated", x=grid, y=costs))
    series += _scaled_to_zero(payload, traffic, output_len, grid)
    series += _serverless(payload, grid)
    series += _break_even_points(payload)
    return CostTrafficChart(series=series, requests_per_day_grid=grid, user_requests_per_day=user_rpd)


def chart_tables(payload: dict[str, Any], traffic: Traffic, output_len: int) -> list[dict[str, Any]]:
    """The serving body's `charts`."""
    return [cost_vs_traffic(payload, traffic, output_len).table().model_dump()]


def _grid(user_rpd: float, break_even: float | None) -> list[float]:
    """Around the user's traffic and the break-even; with no break-even, over the whole range its search covered,
    so the axis reaches the traffic the answer names ("serverless is cheaper … up to 1,000,000,000")."""
    searched = (BREAK_EVEN_MIN_REQUESTS_PER_DAY, BREAK_EVEN_MAX_REQUESTS_PER_DAY) if break_even is None else (1e9, 0)
    lo = min(CHART_MIN_REQUESTS_PER_DAY, user_rpd / 3, (break_even or 1e9) / 3, searched[0])
    hi = max(CHART_MAX_REQUESTS_PER_DAY, user_rpd * 3, (break_even or 0) * 3, searched[1])
    ratio = (hi / lo) ** (1 / (CHART_POINTS - 1))
    return [lo * ratio**i for i in range(CHART_POINTS)]


def _distinct(options: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The best row of the first n distinct (GPU, count, provider) choices."""
    seen: dict[tuple, dict[str, Any]] = {}
    for o in options:
        seen.setdefault((o["gpu_id"], o["gpu_count"], o["provider"]), o)
        if len(seen) >= n:
            break
    return list(seen.values())


def rented_unit(option: dict[str, Any], output_len: int) -> Replica:
    """What the autoscaler adds for a plan row, as the plan prices it: a whole rented instance with every copy of the
    layout it holds (a 2-GPU layout on a 4-GPU instance bills 4 GPUs and serves two copies' tokens)."""
    gpus = rented_gpus(option["instance_gpus"] or option["gpu_count"], option["gpu_count"])
    copies = option["copies_per_instance"] or 1
    committed = option["price_type"] in COMMITTED  # billed always on at the peak fleet
    request_s = request_seconds(option["ttft_ms"], option["tpot_ms"], output_len)
    tokens_per_s = sustained_tokens_per_s(option["requests_per_s"] * copies, output_len)
    return Replica("", gpus, option["usd_per_gpu_hour"], tokens_per_s, committed, request_s)


def _scaled_to_zero(payload: dict[str, Any], traffic: Traffic, output_len: int, grid: list[float]) -> list[CostSeries]:
    """The lead option scaled to zero, where that costs less than autoscaling it at the user's traffic."""
    options = payload["options"]
    if not options or options[0]["monthly_usd_scale_to_zero"] >= options[0]["monthly_usd_autoscaled"]:
        return []
    o = options[0]
    replica = rented_unit(o, output_len)
    label = f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} scaled to zero"
    costs = [scale_to_zero_monthly_usd(replica, r, traffic, output_len) for r in grid]
    return [CostSeries(name=f"dedicated {label}", label=label, kind="scaled_to_zero", x=grid, y=costs)]


def _serverless(payload: dict[str, Any], grid: list[float]) -> list[CostSeries]:
    """The first SERVERLESS_LINES compared prices (never an unverified or deprecated one) as straight lines."""
    series = []
    for q in [q for q in payload["serverless"] if q["comparable"]][:SERVERLESS_LINES]:
        label = f"{q['provider_name']} serverless{' (substitute: ' + q['model_name'] + ')' if q['substitute'] else ''}"
        doubts = [f.replace("_", " ") for f in q["flags"] if f in token_prices.DOUBTS or f == "stale"]
        label += f" ({', '.join(doubts)})" if doubts else ""
        ends = [grid[0], grid[-1]]
        costs = [serverless_monthly_usd(r, q["usd_per_request"]) for r in ends]
        series.append(CostSeries(name=label, label=label, kind="serverless", x=ends, y=costs))
    return series


def _break_even_points(payload: dict[str, Any]) -> list[CostSeries]:
    """The break-even against the cheapest serverless price, and scaled to zero where that moves it."""
    even, zero = payload["break_even"], payload["break_even_scale_to_zero"] or {}
    marks: list[tuple[dict[str, Any], str, CostKind]] = [(even, "break-even", "break_even")]
    if zero.get("requests_per_day") and round(zero["requests_per_day"]) != round(even["requests_per_day"] or 0):
        marks.append((zero, "break-even scaled to zero", "break_even_scaled_to_zero"))
    cheapest = payload["cheapest_serverless"]
    return [
        CostSeries(
            name=name,
            label=name,
            kind=kind,
            x=[mark["requests_per_day"]],
            y=[serverless_monthly_usd(mark["requests_per_day"], cheapest["usd_per_request"])],
        )
        for mark, name, kind in marks
        if mark["requests_per_day"] and cheapest
    ]
