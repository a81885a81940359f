"""Which column a results page's ranked rows are sorted by, and how: `sort=<column>` in the page's
query, `sort=-<column>` for the other direction.

The page sorts every feasible option, not only the rows on screen, so page 2 of "sorted by TTFT" holds the
26th to 50th lowest TTFTs; an option keeps its rank (its place in the ranking, best first) whatever the sort.
Ranked order is the default and needs no `sort`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

RANK = "rank"
METRIC = ""  # the ranked price column: the inference rank_by's field, or training's $/step (training ranks by total $)


@dataclass(frozen=True)
class SortColumn:
    key: str  # the query's name for it
    field: str  # the option's attribute; RANK = ranked order, METRIC = the ranked price
    words: str  # what the caption says it is sorted by
    descending_first: bool = False  # a first click shows the largest first (throughput, utilisation)
    text: bool = False  # sorted A to Z rather than lowest first


_SHARED = (
    SortColumn(RANK, RANK, "rank"),
    SortColumn("gpu", "gpu_id", "GPU", text=True),
    SortColumn("provider", "provider_name", "provider", text=True),
    SortColumn("gpu_hour", "usd_per_gpu_hour", "$/GPU-hour"),
    SortColumn("cost", METRIC, "price"),
)
COLUMNS: dict[str, dict[str, SortColumn]] = {
    "inference": {
        c.key: c
        for c in (
            *_SHARED,
            SortColumn("ttft", "ttft_ms", "TTFT"),
            SortColumn("tpot", "tpot_ms", "TPOT"),
            SortColumn("batch", "batch", "batch", descending_first=True),
            SortColumn("tok_s", "output_tokens_per_s", "tokens/s", descending_first=True),
            SortColumn("usd_m", "usd_per_million_output_tokens", "$ per million output tokens"),
            SortColumn("replicas", "replicas", "replicas"),
            SortColumn("job_time", "job_hours", "job time"),
            SortColumn("job_cost", "job_usd", "job cost"),
        )
    },
    "training": {
        c.key: c
        for c in (
            *_SHARED,
            SortColumn("step_s", "step_time_s", "step time"),
            SortColumn("tok_s_gpu", "tokens_per_s_per_gpu", "tokens/s per GPU", descending_first=True),
            SortColumn("mfu", "mfu", "MFU", descending_first=True),
            SortColumn("days", "total_hours", "run time"),
            SortColumn("total", "total_usd", "total cost"),
        )
    },
}
ALL_KEYS = frozenset(key for columns in COLUMNS.values() for key in columns)


def split(sort: str) -> tuple[str, bool]:
    """'-ttft' → ('ttft', True): the column and whether it runs largest first."""
    return sort.removeprefix("-"), sort.startswith("-")


def check(sort: str) -> str:
    """`sort` itself if it names a column of either phase, else a ValueError saying which it may name."""
    key, _ = split(sort)
    if key not in ALL_KEYS or sort.count("-") > 1:
        raise ValueError(
            f"must be a column of the ranked table ({', '.join(sorted(ALL_KEYS))}), with a leading - for largest first"
        )
    return sort


def sort_error(phase: str, sort: str | None) -> str | None:
    """Why `sort` names no column of the phase's table, listing that table's columns only (the message listed both
    phases' together, mfu and ttft alike), or None when it names one."""
    if sort is None:
        return None
    key, _ = split(sort)
    columns = ", ".join(COLUMNS[phase])
    if sort.count("-") > 1 or key not in ALL_KEYS:
        return f"must be a column of the {phase} ranking ({columns}), with a leading - for largest first"
    if key not in COLUMNS[phase]:
        return f"{key} is not a column of the {phase} ranking; it sorts by {columns}"
    return None


def is_ranked_order(sort: str | None) -> bool:
    return sort is None or sort == RANK


def sorted_positions(
    value: Callable[[int, str], Any], feasible: int, phase: str, sort: str, metric_field: str
) -> list[int]:
    """Positions (0-based ranks) of the feasible options in the sort's order, each read as value(position, field)
    (a ranking's sort_value reads it without building the option); ties keep ranked order and options without
    the value (no job, say) go last whichever the direction."""
    key, descending = split(sort)
    column = COLUMNS[phase][key]
    positions = list(range(feasible))
    if column.field == RANK:
        return positions[::-1] if descending else positions
    field = column.field or metric_field
    values = [value(p, field) for p in positions]
    present = [p for p in positions if values[p] is not None]
    present.sort(key=lambda p: values[p], reverse=descending)  # stable: equal values stay in ranked order
    return present + [p for p in positions if values[p] is None]


def next_sort(current: str | None, key: str, phase: str) -> str | None:
    """What a column header's link asks for: the column in its natural direction, or reversed when it is
    the column already sorted by; ranked order (None) for the rank column's natural direction."""
    column = COLUMNS[phase][key]
    active, descending = split(current) if current else (RANK, False)
    wanted = (not descending) if active == key else column.descending_first
    if key == RANK and not wanted:
        return None
    return f"-{key}" if wanted else key


def direction(current: str | None, key: str) -> str | None:
    """The header's aria-sort: 'ascending', 'descending', or None when the table is not sorted by it."""
    active, descending = split(current) if current else (RANK, False)
    if active != key:
        return None
    return "descending" if descending else "ascending"


def describe(sort: str | None, phase: str) -> str | None:
    """The caption's words for a sort ('TTFT, lowest first'), or None in ranked order."""
    if is_ranked_order(sort):
        return None
    assert sort is not None
    key, descending = split(sort)
    column = COLUMNS[phase][key]
    if column.field == RANK:
        return "rank, worst first" if descending else "rank"
    if column.text:
        return f"{column.words}, {'Z to A' if descending else 'A to Z'}"
    return f"{column.words}, {'highest' if descending else 'lowest'} first"
