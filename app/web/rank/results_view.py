"""Turn a ranked page into what the results block shows around the table: the pager, sortable headers,
the view and question links (replicas, limits, compare) and the summary notes. The charts are in
result_charts.py."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from app.scoring.inference.bands.limits import LIMITS_APPLIED, at_band_high
from app.scoring.inference.ranking.options import RANK_HEADERS, RANK_METRIC_FIELDS, RANK_UNITS
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.query.canonical import canonical_query
from app.service.query.phase import Phase
from app.service.query.view import ResultsView, view_pairs
from app.service.rank import rank_sort
from app.service.rank.fixed_load_words import load_words


def ranked_metric(rank_by: str | None) -> tuple[str, str, str, int]:
    """What an inference ranking is ranked by: the option's field, its column header, its words ("per million
    output tokens") and the decimals its dollars show (a month's fleet in whole dollars, a token's in tenths of
    cents)."""
    key = rank_by if rank_by in RANK_METRIC_FIELDS else "output_tokens"
    return RANK_METRIC_FIELDS[key], RANK_HEADERS[key], RANK_UNITS[key].removeprefix("$ "), 0 if key == "fleet" else 3


def view_url(base: str, view: ResultsView) -> str:
    """`base` (a path, with or without a query) followed by the view's non-default query pairs."""
    pairs = urlencode(view_pairs(view))
    if not pairs:
        return base
    return base + ("&" if "?" in base else "?") + pairs


def pager(view: ResultsView, total: int, base: str) -> dict[str, Any]:
    """Which rows of `total` feasible ones the page shows, and plain links to the pages around it and to
    every row (or back to pages); each link is `base` plus a view, so it is the canonical URL of that view."""
    rows = view.rows
    pages = 1 if rows is None else max(1, math.ceil(total / rows))
    first, last = (0, total) if rows is None else (view.start, min(total, view.start + rows))
    if view.page > pages:
        first = last = 0
    per_page = rows or ResultsView().rows or 1

    def at(page: int, show: int | str | None = None) -> str:
        return view_url(base, ResultsView(sort=view.sort, show=show or view.show, page=page))  # type: ignore[arg-type]

    return {
        "first": min(first + 1, last) if last else 0,  # 1-based, for "showing 26–50 of 12,100"
        "last": last,
        "total": total,
        "page": view.page,
        "pages": pages,
        "per_page": per_page,
        "beyond": view.page > pages,  # a page past the last: the page redirects to the last one
        "last_page_url": at(pages),
        "first_url": at(1) if view.page > 2 else None,
        "prev_url": at(min(view.page, pages + 1) - 1) if view.page > 1 else None,
        "next_url": at(view.page + 1) if view.page < pages else None,
        "last_url": at(pages) if view.page < pages - 1 else None,
        "all_url": view_url(base, ResultsView(sort=view.sort, show="all"))
        if rows is not None and total > rows
        else None,
        "paged_url": at(1, per_page) if rows is None and total > per_page else None,
    }


def sort_headers(view: ResultsView, base: str, phase: str) -> dict[str, dict[str, Any]]:
    """For each sortable column of the phase's ranked table: the link its header is (the whole ranking
    sorted by it, from page 1, or reversed when it is the column sorted by) and its aria-sort."""
    return {
        key: {
            "url": view_url(base, ResultsView(sort=rank_sort.next_sort(view.sort, key, phase), show=view.show)),
            "aria_sort": rank_sort.direction(view.sort, key),
        }
        for key in rank_sort.COLUMNS[phase]
    }


def limits_at_urls(workload: InferenceWorkload | TrainingWorkload, path: str) -> dict[str, str]:
    """The same question with its limits (a training run's deadline and budget) met at the bands' slow end
    (band_high) and on the estimate, for the results page to point from one to the other."""
    phase: Phase = "inference" if isinstance(workload, InferenceWorkload) else "training"
    return {  # model_copy skips validation: the estimate is written as unset, as the workload reads it
        name: f"{path}?{canonical_query(phase, workload.model_copy(update={'limits_at': at}))}"
        for name, at in (("band_high", "band_high"), ("estimate", None))
    }


def limits_plan_note(workload: InferenceWorkload | TrainingWorkload) -> str | None:
    """Says, near the answer, that the limits were met at the slow end of the bands (limits_at band_high), and what
    that did at this scenario; None where the question plans on the estimate."""
    if workload.limits_at != "band_high":
        return None
    if isinstance(workload, TrainingWorkload):
        return (
            "Planned for the slow end of the band: each run finishes within the deadline, and the budget, even at "
            "the low end of its tokens/s p10–p90 band, not only as estimated (more GPUs or a faster GPU)."
        )
    if not at_band_high(workload):
        return (
            "Meet the limits at the slow end of their bands changes nothing here: at this operating point the limits "
            "are reported, not applied."
        )
    if workload.scenario in LIMITS_APPLIED:
        return (
            "Planned for the slow end of the bands: each row's batch keeps its p99 TTFT and TPOT within the limits "
            "even at the high end of their p10–p90 bands, not only as estimated (a smaller batch, fewer tokens per "
            "GPU)."
        )
    return (
        "Checked at the slow end of the bands: a row whose p99 TTFT or TPOT at the high end of its p10–p90 band is "
        "over a limit is over the limits, ranked after the rows that meet them."
    )


COMPARE_GPUS = 3  # the leading GPU types a results page offers to set side by side


def compare_query(question: str, leaders: Sequence[dict[str, Any]]) -> str | None:
    """The same question on /compare, its GPU filter set to the leading GPU types (best first), so each card's
    best configuration stands beside the others'; None when fewer than two GPU types lead."""
    gpus: list[str] = []
    for row in leaders:
        if row["gpu_id"] not in gpus:
            gpus.append(row["gpu_id"])
    if len(gpus) < 2:
        return None
    pairs = [(k, v) for k, v in parse_qsl(question, keep_blank_values=True) if k != "gpus"]
    return urlencode([*pairs, ("gpus", ",".join(gpus[:COMPARE_GPUS]))], safe=",")


def replicas_load(workload: InferenceWorkload | TrainingWorkload) -> str:
    """The load the answer's replicas_url spreads, in words: '12 requests/s' or '200 clients'."""
    if not isinstance(workload, InferenceWorkload):
        return ""
    return load_words(workload.scenario, workload.concurrency, workload.requests_per_s)


def shared_assumptions(rows: Sequence[dict[str, Any]]) -> list[str]:
    """What every row on the page assumes (in the first row's order): said once above the table, so each row's
    terms list only its own (a training page repeated the same five lines 25 times)."""
    if not rows:
        return []
    rest = [set(row.get("assumptions") or ()) for row in rows[1:]]
    return [a for a in rows[0].get("assumptions") or () if all(a in others for others in rest)]
