"""`gpumatch rank … | head` ended in a BrokenPipeError traceback once head had its lines (found by qa28): the CLI
now stops quietly when its reader goes away, as other Unix tools do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_ranking_piped_into_head_ends_without_a_traceback(database: str) -> None:
    read, write = os.pipe()
    os.close(read)  # a reader that has already gone, as head's does once it has printed its lines
    env = {**os.environ, "GPUMATCH_DATABASE_URL": database, "PYTHONPATH": str(ROOT)}
    code = "import sys; from app.cli.main import main; sys.exit(main())"
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--total-tokens", "1e9", "--limit", "40"]
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], stdout=write, stderr=subprocess.PIPE, env=env, cwd=ROOT, timeout=120
    )
    os.close(write)
    assert "Traceback" not in done.stderr.decode() and "BrokenPipeError" not in done.stderr.decode()
    assert done.returncode == 1
