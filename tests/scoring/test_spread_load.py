"""A fixed load spread over every copy of a layout the rented instance holds (estimates.spread_load, found by spread):
the copies, one copy's share, the load they serve together, and the words a row says them in."""

from __future__ import annotations

from typing import Any

import pytest

from app.scoring.hardware.machines import Machine
from app.scoring.inference.estimates import spread_load
from app.scoring.inference.estimates.spread_load import (
    load_words,
    per_copy_workload,
    served_share,
    spread_copies,
    spread_words,
)
from app.scoring.workload import InferenceWorkload

EIGHT = Machine(gpus_per_node=8, link="nvlink", instance_gpus=8)
RATE = InferenceWorkload(model="llama-3.1-8b", scenario="request_rate", requests_per_s=20)


def _workload(**fields: Any) -> InferenceWorkload:
    return InferenceWorkload(model="llama-3.1-8b", **fields)


@pytest.mark.parametrize(
    ("fields", "gpu_count", "copies"),
    [
        ({"scenario": "request_rate", "requests_per_s": 20}, 1, 8),
        ({"scenario": "request_rate", "requests_per_s": 20}, 2, 4),
        ({"scenario": "request_rate", "requests_per_s": 20}, 8, 1),
        ({"scenario": "concurrency", "concurrency": 3}, 1, 3),  # no more copies than clients
        ({"scenario": "concurrency", "concurrency": 64}, 2, 4),
        ({"scenario": "single_stream"}, 1, 1),  # one request at a time runs on one copy
        ({"scenario": "latency_bound"}, 1, 1),  # a capacity question: copies fill the instance as it is
        ({"scenario": "request_rate", "requests_per_s": 2, "peak_requests_per_s": 20}, 1, 1),  # a peak sizes replicas
    ],
)
def test_a_fixed_load_runs_on_each_copy_the_instance_holds(fields: dict[str, Any], gpu_count: int, copies: int) -> None:
    assert spread_copies(EIGHT, _workload(**fields), gpu_count) == copies


def test_a_rate_splits_evenly_and_clients_by_the_busiest_copy() -> None:
    assert per_copy_workload(RATE, 8).requests_per_s == pytest.approx(2.5)
    assert per_copy_workload(RATE, 1) is RATE
    clients = _workload(scenario="concurrency", concurrency=10)
    assert per_copy_workload(clients, 8).concurrency == 2  # the busiest copy's
    assert served_share(clients, 8) == pytest.approx(10 / 16)  # 8 copies of 2 would serve 16 clients
    assert served_share(_workload(scenario="concurrency", concurrency=16), 8) == 1.0
    assert served_share(RATE, 8) == 1.0


def test_the_words_say_the_copies_their_share_the_idle_gpus_and_one_copy() -> None:
    assert load_words(RATE) == "20 requests/s" and load_words(RATE, 8) == "2.5 requests/s each"
    assert spread_words(RATE, EIGHT, 1, 1, None) == ""
    assert spread_words(RATE, EIGHT, 2, 4, (136.2, 36.61)) == (
        "4 copies share this load (5 requests/s each), one on each 2 GPUs of the rented 8-GPU instance; one copy "
        "would serve it at p99 TTFT 136 ms, TPOT 36.6 ms"
    )
    clients = _workload(scenario="concurrency", concurrency=3)
    assert spread_words(clients, EIGHT, 1, 3, None) == (
        "3 copies share this load (1 client each), one on each GPU of the rented 8-GPU instance, 5 GPUs idle at this "
        "load; one copy alone would not keep up with it"
    )
    assert load_words(_workload(scenario="concurrency", concurrency=10), 8) == "2 clients on the busiest"


def test_a_per_copy_workload_is_made_once_per_workload_and_copies() -> None:
    """The memo (found by speed21) hands back one copy per (workload asked, copies), each at its own share."""
    rate = _workload(scenario="request_rate", requests_per_s=16)
    eight, four = per_copy_workload(rate, 8), per_copy_workload(rate, 4)
    assert per_copy_workload(rate, 8) is eight and eight.requests_per_s == pytest.approx(2.0)
    assert four.requests_per_s == pytest.approx(4.0)  # the copies are in the key
    other = _workload(scenario="request_rate", requests_per_s=8)
    assert per_copy_workload(other, 8).requests_per_s == pytest.approx(1.0)  # another workload, its own share


def test_a_per_copy_workload_is_never_read_for_another_workload_at_a_reused_id() -> None:
    """An entry whose id was reused by a new workload (its own workload gone) is not served to the new one."""
    rate = _workload(scenario="request_rate", requests_per_s=16)
    stale = _workload(scenario="request_rate", requests_per_s=1)
    spread_load._PER_COPY[(id(rate), 8)] = (stale, stale)  # as if `stale` had held rate's id
    assert per_copy_workload(rate, 8).requests_per_s == pytest.approx(2.0)


def test_a_peak_spread_over_the_billed_instances_is_their_every_copy_at_the_peak_as_a_fixed_load() -> None:
    """spread2: 2 instances of 8 hold 16 TP1 or 8 TP2 copies; a TP16 copy takes both, one copy; 5 peak clients run on
    5 copies at most; the peak becomes the load the copies share (its rate, or its clients), no peak left."""
    rate = InferenceWorkload(model="llama-3.1-8b", peak_requests_per_s=3)
    clients = InferenceWorkload(model="llama-3.1-8b", peak_concurrency=5)
    counts = [spread_load.peak_copies_if_spread(EIGHT, rate, gpus, 2) for gpus in (1, 2, 16)]
    assert counts == [16, 8, 1]
    assert spread_load.peak_copies_if_spread(EIGHT, clients, 1, 2) == 5
    fixed = spread_load.peak_as_fixed_load(rate)
    assert (fixed.scenario, fixed.requests_per_s, fixed.peak_requests_per_s) == ("request_rate", 3, None)
    assert per_copy_workload(fixed, 8).requests_per_s == 3 / 8
    closed = spread_load.peak_as_fixed_load(clients)
    assert (closed.scenario, closed.concurrency, closed.peak_concurrency) == ("concurrency", 5, None)
