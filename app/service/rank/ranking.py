"""The bridge from a parsed workload to the pure engine: rank() runs the phase's ranking on the workload's model (an
inference workload without a weight_dtype at the release's precision), rank_payload() turns it into the rank API's
body, and view_positions() orders its rows as a results page's column sort asks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from app.scoring.inference.ranking.options import RANK_METRIC_FIELDS, InferenceRanking
from app.scoring.inference.ranking.release_precision import Weights, release_weights
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.rank import rank_sort
from app.service.rank.answer_body import answer_body
from app.service.rank.model_spec import Workload, model_spec_for
from app.service.rank.plain import plain_row

if TYPE_CHECKING:  # imported by rank() on first use, like rank_training
    from app.scoring.training.ranking.results import TrainingRanking


class Ranked(NamedTuple):
    """What rank() answers: the model ranked, the engine's ranking, the workload as ranked (an inference workload
    without a weight_dtype gets the release's) and its Weights (None for training)."""

    model: ModelSpec
    ranking: InferenceRanking | TrainingRanking
    workload: Workload
    weights: Weights | None


def rank(phase: str, workload: Workload, snapshot: CatalogSnapshot) -> Ranked:
    """Run the engine's ranking for the phase (raises UnknownId). An inference workload without a weight_dtype ranks
    the model's release precision."""
    model = model_spec_for(workload, snapshot)
    if phase == "training":
        from app.scoring.training.ranking.rank import rank_training

        assert isinstance(workload, TrainingWorkload)
        return Ranked(model, rank_training(workload, snapshot, model), workload, None)
    from app.scoring.inference.ranking.rank import rank_inference

    assert isinstance(workload, InferenceWorkload)
    answered, weights = release_weights(workload, model, snapshot.quality)
    return Ranked(model, rank_inference(answered, snapshot, model), answered, weights)


def rank_payload(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    share_url: str,
    limit: int | None = None,
    include_terms: bool = True,
    sort: str | None = None,
    charts: bool = False,
) -> dict[str, Any]:
    """The rank API's response body: {workload, model, options (best first), share_url, ...}, each option with
    its `rank` (1 = best; in ranked order, its position). With a `sort` (rank_sort), the feasible options come in
    that column's order, then the infeasible ones, each keeping its rank, and the body says `sort`: what a sorted
    results page shows, as its twins give it. With `charts`, the results page's charts in numbers (`charts`), of its
    leading configurations whatever the limit or sort: asked for only, as they add time to every call."""
    model, ranking, workload, weights = rank(phase, workload, snapshot)
    positions = view_positions(phase, ranking, sort, len(ranking.options))
    if limit is not None:
        positions = positions[:limit]
    shared: dict[int, Any] = {}  # the options' lists live as long as `ranking`, so ids stay unique
    rows = [plain_row(ranking.options[p], include_terms, shared) for p in positions]
    ranked_rows = [{"rank": p + 1, **row} for p, row in zip(positions, rows, strict=True)]
    body = answer_body(phase, workload, snapshot, model, ranking, ranked_rows, share_url, weights)
    if not rank_sort.is_ranked_order(sort):
        body["sort"] = sort
    if charts:
        from app.service.charts.rank_charts import chart_tables  # it reads ranked_page, which reads this module

        body["charts"] = chart_tables(phase, body, ranking.leaders(), workload, snapshot, model)
    return body


def view_positions(phase: str, ranking: Any, sort: str | None, end: int) -> list[int]:
    """Positions (0-based ranks) of the ranking's first `end` options in the view's order: ranked order, or
    the feasible options sorted by a column of the table (rank_sort; each read through the ranking's sort_value,
    which builds no option where it can) and the infeasible ones after them, still in ranked order."""
    if rank_sort.is_ranked_order(sort):
        return list(range(end))
    assert sort is not None
    feasible = ranking.feasible_count
    metric = "usd_per_step" if phase == "training" else RANK_METRIC_FIELDS[ranking.rank_by]
    value = getattr(ranking, "sort_value", None) or (lambda position, name: getattr(ranking.options[position], name))
    ordered = rank_sort.sorted_positions(value, feasible, phase, sort, metric)
    return (ordered + list(range(feasible, len(ranking.options))))[:end]
