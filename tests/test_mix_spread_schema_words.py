"""/mix's JSON schema says why a row of several buckets gets no spread p99 in the note's words (found by qa36: the
schema still said "no one workload an estimate times")."""

from __future__ import annotations

from app.web.mix.schemas import FleetRow

WORDS = "a copy would serve several request lengths together, and an estimate times one at a time"


def test_the_spread_fields_say_why_no_p99_as_the_note_does() -> None:
    fields = FleetRow.model_fields
    for name in ("fleet_note", "spread_ttft_p99_ms"):
        description = fields[name].description or ""
        assert WORDS in description and "no one workload" not in description and "no estimate times" not in description
