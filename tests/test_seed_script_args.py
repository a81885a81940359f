"""The seed builders' command line: --help prints the usage, a bad path stops before anything is read or written.

`python scripts/build_seed_prices.py --help` used to run the build with '--help' as the reference directory and
fail deep inside it ('--help/prices.csv'); importing a builder (as the seed tests do) must not parse pytest's argv.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.reference_arg import DEFAULT_REFERENCE, reference_dir

ROOT = Path(__file__).resolve().parent.parent
BUILDERS = ("build_seed_specs.py", "build_seed_prices.py")


@pytest.mark.parametrize("script", BUILDERS)
def test_help_prints_usage_and_builds_nothing(script: str, tmp_path: Path):
    seed_before = {p.name: p.stat().st_mtime_ns for p in (ROOT / "seed_data").iterdir()}
    done = subprocess.run([sys.executable, f"scripts/{script}", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python scripts/{script} [REFERENCE_DIR]")
    assert "writes seed_data/" in done.stdout
    bad = subprocess.run(
        [sys.executable, f"scripts/{script}", str(tmp_path / "nope")], cwd=ROOT, capture_output=True, text=True
    )
    assert bad.returncode == 1
    assert f"error: {tmp_path / 'nope'} is not a directory" in bad.stderr
    assert {p.name: p.stat().st_mtime_ns for p in (ROOT / "seed_data").iterdir()} == seed_before


def test_reference_dir_reads_one_optional_directory(tmp_path: Path):
    assert reference_dir(["x"], "s.py", "w") == DEFAULT_REFERENCE
    assert reference_dir(["x", str(tmp_path)], "s.py", "w") == tmp_path
    with pytest.raises(SystemExit) as two:
        reference_dir(["x", str(tmp_path), str(tmp_path)], "s.py", "w")
    assert "one argument at most, got 2" in str(two.value.code)


@pytest.mark.parametrize("module", ("scripts.build_seed_specs", "scripts.build_seed_prices"))
def test_importing_a_builder_leaves_argv_alone(module: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "argv", ["pytest", "-q", "--whatever"])
    builder = importlib.reload(importlib.import_module(module))
    assert builder.REFERENCE == DEFAULT_REFERENCE
