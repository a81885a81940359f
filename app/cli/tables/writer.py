"""The one text-table writer every CLI command and docs/ACCURACY.md use: aligned columns for a terminal
(first column left, the rest right) or a Markdown table; None prints as '–'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.scoring.explain import fixed, significant


def _cell(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"  # 1,496 replicas
    if isinstance(value, float):
        return significant(value, 4) if abs(value) < 10 else fixed(value, digits)  # 12,450.7 tok/s, not 12450.7
    return str(value)


def rounded(value: float, digits: int = 0) -> str:
    """A cell rounded as round(value, digits) would show it, grouped by thousands (317,000.00, not 317000.00), except
    that a nonzero value never shows as 0 ($0.03 a month scaled to zero read 0)."""
    return fixed(value, digits)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], markdown: bool = False) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in cells])
