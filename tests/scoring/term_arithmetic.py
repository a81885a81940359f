"""Evaluate the arithmetic a term's text shows: the clause before its first ';', words (units, labels) dropped.

`2.080 ms per step + 61 layers x 0.02120 ms` -> 2.080 + 61 * 0.02120. A word is a run that starts with a letter
(`TB/s`, `TP8`, `MBU`, `ρ`), so the slashes of units are not divisions; a lone `x` or `×` multiplies and `^` raises."""

from __future__ import annotations

import ast
import operator
import re

TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<times>[x×](?![A-Za-z]))|(?P<op>[-+*/^()])|(?P<word>[^\W\d_][^\s()]*))"
)
OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


def expression_of(detail: str) -> str:
    """The Python expression of a term's first clause."""
    clause = re.sub(r"(?<=\d),(?=\d{3})", "", detail.split(";", 1)[0]).strip()
    out, position = [], 0
    while position < len(clause):
        match = TOKEN.match(clause, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read {clause[position:]!r} in {clause!r}")
        position = match.end()
        if match["number"]:
            out.append(match["number"])
        elif match["times"]:
            out.append("*")
        elif match["op"]:
            out.append("**" if match["op"] == "^" else match["op"])
    return " ".join(out)


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](_evaluate(node.operand))
    raise ValueError(f"not arithmetic: {ast.dump(node)}")


def stated_value(detail: str) -> float:
    """What the figures in a term's first clause add up to."""
    return _evaluate(ast.parse(expression_of(detail), mode="eval"))
