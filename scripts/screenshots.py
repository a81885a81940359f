"""Screenshots of the main pages for the README (docs/screenshots/*.png), in Debian's chromium.

Starts its own server on a free port over a fresh seeded SQLite database; `make screenshots`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
PAGES = [
    ("inference", "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&kv_dtype=fp8&tpot_ms=40", 1280, 2400),
    (
        "batch-job",
        "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&scenario=max_throughput&job_requests=200000"
        "&job_deadline_hours=4",
        1280,
        2400,
    ),
    ("training", "/?phase=training&model=llama-3.1-70b&method=lora&total_tokens=500000000", 1280, 2200),
    ("plan", "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12", 1280, 2200),
    ("compare", "/compare?phase=inference&model=llama-3.1-8b&gpus=L40S,H100-SXM,H200,B200", 1280, 1800),
    ("gpu", "/gpus/H100-SXM", 1280, 1400),
    ("phone", "/?phase=inference", 390, 1600),  # the blank form: a results page folds it under its summary
    ("phone-results", "/?phase=inference&model=llama-3.1-8b", 390, 1400, "table.ranked"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    database = Path(tempfile.mkdtemp()) / "shots.db"
    env = {**os.environ, "GPUMATCH_DATABASE_URL": f"sqlite:///{database}"}
    server = subprocess.Popen([sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)], env=env, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            for name, path, width, height, *anchor in PAGES:
                page = browser.new_page(viewport={"width": width, "height": 800})
                page.goto(base + path)
                page.wait_for_timeout(1500)  # let Plotly finish drawing
                top = 0
                if anchor:  # the clip starts at this element (a phone's results, below its form)
                    top = page.evaluate(f"document.querySelector('{anchor[0]}').getBoundingClientRect().top")
                page.screenshot(
                    path=str(OUT / f"{name}.png"),
                    full_page=True,
                    clip={"x": 0, "y": top, "width": width, "height": height},
                )
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"wrote {len(PAGES)} screenshots to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
