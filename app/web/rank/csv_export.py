"""CSV export of a ranking table (the terms stay in the JSON twin)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.responses import Response

SKIP = ("terms", "memory_gb", "band")


def csv_response(payload: dict[str, Any], filename: str) -> Response:
    options = payload["options"]
    columns = [k for k in (options[0] if options else {}) if k not in SKIP] + ["band_low", "band_high"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for option in options:
        band = option.get("band") or {}
        writer.writerow({**option, "band_low": band.get("low"), "band_high": band.get("high")})
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
