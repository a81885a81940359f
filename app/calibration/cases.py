"""One validation prediction, shared by the training and inference validation hooks."""

from __future__ import annotations

from dataclasses import dataclass


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
