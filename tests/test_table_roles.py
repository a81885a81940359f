"""Stacked tables carry their ARIA table roles in the server's HTML, so a phone without JavaScript gets them.

Below 720 px a `table.stack` is laid out as cards (static/css/app.css) and some browsers then drop its table
semantics; explicit roles keep rows, cells and headers announced. static/js/app.js re-applies the same roles
("table.stack, table.stack table"); these tests hold the server to exactly what that script sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

import pytest

INFERENCE_URL = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8"

# Pages that together render every table.stack in templates/ (and the tables nested in them), with the number of
# nested tables each must show at least (the terms tables inside a ranked row).
PAGES = [
    (INFERENCE_URL, 1),
    ("/?phase=training&model=llama-3.1-8b", 1),
    ("/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=100000&job_deadline_hours=2", 1),
    ("/plan?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", 0),
    ("/plan?model=llama-3.1-70b&requests_per_day=500000&months=6", 0),  # with the train-then-serve table
    ("/disagg?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", 1),
    ("/mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8", 0),
    ("/precision?phase=inference&model=llama-3.1-70b", 0),
    ("/precision?model=llama-3.1-405b&max_gpus=1", 0),  # rows with no option: one cell spans the columns
    ("/own", 0),
    ("/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=60", 0),
    ("/gpus", 0),
    ("/gpus?sort=memory", 0),
    ("/gpus/H100-SXM", 0),
    ("/models", 0),
    ("/providers", 0),
    ("/methodology", 0),
]

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
GROUPS = frozenset({"thead", "tbody", "tfoot"})
CELLS = frozenset({"th", "td"})
# the role app.js gives a cell, by its row's group
CELL_ROLES = {
    ("th", "thead"): "columnheader",
    ("th", "tbody"): "rowheader",
    ("td", "tbody"): "cell",
    ("td", "tfoot"): "cell",
}


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str | None]
    line: int
    scoped: bool = False  # a table that is `stack` or inside one, or a direct part of such a table
    section: str | None = None  # for a row of a scoped table: thead, tbody or tfoot


class TableRoles(HTMLParser):
    """Walks a page, checking the role of every part of every `table.stack` and of every table inside one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.tables = 0  # scoped tables checked
        self.nested = 0  # of which inside another table
        self.scripts: list[dict[str, str | None]] = []  # every <script>'s attributes
        self._open: list[_Element] = []  # the open elements, outermost first

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:  # `<td/>` is not self-closing in HTML; treat it as a start tag
            self.handle_starttag(tag, attrs)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        values = dict(attrs)
        if tag == "script":
            self.scripts.append(values)
        self._close_implied(tag)
        parent = self._open[-1] if self._open else None
        element = _Element(tag, values, self.getpos()[0])
        expected: str | None = None
        if tag == "table":
            outer = [e for e in self._open if e.tag == "table"]
            element.scoped = "stack" in (values.get("class") or "").split() or any(e.scoped for e in outer)
            if element.scoped:
                expected, self.tables, self.nested = "table", self.tables + 1, self.nested + bool(outer)
        elif parent is not None and parent.tag == "table" and parent.scoped:
            element.scoped = True
            expected = {"caption": "caption", "thead": "rowgroup", "tbody": "rowgroup", "tfoot": "rowgroup"}.get(tag)
            if tag == "tr":
                self.problems.append(
                    f"line {element.line}: <tr> directly in a stacked table: the browser wraps it in an implied "
                    '<tbody> that has no role; write <tbody role="rowgroup">'
                )
                element.scoped = False  # its cells are reported through this problem
        elif parent is not None and parent.tag in GROUPS and parent.scoped and tag == "tr":
            element.scoped, element.section, expected = True, parent.tag, "row"
        elif parent is not None and parent.tag == "tr" and parent.scoped and tag in CELLS:
            element.scoped = True
            expected = CELL_ROLES.get((tag, parent.section or ""))
        if element.scoped and values.get("role") != expected:
            shown = " ".join(f'{k}="{v}"' for k, v in attrs if k in ("class", "id", "scope", "data-label"))
            self.problems.append(
                f"line {element.line}: <{tag}{' ' + shown if shown else ''}> has role={values.get('role')!r}, "
                f"expected {expected!r}"
            )
        self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or all(e.tag != tag for e in self._open):
            return  # a stray end tag: nothing to close
        while self._open and self._open.pop().tag != tag:
            pass

    def _close_implied(self, tag: str) -> None:
        """The end tags HTML lets a table omit: a new cell ends the open cell, a new row the open row, and so on."""
        ends = {"td": CELLS, "th": CELLS, "tr": CELLS | {"tr"}, "caption": set()}.get(tag)
        if tag in GROUPS:
            ends = CELLS | {"tr"} | GROUPS
        while ends and self._open and self._open[-1].tag in ends:
            self._open.pop()


def _check(html: str) -> TableRoles:
    parser = TableRoles()
    parser.feed(html)
    parser.close()
    return parser


def test_the_parser_reports_missing_and_wrong_roles() -> None:
    parser = _check(
        '<table class="data stack"><caption>c</caption><thead><tr role="row"><th role="columnheader">a</th></tr>'
        "</thead><tbody role=rowgroup><tr role=row><th>x</th><td role=cell>1<br>"
        '<table class="specs"><tr><td>n</td></tr></table></td></tr></tbody></table>'
        '<table class="data"><tbody><tr><td>plain tables are left alone</td></tr></tbody></table>'
    )
    assert parser.tables == 2 and parser.nested == 1
    text = "\n".join(parser.problems)
    for needle in (
        "<table class=\"data stack\"> has role=None, expected 'table'",
        "<caption> has role=None, expected 'caption'",
        "<thead> has role=None, expected 'rowgroup'",
        "<th> has role=None, expected 'rowheader'",
        "<table class=\"specs\"> has role=None, expected 'table'",
        "<tr> directly in a stacked table",
    ):
        assert needle in text, text
    assert len(parser.problems) == 6, text


@pytest.mark.parametrize(("url", "nested"), PAGES)
def test_stacked_tables_carry_their_roles_without_javascript(client, url: str, nested: int) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == 200, f"{url} answered {response.status_code}"
    parser = _check(response.text)
    assert parser.tables > 0, f"{url} ({response.url}) renders no table.stack"
    assert parser.nested >= nested, f"{url} renders {parser.nested} nested tables, expected {nested} or more"
    assert not parser.problems, f"{response.url}:\n" + "\n".join(parser.problems)


def test_an_htmx_swap_of_the_ranking_carries_the_roles_too(client) -> None:  # type: ignore[no-untyped-def]
    """The pager and the sort links swap the results in place: the fragment is rendered with its roles."""
    response = client.get(INFERENCE_URL + "&page=2", headers={"HX-Request": "true"})
    assert response.status_code == 200
    parser = _check(response.text)
    assert parser.tables > 1 and parser.nested > 0
    assert not parser.problems, "\n".join(parser.problems)


def test_the_ranked_page_has_no_inline_script(client) -> None:  # type: ignore[no-untyped-def]
    parser = _check(client.get(INFERENCE_URL).text)
    inline = [s for s in parser.scripts if s.get("src") is None and s.get("type") != "application/json"]
    assert parser.scripts and not inline, inline
