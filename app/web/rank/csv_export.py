"""CSV export of a ranking table (the terms stay in the JSON twin)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.responses import Response

SKIP = ("terms", "assumptions", "memory_gb", "band")
# Spreadsheets run a cell that starts with one of these as a formula (OWASP "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """A text cell that a spreadsheet would evaluate gets a leading apostrophe; numbers stay numbers; a list of
    words (a row's price_caveats) is one cell, joined by '; '."""
    if isinstance(value, list | tuple):
        value = "; ".join(str(v) for v in value)
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_response(payload: dict[str, Any], filename: str) -> Response:
    options = payload["options"]
    columns = [k for k in (options[0] if options else {}) if k not in SKIP] + ["band_low", "band_high"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for option in options:
        band = option.get("band") or {}
        row = {k: neutralise(v) for k, v in option.items() if k not in SKIP}
        writer.writerow({**row, "band_low": band.get("low"), "band_high": band.get("high")})
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
