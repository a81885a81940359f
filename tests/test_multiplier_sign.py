"""A multiple a person reads is written with × ("TTFT 0.72-3.58× the estimate", "widened 1.36× each way"), not the
letter x (found by qa40's walk). Ids, shapes and CSV keys (`1024x256`) join two numbers, so they are not matched."""

from __future__ import annotations

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
# a number, or a formatted value's closing brace, then the letter x as a word of its own: "1.4x slower", "{v}x the"
MULTIPLE_AS_X = re.compile(r"(\d|\})x(?=[\s,;:.)]|$)")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes: they are read by developers, beside comments."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _strings_read_by_people(path: Path) -> list[tuple[int, str]]:
    source = path.read_text()
    tree = ast.parse(source)
    skip = _docstrings(tree)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # its source, braces included: `{v}x the` is the case to catch
            found.append((node.lineno, "\n".join(lines[node.lineno - 1 : (node.end_lineno or node.lineno)])))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip | inner:
            found.append((node.lineno, node.value))
    return found


def test_no_string_the_app_shows_writes_a_multiple_with_the_letter_x():
    offending = [
        f"{path.relative_to(APP.parent)}:{line}: {text[:80]}"
        for path in sorted(APP.rglob("*.py"))
        for line, text in _strings_read_by_people(path)
        if MULTIPLE_AS_X.search(text)
    ]
    assert offending == []
