"""A real uvicorn server in a subprocess over a given database, for tests that need real HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]  # the repository: uvicorn imports app.main from here


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def live_server(
    database_url: str, workers: int = 1, start_timeout_s: float = 120, factory: str = "app.main:create_app"
) -> Iterator[str]:
    """Serve the app (`factory`: uvicorn's module:callable) on a free loopback port until the block ends; yields the
    base URL.

    The start timeout is generous: `make test` runs the Postgres pass and the accuracy jobs beside the SQLite
    pass on two cores, where two workers importing the app took longer than 30 s (a start-up time is not
    what the durability tests measure)."""
    port = free_port()
    env = {
        **os.environ,
        "GPUMATCH_DATABASE_URL": database_url,
        "GPUMATCH_ENVIRONMENT": "test",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            factory,
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, start_timeout_s)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_healthy(url: str, process: subprocess.Popen, timeout_s: float) -> None:  # type: ignore[type-arg]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer /healthz within {timeout_s} s")
