"""One page of a ranking for the results pages, built in time that grows with the rows shown, not with the offers
ranked: the page's rows in the view's order, the best row, the close calls among the leaders, the leading
configurations the charts draw, the infeasible rows grouped by configuration and reason, and each chosen GPU's best."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.explain import shown_as_close_call
from app.scoring.pricing.offers import left_out_note
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service.catalog_ids import catalog_id
from app.service.rank.answer_body import answer_body
from app.service.rank.card_ratio import past_datasheet_note
from app.service.rank.model_spec import Workload
from app.service.rank.plain import plain_row
from app.service.rank.ranking import rank, view_positions

LEADING_CONFIGURATIONS = 12  # distinct (GPU, count) configurations a page's charts may draw (the scatter's 12)
CLOSE_CALL_ROWS = 25  # the summary counts close calls among the best this many rows, whatever page is shown


@dataclass(frozen=True, kw_only=True)
class RankedPage:
    """One page of a ranking, built in time that grows with the rows shown, not with the offers ranked:
    only the page's rows, the leading configurations and the chosen GPUs' best rows become options."""

    payload: dict[str, Any]  # the rank API body, with only this page's rows as `options`, in the view's order
    start: int  # position (0-based) of the page's first row among the feasible options in the view's order
    ranks: list[int]  # each of the page's rows' rank (1 = best), whatever order the view sorts them in
    best: dict[str, Any] | None  # the best feasible option, whatever page is shown
    close_calls: int  # runners-up among the best CLOSE_CALL_ROWS rows whose band overlaps the best's
    leaders: list[dict[str, Any]]  # the best option of each leading distinct (GPU, count), best first
    infeasible: list[dict[str, Any]]  # {gpu_id, gpu_count, reason, offers}: one per configuration and reason
    cards: list[str]  # the GPUs asked for, each once, under the catalog's id (`h100-sxm` -> H100-SXM), in order
    per_gpu: dict[str, dict[str, Any]]  # for each GPU asked for: its best option (or first infeasible one)
    # for each GPU asked for that no ranked offer runs (no option, or only infeasible ones): the offers of it its price
    # terms or stale prices left out, in words, since one of those may run it (70B on MI300X: a stale 8-GPU offer)
    left_out: dict[str, str]
    # where the cards' tokens/s per GPU differ by more than their datasheets, why (card_ratio); '' otherwise
    cards_note: str = ""


def ranked_page(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    share_url: str,
    start: int,
    rows: int | None,
    gpus: Sequence[str] = (),
    sort: str | None = None,
) -> RankedPage:
    """Feasible options start … start + rows (all of them from start when rows is None) in ranked order, or
    sorted by a column of the table (rank_sort; every feasible option is built then), with what the page's
    summary, charts and infeasible list need. Raises UnknownId."""
    model, ranking, workload, weights = rank(phase, workload, snapshot)
    feasible, options, keys = ranking.feasible_count, ranking.options, ranking.row_keys
    end = feasible if rows is None else min(feasible, start + rows)
    positions = view_positions(phase, ranking, sort, end)[start:]
    shared: dict[int, Any] = {}
    page_rows = [plain_row(options[p], True, shared) for p in positions]
    # One best row per feasible (GPU, count), best first: as many as the machines, whatever the sellers.
    best_rows = ranking.leaders()
    # GPU -> its best row, None until found; keyed as the rows name it, since the filters match ids in any case
    wanted: dict[str, Any] = {catalog_id(snapshot, "gpus", gpu): None for gpu in gpus}
    for option in best_rows:
        if option.gpu_id in wanted and wanted[option.gpu_id] is None:
            wanted[option.gpu_id] = option
    groups: dict[tuple[str, int, str], dict[str, Any]] = {}
    for position, key in enumerate(keys[feasible:], start=feasible):  # cheap keys, never options
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"gpu_id": key.gpu_id, "gpu_count": key.gpu_count, "reason": key.reason, "offers": 0}
            if key.gpu_id in wanted and wanted[key.gpu_id] is None:
                wanted[key.gpu_id] = options[position]
        group["offers"] += 1
    leaders = [plain_row(o, False) for o in best_rows[:LEADING_CONFIGURATIONS]]
    per_gpu = {g: plain_row(o, False) for g, o in wanted.items() if o is not None}
    flags = [o.close_call for o in options[: min(feasible, CLOSE_CALL_ROWS)]]  # the best's too: rank 1 is left out
    return RankedPage(
        payload=answer_body(phase, workload, snapshot, model, ranking, page_rows, share_url, weights),
        start=start,
        ranks=[p + 1 for p in positions],
        best=leaders[0] if leaders else None,
        close_calls=sum(shown_as_close_call(flag, number) for number, flag in enumerate(flags, start=1)),
        leaders=leaders,
        infeasible=list(groups.values()),
        cards=list(wanted),
        per_gpu=per_gpu,
        left_out={g: gpu_left_out(snapshot, workload, g) for g, o in wanted.items() if o is None or not o.feasible},
        cards_note=_cards_note(workload, per_gpu, snapshot),
    )


# Where the question fixes the load (a request rate, clients, a batch, one stream) every card serves that load, so its
# tokens/s per GPU divide one load by its GPU count: a ratio past the datasheets is then the GPU counts' (2×B200 at 4×
# 8×H100's per GPU at 5 requests/s, both 1,500 tokens/s), and the note blamed "different batches" (qa43).
CARD_SIZED_SCENARIOS = ("latency_bound", "max_throughput")


def _cards_note(workload: Workload, per_gpu: dict[str, dict[str, Any]], snapshot: CatalogSnapshot) -> str:
    if not isinstance(workload, InferenceWorkload) or workload.scenario not in CARD_SIZED_SCENARIOS:
        return ""
    return past_datasheet_note(per_gpu.values(), snapshot.gpus, workload.weight_dtype or "bf16", workload.engine)


def compare_cards(phase: str, workload: Workload, snapshot: CatalogSnapshot, share_url: str) -> dict[str, Any]:
    """/compare's cards as data (its JSON twin's `cards`): each GPU asked for, the option its card shows (its best,
    or its first infeasible one, or None) and, where none runs the question, what the filters left out of its offers;
    and `cards_note`, why their tokens/s per GPU differ by more than their datasheets where they do (inference)."""
    page = ranked_page(phase, workload, snapshot, share_url, 0, 0, workload.gpus)
    cards = [{"gpu_id": g, "option": page.per_gpu.get(g), "left_out": page.left_out.get(g, "")} for g in page.cards]
    return {"cards": cards, "cards_note": page.cards_note} if phase == "inference" else {"cards": cards}


def gpu_left_out(snapshot: CatalogSnapshot, workload: Workload, gpu_id: str) -> str:
    """What the price-term and staleness filters leave out of one GPU's offers ('' when nothing)."""
    return left_out_note(snapshot.offers, snapshot.gpus, workload.model_copy(update={"gpus": [gpu_id]}))
