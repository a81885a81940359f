"""Which charts a ranking's results show and their numbers: the leading configurations (the best of the first few
distinct GPU and count pairs, or the GPUs asked for); for inference the batch job's cost, the operating curves and
memory; for training the cost per step, the deadline frontier and memory. The results page draws them, its JSON twin
carries their tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.efficiency.training import USABLE_HBM_SHARE
from app.scoring.inference.batching.curves import TpotLine
from app.scoring.inference.ranking.options import RANK_METRIC_FIELDS
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.training.run.limit_words import deadline_text
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.charts import rank_curves, rank_points
from app.service.charts.rank_curves import ConfigCurve, CurveChart
from app.service.charts.rank_points import CostScatter, FrontierChart, MemoryBars
from app.service.charts.tables import ChartTable
from app.service.operating_curves import row_curves
from app.service.rank.plain import plain_row
from app.service.rank.ranked_page import LEADING_CONFIGURATIONS

CURVE_CONFIGS = 4
MEMORY_CONFIGS = 5


@dataclass(frozen=True, kw_only=True)
class RankChart:
    chart_id: str  # job, cost-latency, throughput-batch, memory; cost-step, frontier, memory
    label: str
    numbers: CostScatter | CurveChart | MemoryBars | FrontierChart

    def table(self) -> ChartTable:
        return self.numbers.table().model_copy(update={"chart_id": self.chart_id, "label": self.label})


def leaders_of(options: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSON twin's leading configurations, as ranked_page finds them for the page: the best feasible row of each
    distinct (GPU, count) in ranked order (`rank`, whatever order a sort put the rows in)."""
    ranked = sorted((o for o in options if o["feasible"]), key=lambda o: o["rank"])
    return distinct_configs(ranked, LEADING_CONFIGURATIONS)


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


def chart_configs(options: Sequence[dict[str, Any]], n: int, gpus: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The leading configurations a chart draws: the best of each GPU asked for (a comparison draws every GPU it
    compares), then the next distinct configurations up to n."""
    firsts: dict[str, dict[str, Any]] = {}
    asked = {g.lower() for g in gpus or ()}  # the filters match GPU ids in any case
    for option in options:
        if option["feasible"] and option["gpu_id"].lower() in asked:
            firsts.setdefault(option["gpu_id"], option)
    chosen = {(o["gpu_id"], o["gpu_count"]) for o in firsts.values()}
    rest = [o for o in distinct_configs(options, n + len(chosen)) if (o["gpu_id"], o["gpu_count"]) not in chosen]
    picked = [*firsts.values(), *rest[: max(n - len(firsts), 0)]]
    order = {id(o): i for i, o in enumerate(options)}
    return sorted(picked, key=lambda o: order[id(o)])


def config_curves(
    top: Sequence[dict[str, Any]], workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> tuple[list[ConfigCurve], TpotLine | None]:
    """Each configuration's operating curve as its ranking solved it (operating_curves.row_curves), priced at its
    row's $ per million output tokens, and the TPOT line its answer is held to. A workload without a weight_dtype is
    solved at the release's, as it was ranked: solved at BF16, gpt-oss-120b's rows (MXFP4, 1×H200) drew no curve."""
    workload, _ = release_weights(workload, model, snapshot.quality)
    solved, tpot = row_curves(top, workload, snapshot, model)
    curves = []
    for curve in solved:
        row = curve.option
        label = f"{row['gpu_count']}×{row['gpu_id']}"
        curves.append(ConfigCurve(label, curve.points, curve.chosen, row["usd_per_million_output_tokens"]))
    return curves, tpot


# The charts draw the leading configurations (the best option of each leading distinct (GPU, count), from
# app.service.rank.ranked_page.ranked_page), never the page's rows: the same charts on every page, bounded in size.
def inference_charts(
    payload: dict[str, Any],
    leaders: Sequence[dict[str, Any]],
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
) -> list[RankChart]:
    charts = []
    if workload.job_requests and leaders:
        job = rank_points.cost_scatter(
            leaders,
            "job_hours",
            "job_usd",
            "job time (h)",
            "job $",
            band_of=RANK_METRIC_FIELDS[workload.ranked_by],
            x_from_zero=False,  # a deadline packs the times together
        )
        label = (
            f"The batch job of {workload.job_requests:,} requests: hours to finish and what it is billed, for the best "
            "offer of the top configurations; bars show the band, the dotted line the Pareto front"
        )
        charts.append(RankChart(chart_id="job", label=label, numbers=job))
    curves, tpot = config_curves(chart_configs(leaders, CURVE_CONFIGS, workload.gpus), workload, snapshot, model)
    if curves:
        target = "the dashed line the TPOT the answer is held to" if tpot else "no latency limit applies to this load"
        label = (
            "$ per million output tokens vs mean time per output token as the batch grows, for the top configurations "
            "at their cheapest offer; each star is the chosen batch on its own curve, the dotted line the Pareto "
            f"front, {target}"
        )
        charts.append(
            RankChart(chart_id="cost-latency", label=label, numbers=rank_curves.cost_latency_curves(curves, tpot))
        )
        over = "; dotted where the mean TPOT passes the dashed line of the chart above" if tpot else ""
        label = f"Output tokens/s vs batch for the top configurations, the chosen batch starred{over}"
        charts.append(
            RankChart(chart_id="throughput-batch", label=label, numbers=rank_curves.throughput_curves(curves, tpot))
        )
    memory = chart_configs(leaders, MEMORY_CONFIGS, workload.gpus)
    if memory:
        rows = [
            (f"{o['gpu_count']}×{o['gpu_id']}", o["memory_gb"], o["memory_gb"].get("capacity", 0.0)) for o in memory
        ]
        parts = [
            ("weights", "weights"),
            ("kv_cache", "KV cache at the operating batch"),
            ("reserve", "runtime reserve"),
        ]
        label = "Memory per GPU at the operating point vs capacity"
        charts.append(RankChart(chart_id="memory", label=label, numbers=rank_points.memory_bars(rows, parts)))
    return charts


def training_charts(
    payload: dict[str, Any],
    leaders: Sequence[dict[str, Any]],
    workload: TrainingWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
) -> list[RankChart]:
    # not from zero: 70B full fine-tunes' steps (3.5-4.0 s) sat in the last eighth of an axis drawn from 0
    step = rank_points.cost_scatter(
        leaders, "step_time_s", "usd_per_step", "step time (s)", "$ / step", "total_usd", x_from_zero=False
    )
    label = (
        "$ per step vs step time for the best offer of the top configurations; bars show the band, the dotted line is "
        "the Pareto front"
    )
    charts = [RankChart(chart_id="cost-step", label=label, numbers=step)]
    if payload.get("frontier"):
        deadline = float(payload.get("deadline_days") or workload.max_days)
        label = (
            "What scaling out buys: days to finish and total cost per GPU count for the leading machines; the dashed "
            f"line is the {deadline_text(deadline)}"
        )
        numbers = rank_points.frontier(payload["frontier"], deadline)
        charts.append(RankChart(chart_id="frontier", label=label, numbers=numbers))
    memory = distinct_configs(leaders, MEMORY_CONFIGS)
    if memory:
        charts.append(_training_memory(memory, snapshot))
    return charts


def _training_memory(memory: Sequence[dict[str, Any]], snapshot: CatalogSnapshot) -> RankChart:
    rows = [
        (
            f"{option['gpu_count']}×{option['gpu_id']}",
            option.get("memory_at_peak_gb") or option["memory_breakdown_gb"] or {},
            snapshot.gpus[option["gpu_id"]].memory_gb,
        )
        for option in memory
    ]
    # a part no row holds at its peak (the update's temporaries on a fused stack, live params without FSDP) is
    # left out: an empty column would widen the chart's table past a laptop's column
    keys = list(dict.fromkeys(k for _, breakdown, _ in rows for k, gb in breakdown.items() if gb))
    # the fit check's limit for the stack (runtime reserve included): the allocator's share of the card. "usable"
    # names that share less the reserve (the most the need may reach), as the terms and reasons say it
    share_gb = [card * USABLE_HBM_SHARE for _, _, card in rows]
    share = (f"allocator share ({USABLE_HBM_SHARE:.0%} of card)", share_gb)  # short: the numbers table fits 1280 px
    label = (
        "Memory per GPU for the chosen layout at its step's fullest moment (the backward's start or the optimizer "
        "step), runtime reserve included, vs the card and the allocator's share of it"
    )
    numbers = rank_points.memory_bars(rows, [(k, k.replace("_", " ")) for k in keys], share)
    return RankChart(chart_id="memory", label=label, numbers=numbers)


def chart_tables(
    phase: str,
    payload: dict[str, Any],
    best_rows: Sequence[Any],
    workload: InferenceWorkload | TrainingWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
) -> list[dict[str, Any]]:
    """The rank API's `charts` (asked for): the results page's charts in numbers, of the leading configurations the
    page draws (`best_rows`: the ranking's best option of each (GPU, count), best first)."""
    leaders = [plain_row(option, False) for option in best_rows[:LEADING_CONFIGURATIONS]]
    charts_for = inference_charts if phase == "inference" else training_charts
    return [chart.table().model_dump() for chart in charts_for(payload, leaders, workload, snapshot, model)]  # type: ignore[arg-type]
