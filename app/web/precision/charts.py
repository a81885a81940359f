"""Plotly figure of the precision comparison: the ranked cost of each precision's best option."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import fixed
from app.web.rank.charts import PALETTE
from app.web.rendering.charts import Figure, layout


def _latency_words(best: dict[str, Any]) -> str:
    """The means and, as the ranking's rows give them, the p99s the limits are checked against."""
    ttft = f"TTFT {fixed(best['ttft_mean_ms'], 0)} ms (p99 {fixed(best['ttft_p99_ms'], 0)})"
    return f"mean {ttft} · TPOT {fixed(best['tpot_mean_ms'], 1)} ms (p99 {fixed(best['tpot_p99_ms'], 1)})"


def cost_by_precision(payload: dict[str, Any]) -> Figure:
    """Horizontal bars, one per precision with a feasible option; hover gives the option and its latency."""
    rows = [r for r in payload["rows"] if r["best"]]
    labels = [r["label"] for r in rows]
    hover = [
        f"{r['best']['gpu_count']}×{r['best']['gpu_id']} · {r['best']['provider_name']}<br>"
        f"{_latency_words(r['best'])}<br>weights {fixed(r['weights_gb'], 1)} GB"
        for r in rows
    ]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [r["best"]["ranked_cost"] for r in rows],
        "customdata": hover,
        "marker": {"color": [PALETTE[i % len(PALETTE)] for i in range(len(rows))]},
        "hovertemplate": "%{y}: $%{x:.3f}<br>%{customdata}<extra></extra>",
    }
    return {
        "data": [trace],
        "layout": layout(
            height=max(240, 48 * len(rows) + 90),
            xaxis={"title": {"text": payload["ranked_unit"]}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
            margin={"l": 10, "r": 20, "t": 10, "b": 50},
        ),
    }
