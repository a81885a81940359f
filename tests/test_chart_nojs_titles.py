"""Without JavaScript a chart's place says which chart it was: its caption's naming clause, cut at the first "; "
outside brackets (/own's caption holds one inside "(cash; …)", which a plain split cut mid-bracket)."""

from __future__ import annotations

import re

from app.web.rendering.render import templates

NOTE = re.compile(r'class="chart-nojs muted">([^<]*)</p>')


def test_a_title_stops_at_the_first_top_level_semicolon() -> None:
    title = templates.env.filters["chart_title"]
    assert title("A vs B; the dotted line is C") == "A vs B"
    assert title("Spent (cash; later): own vs rent; the diamond") == "Spent (cash; later): own vs rent"
    assert title("no clause to cut") == "no clause to cut"


def test_own_names_its_chart_without_javascript(client) -> None:  # type: ignore[no-untyped-def]
    notes = NOTE.findall(client.get("/own?gpu=H100-SXM").text)
    assert len(notes) == 1 and notes[0].startswith("Spent over the months (cash; with a cost of capital")
    assert "against renting at your utilisation: this chart needs JavaScript" in notes[0]
