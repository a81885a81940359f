"""The schema's descriptions as HTML: the little Markdown they use (`code`, **bold**, paragraphs, one pipe table).
Escaped first, so a description can never inject markup; a code span may wrap after its underscores."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

CODE = re.compile(r"`([^`]+)`")
BOLD = re.compile(r"\*\*([^*]+)\*\*")


def inline_html(text: str) -> Markup:
    html = str(escape(text.strip()))
    html = CODE.sub(lambda match: "<code>" + match.group(1).replace("_", "_<wbr>") + "</code>", html)
    return Markup(BOLD.sub(r"<strong>\1</strong>", html))


def _cells(line: str) -> list[Markup]:
    return [inline_html(cell) for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str], name: str) -> Markup:
    """`name`: what a screen reader calls the table (the paragraph that introduces it, as a reader sees it)."""
    head, rows = _cells(lines[0]), [_cells(line) for line in lines[2:]]  # lines[1] is the |---| rule
    header = "".join(f'<th scope="col">{cell}</th>' for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    label = escape(name or ", ".join(cell.striptags() for cell in head))
    head_html = f"<thead><tr>{header}</tr></thead>"
    return Markup(f'<table class="data doc-table" aria-label="{label}">{head_html}<tbody>{body}</tbody></table>')


def blocks_html(text: str) -> Markup:
    """Paragraphs split on blank lines; a block of lines that all start with `|` is a table."""
    parts: list[Markup] = []
    before = ""  # the paragraph before a table names it
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.strip().splitlines()
        if len(lines) > 2 and all(line.lstrip().startswith("|") for line in lines):
            parts.append(_table(lines, before))
        elif block.strip():
            paragraph = inline_html(" ".join(lines))
            parts.append(Markup("<p>") + paragraph + Markup("</p>"))
            before = paragraph.striptags()
    return Markup("\n").join(parts)
