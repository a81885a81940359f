"""`make run` on a fresh machine: README promises Python >= 3.11 and make are all it needs. A python3 too old, or a
Debian python3 without its venv module (the python3-venv package), must stop with what to install, not a pip
resolver error or ensurepip's traceback halfway through."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def make_venv_with(fake_python3: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`make` building only the venv, with `fake_python3` (a shell script body) as the first python3 on PATH."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "python3"
    script.write_text("#!/bin/sh\n" + fake_python3, encoding="utf-8")
    script.chmod(0o755)
    venv = tmp_path / "venv"
    return subprocess.run(
        ["make", "-C", str(ROOT), f"VENV={venv}", f"{venv}/bin/python"],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_make_names_the_python_it_needs_when_python3_is_too_old(tmp_path: Path) -> None:
    old = 'case "$1" in -c) exit 1 ;; --version) echo "Python 3.9.2" ;; *) exit 0 ;; esac\n'
    done = make_venv_with(old, tmp_path)
    assert done.returncode != 0
    assert "needs Python >= 3.11 as python3 (found Python 3.9.2)" in done.stdout + done.stderr


def test_make_names_python3_venv_when_the_venv_module_is_missing(tmp_path: Path) -> None:
    no_venv = 'case "$1" in -c) exit 0 ;; -m) echo "ensurepip is not available" >&2; exit 1 ;; esac\n'
    done = make_venv_with(no_venv, tmp_path)
    assert done.returncode != 0
    assert "apt-get install python3-venv" in done.stdout + done.stderr
