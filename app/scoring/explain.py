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
    def around(cls, value: float, low_ratio: float, high_ratio: float) -> Band:
        return cls(low=value * low_ratio, high=value * high_ratio)

    def overlaps(self, other: Band) -> bool:
        return self.low <= other.high and other.low <= self.high


def close_calls(bands: list[Band | None]) -> list[bool]:
    """Options ranked best first: each runner-up whose band overlaps the winner's is a close call,
    and so is the winner when at least one runner-up overlaps it (its win is within the noise)."""
    if not bands or bands[0] is None:
        return [False] * len(bands)
    winner = bands[0]
    flags = [False] + [band is not None and band.overlaps(winner) for band in bands[1:]]
    flags[0] = any(flags[1:])
    return flags
