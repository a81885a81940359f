"""A screen reader heard GMI Cloud's "provider's article, not its price list" twice on the rank page's "Best:" line
and on its row: once in the note read with the price-type badge, once as the caveat badge's own text (found by tidy).
The note is read once; the badges its words make are hidden from screen readers, seen by sighted readers."""

from __future__ import annotations

import re
from html import unescape

GMI = "/?phase=inference&model=llama-3.1-8b&providers=gmi-cloud"
SAID = "not its price list"


def _aloud(html: str) -> str:
    """The text a screen reader reads: tags dropped, and every aria-hidden badge (a span, none nested) with them."""
    html = re.sub(r'<span[^>]*aria-hidden="true"[^>]*>.*?</span>', " ", html)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def _best_line(html: str) -> str:
    """The results' summary (the answer strip's "Best:" above it is a link, where the note is not read at all)."""
    return html.split('<p class="summary">', 1)[1].split("</p>", 1)[0]


def test_the_best_line_says_the_caveat_once_and_shows_its_badge(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get(GMI).text
    best = _best_line(html)
    assert ">provider&#39;s article, not its price list</span>" in best  # the badge, seen
    assert _aloud(best).count(SAID) == 1


def test_each_ranked_row_says_the_caveat_once(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get(GMI).text
    rows = re.findall(r'<td class="wrap" data-label="Price terms" role="cell">(.*?)</td>', html, re.S)
    assert rows and all(_aloud(cell).count(SAID) == 1 for cell in rows)
    strip = html.split("Best:", 1)[1].split("the ranking and why", 1)[0]  # the answer strip's link: its badge alone
    assert _aloud(strip).count(SAID) == 1


def test_plans_best_line_and_rows_say_the_caveat_once(client) -> None:  # type: ignore[no-untyped-def]
    """/plan read the note with the price type and then the caveat badge's text, as the rank page did."""
    html = client.get("/plan?model=llama-3.1-8b&requests_per_day=500000&providers=gmi-cloud").text
    best = html.split("Cheapest dedicated:", 1)[1].split("</p>", 1)[0]
    assert ">provider&#39;s article, not its price list</span>" in best  # the badge, seen
    assert _aloud(best).count(SAID) == 1
    rows = re.findall(r'<td class="wrap" data-label="Price type" role="cell">(.*?)</td>', html, re.S)
    assert rows and all(_aloud(cell).count(SAID) == 1 for cell in rows)
