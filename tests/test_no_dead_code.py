"""Every top-level function and class in app/ is used by the app, a script or a benchmark: code only tests call
pins behaviour nobody gets (offers_by_gpu and hostable_count were tested and memoised, and nothing ranked with
them). Read from the source: a name counts as used where it appears outside its own definition."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USERS = ("app", "scripts", "benchmarks", "templates", "migrations")
# Used outside the served code on purpose, each for a reason
KEPT = {
    "min_gpus_to_fit": "the tests' oracle for the fewest GPUs a training run fits on",
    "fitted_values": "the inference refit the accuracy tests run (tests/accuracy_jobs.py)",
}


def _definitions() -> dict[str, int]:
    """Undecorated top-level functions and classes of app/ (a decorated one is registered: a route, a command),
    with how many times each name is defined."""
    found: dict[str, int] = {}
    for path in (ROOT / "app").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.decorator_list:
                found[node.name] = found.get(node.name, 0) + 1
    return found


def _source() -> str:
    files = (p for folder in USERS for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".html"))
    return "\n".join(p.read_text(encoding="utf-8") for p in files)


def test_every_function_and_class_in_app_is_used_outside_the_tests() -> None:
    words = Counter(re.findall(r"\w+", _source()))
    unused = sorted(name for name, defined in _definitions().items() if name not in KEPT and words[name] <= defined)
    assert unused == []
