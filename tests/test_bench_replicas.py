"""The replicas-note benchmark measures what it says: each of its questions is a fixed load that the ranking checks
against replicas sized to the limits (a question the check skips would time two plain rankings)."""

from __future__ import annotations

import pytest

from app.service.rank.answer_body import replicas_workload
from benchmarks import bench_rank, bench_replicas


@pytest.mark.parametrize("make", [bench_replicas.concurrency_workload, bench_replicas.request_rate_workload])
def test_each_benchmark_question_runs_the_second_ranking(make) -> None:  # type: ignore[no-untyped-def]
    workload = make(0)
    sized = replicas_workload(workload)
    assert sized is not None and sized.scenario == "latency_bound"
    assert make(1).input_len != workload.input_len  # each run a distinct workload: no memo serves the next


def test_no_other_benchmark_question_warms_their_estimates() -> None:
    """Step estimates are memoised per input length: a range another question ranked (the 512 clients' second
    ranking, bench_rank's open loop) made the request rate's second ranking time as nearly free, 1.01x."""
    runs = range(3 * bench_replicas.RUNS)  # both sides of measure(): starts 0 and 2 * RUNS
    concurrency = {bench_replicas.concurrency_workload(run).input_len for run in runs}
    request_rate = {bench_replicas.request_rate_workload(run).input_len for run in runs}
    bench_rank_lengths = {bench_rank.open_loop_workload(run).input_len for run in range(3 * bench_rank.RUNS)}
    assert not concurrency & request_rate and not (concurrency | request_rate) & bench_rank_lengths
