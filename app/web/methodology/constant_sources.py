"""Read each constant of a scoring module with its source comment, from the module's own text.

The rule follows the code's layout. A comment block belongs to the constant written right below it. The constants
written directly after that one (no blank line, no comment line, no other statement between) are its group and share
the block: `fp8_...` / `fp4_...` pairs, the per-engine factors. A constant's own trailing comment (and the comments
inside a multi-line value) is added to what it shares. Anything else ends a group, so a comment never carries past a
blank line or another comment to constants it was not written for.
"""

from __future__ import annotations

import ast
import io
import numbers
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.scoring.explain import significant


@dataclass(frozen=True, slots=True)
class Sourced:
    """One constant as the source writes it."""

    name: str
    written: str  # the value's source text, comments dropped
    source: str  # its comment block (or its group's) and its own trailing comment
    group: str  # the first constant of the group whose block it shares (its own name where it heads one)
    line: int


def comment_lines(text: str) -> dict[int, tuple[str, bool]]:
    """Line number -> (comment text, whether the line holds nothing but the comment)."""
    lines = text.splitlines()
    found: dict[int, tuple[str, bool]] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            found[line] = (token.string.lstrip("#").strip(), lines[line - 1].strip().startswith("#"))
    return found


def _block_above(line: int, comments: dict[int, tuple[str, bool]]) -> str:
    """The comment-only lines directly above `line`, joined (empty if a blank line or code is right above)."""
    parts: list[str] = []
    above = line - 1
    while above in comments and comments[above][1]:
        parts.append(comments[above][0])
        above -= 1
    return " ".join(reversed(parts))


def _target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _joined(shared: str, own: str) -> str:
    if shared and own:
        return f"{shared.rstrip('.')}; {own}"
    return shared or own


def sourced_constants(body: list[ast.stmt], text: str, is_constant: Callable[[str], bool]) -> list[Sourced]:
    """The assignments of `body` (a module's or a class's) whose name `is_constant`, each with its source."""
    comments = comment_lines(text)
    rows: list[Sourced] = []
    shared, group, previous_end = "", "", -1
    for stmt in body:
        name = _target(stmt)
        if name is None or not is_constant(name):
            previous_end = -1  # any other statement ends a group
            continue
        above = _block_above(stmt.lineno, comments)
        if above or stmt.lineno != previous_end + 1:
            shared, group = above, name
        end = stmt.end_lineno or stmt.lineno
        own = " ".join(comments[line][0] for line in range(stmt.lineno, end + 1) if line in comments)
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        assert value is not None  # _target names only assignments with a value
        written = " ".join(
            line.split("#", 1)[0].strip() for line in (ast.get_source_segment(text, value) or "").splitlines()
        )
        written = written.replace("( ", "(").replace(" )", ")")
        rows.append(Sourced(name, written, _joined(shared, own), group if shared else name, stmt.lineno))
        previous_end = end
    return rows


def is_numeric(value: Any) -> bool:
    """A number, or a table or tuple of numbers (the keys of a table may be anything)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return True
    if isinstance(value, dict):
        return bool(value) and all(is_numeric(v) for v in value.values())
    if isinstance(value, tuple | list):
        return bool(value) and all(is_numeric(v) for v in value)
    return False


def shown_value(value: Any, written: str) -> str:
    """The value as the page shows it: as written where it is a literal, else the expression and what it comes to."""
    try:
        literal = ast.literal_eval(written) == value
    except (ValueError, SyntaxError, TypeError):
        literal = False
    if literal and not isinstance(value, dict):
        return written
    return _plain(value) if isinstance(value, dict) else f"{written} = {_plain(value)}"


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_plain(v) for v in value) + ")"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{significant(value, 4)}"
