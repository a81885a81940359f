"""How an estimate explains itself: named terms with units, and an uncertainty band."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Term:
    """One line of an explanation: `decode weight read = 8.4 ms (70.6 GB / (4 × 3.35 TB/s × 0.62))`."""

    name: str
    value: float
    unit: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Band:
    """Low/high range of a predicted value, from the validation residuals of its regime."""

    low: float
    high: float

    @classmethod
    def around(cls, value: float, low_ratio: float, high_ratio: float) -> "Band":
        return cls(low=value * low_ratio, high=value * high_ratio)

    def overlaps(self, other: "Band") -> bool:
        return self.low <= other.high and other.low <= self.high
