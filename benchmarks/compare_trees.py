"""In-process ranking CPU of two source trees, side by side: the four inference phases of bench_rank, a 16-client one
and its training phase, base and 100x offers, as CPU ms (time.process_time: a shared machine's other load moves wall
time far more than CPU time).

    python -m benchmarks.compare_trees OLD_TREE NEW_TREE [BLOCKS]

starts one worker per tree (this file with --worker, run in the tree with PYTHONPATH set to it: its app, its
bench_rank and bench_data) and hands them the same workloads in blocks of 5 rankings, alternating which goes first,
so a drift in the machine's load falls on both. Prints each phase's median CPU ms per ranking and the ratio new / old.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PHASES = ("inference", "mla", "open_loop", "concurrency", "batch_job", "training")
BLOCK = 5
BIG_START = 10_000  # the 100x runs' workloads are numbered apart from the base runs'


def worker() -> None:
    """Read 'phase multiplier start count' lines; answer each with the CPU ms of its rankings, as JSON."""
    from app.scoring.workload import InferenceWorkload
    from app.service.rank import ranking
    from benchmarks import bench_rank
    from benchmarks.bench_data import bench_snapshot

    snapshots = {1: bench_snapshot(1), bench_rank.OFFER_MULTIPLIER: bench_snapshot(bench_rank.OFFER_MULTIPLIER)}
    makes = {
        "inference": bench_rank.inference_workload,
        "mla": bench_rank.mla_workload,
        "open_loop": bench_rank.open_loop_workload,
        # 16 clients (a closed loop spread over the copies an instance holds): defined here, bench_rank has none
        "concurrency": lambda run: InferenceWorkload.model_validate(
            {"model": "llama-3.1-8b", "scenario": "concurrency", "concurrency": 16, "input_len": 2000 + run}
        ),
        "batch_job": bench_rank.batch_job_workload,
        "training": bench_rank.training_workload,
    }
    print("ready", flush=True)
    for line in sys.stdin:
        phase, multiplier, start, count = line.split()
        timings_ms = []
        for run in range(int(start), int(start) + int(count)):
            workload = makes[phase](run)
            began = time.process_time()
            ranking.rank("training" if phase == "training" else "inference", workload, snapshots[int(multiplier)])
            timings_ms.append((time.process_time() - began) * 1e3)
        print(json.dumps(timings_ms), flush=True)


def compare(old: Path, new: Path, blocks: int) -> None:
    workers = {}
    for name, tree in (("old", old), ("new", new)):
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        command = [sys.executable, str(Path(__file__).resolve()), "--worker"]
        workers[name] = subprocess.Popen(
            command, cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert workers[name].stdout and workers[name].stdout.readline().strip() == "ready"

    def ask(name: str, request: str) -> list[float]:
        process = workers[name]
        assert process.stdin and process.stdout
        process.stdin.write(request + "\n")
        process.stdin.flush()
        return list(json.loads(process.stdout.readline()))

    for phase in PHASES:
        for multiplier, first in ((1, 0), (100, BIG_START)):
            timings: dict[str, list[float]] = {"old": [], "new": []}
            for block in range(blocks):
                for name in ("old", "new") if block % 2 == 0 else ("new", "old"):
                    timings[name] += ask(name, f"{phase} {multiplier} {first + block * BLOCK} {BLOCK}")
            old_ms, new_ms = statistics.median(timings["old"]), statistics.median(timings["new"])
            label = f"{phase} x{multiplier}"
            print(f"{label:15s} old {old_ms:6.2f} ms  new {new_ms:6.2f} ms  new/old {new_ms / old_ms:.3f}", flush=True)
    for process in workers.values():
        assert process.stdin
        process.stdin.close()
        process.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        compare(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 12)
