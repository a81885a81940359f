"""One validation prediction, shared by the training and inference validation hooks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MemoryCheck:
    """A published peak memory per GPU beside the estimator's memory need for the same setup, in 10^9 bytes."""

    measured_gb: float  # the published peak, GiB read as 2^30 bytes
    predicted_gb: float  # memory_needed_gb (the step's peak) of the row's layout, the runtime reserve left out
    published: str  # as the notes write it: "47.65 GB"
    quantity: str  # which peak: published_memory.QUANTITIES
    layout: str  # the layout it was sized at, in words
    unmodelled: str = ""  # memory features the run stated that the estimate does not model, in words ("" for none)


@dataclass(frozen=True, slots=True)
class CasePrediction:
    """A predicted value for one case row; uncovered rows have predicted None and a reason."""

    case_id: str
    metric: str
    source: str
    gpu: str
    predicted: float | None
    measured: float | None
    pct_error: float | None  # (predicted - measured) / measured × 100
    covered: bool
    reason: str = ""
    # A training row whose notes publish its peak memory per GPU (training/published_memory.py), else None.
    memory: MemoryCheck | None = None


class UnreadableRow(ValueError):
    """A cell the estimator needs is present but not a number it can use (the row is then not covered)."""


def cell_number(row: dict, key: str, *, least: float = 0.0, whole: bool = False) -> float | None:
    """The cell `key` as a number, None when empty.

    Raises UnreadableRow naming the column when the cell is text, not finite, below `least`, above 1e12 (no count or
    length in a case file comes near it) or, with `whole`, not a whole number."""
    text = (row.get(key) or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise UnreadableRow(f"{key} {text!r} is not a number") from None
    if not least <= value <= 1e12 or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise UnreadableRow(f"{key} {text!r} is not {kind} from {least:g} to 1e12")
    return value


def measured_value(text: str | None) -> float | None:
    """A row's measured value: a finite positive number, else None (every metric in the case files is > 0)."""
    try:
        value = float(text or "nan")
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None
