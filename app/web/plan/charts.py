"""Plotly figure of the plan: monthly cost vs requests/day, dedicated steps against serverless lines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

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
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout, log_axis

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


def cost_vs_traffic(payload: dict[str, Any], traffic: Traffic, output_len: int) -> Figure:
    """Log-log: autoscaled dedicated cost as step lines, the compared serverless prices as straight lines (not the
    unverified, deprecated or excluded stale ones), the user's traffic as a dashed vertical line and the break-even
    as a marker."""
    user_rpd = payload["traffic"]["requests_per_day"]
    even = payload["break_even"]
    grid = _grid(user_rpd, even["requests_per_day"])
    mult, floor = Counter(traffic.multipliers()), max(1, traffic.min_replicas)
    traces: list[dict[str, Any]] = []
    for i, o in enumerate(_distinct(payload["options"], DEDICATED_LINES)):
        replica = rented_unit(o, output_len)
        label = f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} ({o['price_type'].replace('_', ' ')})"
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"dedicated {label}",
                "x": grid,
                "y": [autoscaled_monthly_usd(replica, r, mult, output_len, floor) for r in grid],
                "line": {"color": PALETTE[i], "shape": "hv"},
                "hovertemplate": "%{x:,.0f} req/day: $%{y:,.0f}/month<extra>" + label + "</extra>",
            }
        )
    traces += _scaled_to_zero(payload, traffic, output_len, grid)
    compared = [q for q in payload["serverless"] if q["comparable"]]  # never an unverified or deprecated price
    for j, q in enumerate(compared[:SERVERLESS_LINES]):
        label = f"{q['provider_name']} serverless{' (substitute: ' + q['model_name'] + ')' if q['substitute'] else ''}"
        doubts = [f.replace("_", " ") for f in q["flags"] if f in token_prices.DOUBTS or f == "stale"]
        label += f" ({', '.join(doubts)})" if doubts else ""
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": label,
                "x": [grid[0], grid[-1]],
                "y": [serverless_monthly_usd(r, q["usd_per_request"]) for r in (grid[0], grid[-1])],
                "line": {"color": PALETTE[DEDICATED_LINES + j], "dash": "dash"},
                "hovertemplate": "%{x:,.0f} req/day: $%{y:,.0f}/month<extra>" + label + "</extra>",
            }
        )
    zero = payload["break_even_scale_to_zero"] or {}
    marks = [(even, "break-even", "diamond")]
    if zero.get("requests_per_day") and round(zero["requests_per_day"]) != round(even["requests_per_day"] or 0):
        marks.append((zero, "break-even scaled to zero", "diamond-open"))
    for mark, name, symbol in marks:
        if mark["requests_per_day"] and payload["cheapest_serverless"]:
            rpd = mark["requests_per_day"]
            best = payload["cheapest_serverless"]["usd_per_request"]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": name,
                    "x": [rpd],
                    "y": [serverless_monthly_usd(rpd, best)],
                    "marker": {"symbol": symbol, "size": 13, "color": "#1b1f24"},
                    "hovertemplate": name + ": %{x:,.0f} req/day, $%{y:,.0f}/month<extra></extra>",
                }
            )
    shapes = [
        {
            "type": "line",
            "x0": user_rpd,
            "x1": user_rpd,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": "#a3262a", "dash": "dot"},
        }
    ]
    notes = [
        {
            "x": _log10(user_rpd),
            "yref": "paper",
            "y": 1,
            "text": "your traffic",
            "showarrow": False,
            "xanchor": "left",
            "font": {"color": "#a3262a"},
        }
    ]
    return {
        "data": traces,
        "layout": layout(
            height=420,
            xaxis=log_axis("requests per day (mean over the week)", [*grid, user_rpd]),
            yaxis=log_axis("$ per month", [y for trace in traces for y in trace["y"]], prefix="$"),
            shapes=shapes,
            annotations=notes,
            legend={"orientation": "h", "y": -0.25},
        ),
    }


def _scaled_to_zero(payload: dict[str, Any], traffic: Traffic, output_len: int, grid: list[float]) -> list[Any]:
    """The lead option scaled to zero (dash-dot), where that costs less than autoscaling it at the user's traffic."""
    options = payload["options"]
    if not options or options[0]["monthly_usd_scale_to_zero"] >= options[0]["monthly_usd_autoscaled"]:
        return []
    o = options[0]
    replica = rented_unit(o, output_len)
    label = f"{o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} scaled to zero"
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"dedicated {label}",
            "x": grid,
            "y": [scale_to_zero_monthly_usd(replica, r, traffic, output_len) for r in grid],
            "line": {"color": PALETTE[0], "dash": "dashdot"},
            "hovertemplate": "%{x:,.0f} req/day: $%{y:,.0f}/month<extra>" + label + "</extra>",
        }
    ]


def _log10(value: float) -> float:
    """Plotly places annotations on a log axis by the exponent."""
    import math

    return math.log10(value)
