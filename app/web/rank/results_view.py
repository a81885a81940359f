"""Turn a rank payload into what the results block shows: rows, groups, summary and charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.web.charts import to_json_block
from app.web.rank import charts as rc

TABLE_ROWS = 25
CURVE_CONFIGS = 4
MEMORY_CONFIGS = 5


def infeasible_groups(options: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per (GPU, count, reason) instead of one per offer."""
    groups: dict[tuple[str, int, str], dict[str, Any]] = {}
    for option in options:
        if option["feasible"]:
            continue
        key = (option["gpu_id"], option["gpu_count"], option["reason"])
        group = groups.setdefault(key, {"gpu_id": key[0], "gpu_count": key[1], "reason": key[2], "offers": 0})
        group["offers"] += 1
    return list(groups.values())


def distinct_configs(options: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The best option of the first n distinct (GPU, count) configurations."""
    seen: dict[tuple[str, int], dict[str, Any]] = {}
    for option in options:
        key = (option["gpu_id"], option["gpu_count"])
        if option["feasible"] and key not in seen:
            seen[key] = option
        if len(seen) >= n:
            break
    return list(seen.values())


def inference_charts(
    payload: dict[str, Any], workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> list[dict[str, str]]:
    options = payload["options"]
    top = distinct_configs(options, CURVE_CONFIGS)
    charts = []
    if top:
        curves = _curves(top, workload, snapshot, model)
        priced = [
            (label, o["usd_per_gpu_hour"] * o["gpu_count"], points)
            for o, (label, points) in zip(top, curves, strict=True)
        ]
        operating = [
            (label, o["tpot_ms"], o["usd_per_million_output_tokens"]) for o, (label, _) in zip(top, curves, strict=True)
        ]
        charts.append(
            {
                "id": "cost-latency",
                "label": "$ per million output tokens vs time per output token as the "
                "batch grows, for the top configurations at their cheapest offer; stars mark the chosen "
                "operating points, the dotted line the Pareto front, the dashed line the TPOT limit",
                "json": to_json_block(rc.cost_latency_curves(priced, operating, workload.tpot_ms)),
            }
        )
        charts.append(
            {
                "id": "throughput-batch",
                "label": "Output tokens/s vs batch for the top configurations; dotted where TPOT exceeds the limit",
                "json": to_json_block(rc.throughput_curves(curves, workload.tpot_ms)),
            }
        )
    memory = distinct_configs(options, MEMORY_CONFIGS)
    if memory:
        rows = [
            (f"{o['gpu_count']}×{o['gpu_id']}", o["memory_gb"], o["memory_gb"].get("capacity", 0.0)) for o in memory
        ]
        parts = [
            ("weights", "weights"),
            ("kv_cache", "KV cache at the operating batch"),
            ("reserve", "runtime reserve"),
        ]
        charts.append(
            {
                "id": "memory",
                "label": "Memory per GPU at the operating point vs capacity",
                "json": to_json_block(rc.memory_bars(rows, parts)),
            }
        )
    return charts


def _curves(
    top: Sequence[dict[str, Any]], workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> list[tuple[str, list[tuple[int, float, float]]]]:
    from app.scoring.inference.estimate import estimate_inference

    curves = []
    for option in top:
        gpu = snapshot.gpus[option["gpu_id"]]
        count, tp = option["gpu_count"], option["tensor_parallel"]
        max_batch = estimate_inference(
            gpu, count, model, workload.model_copy(update={"scenario": "max_throughput"}), tensor_parallel=tp
        ).max_batch

        def at(batch: int, gpu=gpu, count=count, tp=tp):  # type: ignore[no-untyped-def]
            fixed = workload.model_copy(update={"scenario": "fixed_batch", "batch": batch})
            return estimate_inference(gpu, count, model, fixed, tensor_parallel=tp)

        curves.append((f"{count}×{gpu.id}", rc.curve_points(at, max_batch)))
    return curves


def training_charts(
    payload: dict[str, Any], workload: TrainingWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> list[dict[str, str]]:
    from app.scoring.training.estimate import estimate_training

    options = payload["options"]
    charts = [
        {
            "id": "cost-step",
            "label": "$ per step vs step time for the best offer of the top configurations; bars show the band, "
            "the dotted line is the Pareto front",
            "json": to_json_block(
                rc.cost_scatter(
                    options, "step_time_s", "usd_per_step", "step time (s)", "$ / step", band_of="usd_per_step"
                )
            ),
        },
    ]
    if payload.get("frontier"):
        deadline = float(payload.get("deadline_days") or workload.max_days)
        charts.append(
            {
                "id": "frontier",
                "label": f"What scaling out buys: days to finish and total cost per GPU count for the leading "
                f"machines; the dashed line is the {deadline:g}-day deadline",
                "json": to_json_block(rc.frontier_chart(payload["frontier"], deadline)),
            }
        )
    memory = distinct_configs(options, MEMORY_CONFIGS)
    if memory:
        rows = []
        for option in memory:
            gpu = snapshot.gpus[option["gpu_id"]]
            est = estimate_training(gpu, option["gpu_count"], model, workload)
            rows.append((f"{option['gpu_count']}×{gpu.id}", dict(est.memory_breakdown_gb), gpu.memory_gb))
        keys = list(dict.fromkeys(k for _, breakdown, _ in rows for k in breakdown if k not in ("total", "usable")))
        charts.append(
            {
                "id": "memory",
                "label": "Memory per GPU for the chosen layout vs capacity",
                "json": to_json_block(rc.memory_bars(rows, [(k, k.replace("_", " ")) for k in keys])),
            }
        )
    return charts
