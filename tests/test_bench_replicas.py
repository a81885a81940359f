"""The replicas-note benchmark measures what it says: each of its questions is a fixed load that the ranking checks
against replicas sized to the limits (a question the check skips would time two plain rankings)."""

from __future__ import annotations

import pytest

from app.service.rank import replicas_workload
from benchmarks import bench_replicas


@pytest.mark.parametrize("make", [bench_replicas.concurrency_workload, bench_replicas.request_rate_workload])
def test_each_benchmark_question_runs_the_second_ranking(make) -> None:  # type: ignore[no-untyped-def]
    workload = make(0)
    sized = replicas_workload(workload)
    assert sized is not None and sized.scenario == "latency_bound"
    assert make(1).input_len != workload.input_len  # each run a distinct workload: no memo serves the next
