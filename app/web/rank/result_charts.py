"""The results block's charts: their numbers from app.service.charts.rank_charts (which configurations, what values),
drawn here as Plotly JSON beside their tables: cost scatter, operating curves and memory for inference; cost
scatter, memory and the deadline frontier for training."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.charts import rank_charts
from app.service.charts.rank_charts import RankChart, config_curves, leaders_of
from app.web.rank import charts as rc
from app.web.rank import curve_charts as cc
from app.web.rendering.charts import Figure, to_json_block

__all__ = ["config_curves", "drawn", "inference_charts", "leaders_of", "training_charts"]

DRAW: dict[str, Callable[[Any], Figure]] = {
    "job": rc.cost_scatter_figure,
    "cost-step": rc.cost_scatter_figure,
    "cost-latency": cc.cost_latency_figure,
    "throughput-batch": cc.throughput_figure,
    "memory": rc.memory_figure,
    "frontier": rc.frontier_figure,
}


def drawn(charts: list[RankChart]) -> list[dict[str, Any]]:
    """Each chart's id, caption, figure (`json`) and numbers (`table`: the page's no-JavaScript table and the JSON
    twin's `charts` entry)."""
    return [
        {
            "id": chart.chart_id,
            "label": chart.label,
            "json": to_json_block(DRAW[chart.chart_id](chart.numbers)),
            "table": chart.table().model_dump(),
        }
        for chart in charts
    ]


def inference_charts(
    payload: dict[str, Any],
    leaders: Sequence[dict[str, Any]],
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
) -> list[dict[str, Any]]:
    return drawn(rank_charts.inference_charts(payload, leaders, workload, snapshot, model))


def training_charts(
    payload: dict[str, Any],
    leaders: Sequence[dict[str, Any]],
    workload: TrainingWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
) -> list[dict[str, Any]]:
    return drawn(rank_charts.training_charts(payload, leaders, workload, snapshot, model))
