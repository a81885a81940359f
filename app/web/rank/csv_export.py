"""CSV export of a ranking table (the terms stay in the JSON twin)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.responses import Response

from app.web.rank.layout_schema import LayoutOut

# Latency bands (options.InferenceOption) as a low and a high column each, appended last
LATENCY_BANDS = {"ttft_p99_band": "ttft_p99", "tpot_p99_band": "tpot_p99"}
# nested: none fits a cell
SKIP = ("terms", "assumptions", "memory_gb", "memory_breakdown_gb", "memory_at_peak_gb", "band", *LATENCY_BANDS)
# Columns added after the CSV's first columns: they follow band_high, so every earlier column keeps its position.
APPENDED = ("ttft_mean_ms", "tpot_mean_ms", "band_metric", "limits_at_risk", "deadline_at_risk")
# Columns added after the latency bands: last of all, so every column before them keeps its position. An option's
# fields from the first of these on are all last, in their order: inference's cluster_caveat, added after them,
# comes after them, while training's (one of its first columns) keeps its place.
APPENDED_LAST = ("instance_type", "region", "requests_in_flight", "requests_per_s", "layout_detail")
# A training option's layout_detail as one column per field (tensor_parallel, ..., expert_parallel), in its place
# among the last columns; an absent field (no layout sized, experts not split) is an empty cell.
LAYOUT_DETAIL = "layout_detail"
LAYOUT_COLUMNS = tuple(LayoutOut.model_fields)
# Spreadsheets run a cell that starts with one of these as a formula (OWASP "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """A text cell that a spreadsheet would evaluate gets a leading apostrophe; numbers stay numbers; a boolean is
    `true` or `false`, as in the JSON (Python's True/False is no CSV reader's boolean); a list of words (a row's
    price_caveats) is one cell, joined by '; '."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        value = "; ".join(str(v) for v in value)
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def columns_of(options: list[dict[str, Any]]) -> list[str]:
    """The option fields as columns (the band as band_low and band_high), the APPENDED ones last; README.md's
    "What the answers say" says what each holds."""
    keys = list(options[0]) if options else []
    tail = min((keys.index(k) for k in APPENDED_LAST if k in keys), default=len(keys))
    first = [k for k in keys[:tail] if k not in SKIP and k not in APPENDED]
    latency = [f"{name}_{end}_ms" for key, name in LATENCY_BANDS.items() if key in keys for end in ("low", "high")]
    last = [c for k in keys[tail:] if k not in SKIP for c in (LAYOUT_COLUMNS if k == LAYOUT_DETAIL else (k,))]
    return [*first, "band_low", "band_high", *(k for k in APPENDED if k in keys), *latency, *last]


def csv_response(payload: dict[str, Any], filename: str) -> Response:
    """One row per option; a null (an infeasible option's measures) is an empty cell."""
    options = payload["options"]
    columns = columns_of(options)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for option in options:
        band = option.get("band") or {}
        row = {k: neutralise(v) for k, v in option.items() if k not in SKIP}
        if LAYOUT_DETAIL in option:
            layout = option[LAYOUT_DETAIL] or {}
            row |= {column: layout.get(column) for column in LAYOUT_COLUMNS}
        for key, name in LATENCY_BANDS.items():
            latency = option.get(key) or {}
            row |= {f"{name}_low_ms": latency.get("low"), f"{name}_high_ms": latency.get("high")}
        writer.writerow({**row, "band_low": band.get("low"), "band_high": band.get("high")})
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
