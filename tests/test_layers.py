"""The layers hold: the engine imports no outer layer, no face imports another, benchmarks stay outside.

Read from the source (every import statement, including ones inside functions), so a lazy import
cannot hide a dependency; plus one live check that importing the engine loads no web or database code.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"

# package -> prefixes it must never import
FORBIDDEN = {
    "app.scoring": (
        "app.catalog",
        "app.calibration",
        "app.service",
        "app.web",
        "app.cli",
        "app.db",
        "app.models",
        "app.main",
        "benchmarks",
        "fastapi",
        "sqlalchemy",
        "sqlmodel",
        "starlette",
    ),
    "app.calibration": ("app.service", "app.web", "app.cli", "benchmarks", "fastapi"),
    "app.service": ("app.web", "app.cli", "benchmarks", "fastapi", "starlette"),
    "app.cli": ("app.web", "benchmarks", "fastapi"),
    "app.catalog": ("app.service", "app.web", "app.cli", "app.calibration", "benchmarks"),
    "app.web": (
        "app.cli",
        "app.calibration",
        "benchmarks",
        # a face draws what the ranking chose: estimating again it may choose another layout or machine
        "app.scoring.training.estimate.estimate_training",
        "app.scoring.inference.estimates.configurations.solve_on",
    ),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _violations() -> list[str]:
    found = []
    for path in sorted(APP.rglob("*.py")):
        module = _module_name(path)
        for package, banned in FORBIDDEN.items():
            if module == package or module.startswith(package + "."):
                found += [
                    f"{module} imports {name}"
                    for name in sorted(_imports(path))
                    if any(name == b or name.startswith(b + ".") for b in banned)
                ]
    return found


def test_no_layer_imports_a_layer_above_it_or_a_sibling_face() -> None:
    assert _violations() == []


def test_the_rule_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from app.web import render\n")
    assert "app.web.render" in _imports(bad)


@pytest.mark.parametrize(
    "engine_module",
    [
        "app.scoring.inference.ranking.rank",
        "app.scoring.training.ranking.rank",
        "app.scoring.serving.plans.plan",
        "app.calibration.inference.calibrate_inference",
    ],
)
def test_importing_the_engine_loads_no_web_or_database(engine_module: str) -> None:
    code = (
        f"import sys, {engine_module};"
        "bad=[m for m in ('fastapi','sqlalchemy','sqlmodel','starlette') if m in sys.modules]; print(bad);"
        "sys.exit(bool(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_served_app_contains_no_bench_or_load_tooling() -> None:
    assert not [p.name for p in APP.rglob("*.py") if p.stem.startswith(("bench", "load"))]
