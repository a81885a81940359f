"""A ranking's fixed load spread over copies shares what equal inputs give (found by speed21): a layout solved at one
copy's share serves every machine whose copies take that share, and the one-copy p99 a spread row says is solved once
per layout the machines wire alike, or read where the ranking solved that layout at the whole load. Each machine
answers as it does alone, word for word."""

from dataclasses import fields
from typing import Any

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import Machine
from app.scoring.inference.estimates import configurations
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100, MODEL = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
WHOLE_NODE = Machine(gpus_per_node=8, link="nvlink", instance_gpus=8)
# another provider's whole node, wired alike, as a distinct object (a ranking meets each machine once)
OTHER_WHOLE_NODE = Machine(gpus_per_node=8, link="nvlink", instance_gpus=8, node_gpus=8)
BY_THE_GPU = Machine(gpus_per_node=8, link="nvlink", instance_gpus=1)  # one GPU of the same node, one copy


def _written_out(estimate: InferenceEstimate) -> str:
    """Every field of an estimate, its reason, footprint, spread words, one-copy p99s and terms written out."""
    values: dict[str, Any] = {f.name: getattr(estimate, f.name) for f in fields(estimate)}
    values.update(reason_words=estimate.reason, memory_footprint_gb=estimate.memory_gb, terms=list(estimate.terms))
    values.update(one_copy_p99=estimate.one_copy_p99_ms, spread_words=estimate.spread_note)
    values["peak_spread_p99"] = estimate.peak_spread_p99 is not None  # a solver, one per estimate (spread2)
    return repr(values)


def _counting_solves(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int | None, object]]:
    """The searches run from now on: (GPUs, TP, the load the copy is solved at)."""
    calls: list[tuple[int, int | None, object]] = []
    solve = configurations.solve_unless_outclassed

    def counting(gpu, gpu_count, model, w, tensor_parallel=None, pipeline_parallel=1, *rest, **named):  # type: ignore[no-untyped-def]
        found = solve(gpu, gpu_count, model, w, tensor_parallel, pipeline_parallel, *rest, **named)
        calls.append((gpu_count, tensor_parallel, w.concurrency or w.requests_per_s))
        return found

    monkeypatch.setattr(configurations, "solve_unless_outclassed", counting)
    return calls


def test_machines_running_one_layout_share_its_one_copy_p99(monkeypatch: pytest.MonkeyPatch) -> None:
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="request_rate", requests_per_s=20, input_len=1_041)
    # two providers' H100 nodes run 2 TP4 copies; an H200 node 4 TP2 copies, one of which would not keep up alone
    slots = [(H100, WHOLE_NODE), (H100, OTHER_WHOLE_NODE), (GPUS["H200"], WHOLE_NODE)]
    alone = [_written_out(configurations.best_on_machine(gpu, m, MODEL, workload)) for gpu, m in slots]
    solved: configurations.Solved = {}
    explained: configurations.Explained = {}
    one_copies: configurations.OneCopies = {}
    together = [
        configurations.best_on_machine(gpu, m, MODEL, workload, solved, explained, one_copies) for gpu, m in slots
    ]
    assert all(e.copies_sharing_load > 1 for e in together)
    assert together[0].one_copy_p99 is together[1].one_copy_p99  # one value, written once for both
    calls = _counting_solves(monkeypatch)
    assert [_written_out(e) for e in together] == alone  # the H200's is its own
    assert len(calls) == 2  # each layout's one copy at the whole load, solved on the first read


def test_a_one_copy_p99_the_ranking_solved_at_the_whole_load_is_read_not_solved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="request_rate", requests_per_s=20, input_len=1_043)
    alone = _written_out(configurations.best_on_machine(H100, WHOLE_NODE, MODEL, workload))
    solved: configurations.Solved = {}
    explained: configurations.Explained = {}
    one_copies: configurations.OneCopies = {}
    for machine in (BY_THE_GPU, WHOLE_NODE):  # a GPU rented singly runs one copy at the whole load
        spread = configurations.best_on_machine(H100, machine, MODEL, workload, solved, explained, one_copies)
    calls = _counting_solves(monkeypatch)
    assert spread.copies_sharing_load == 2 and spread.one_copy_p99_ms is not None
    assert _written_out(spread) == alone
    assert calls == []  # read from the by-the-GPU machine's layout


def test_copies_whose_busiest_takes_equal_clients_share_a_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    # 16 clients on a 4-GPU and a 5-GPU PCIe instance: 4 and 5 one-GPU copies, 4 clients on the busiest of each
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="concurrency", concurrency=16, input_len=1_045)
    gpu = GPUS["L40S"]
    machines = [Machine(gpus_per_node=n, link="pcie", instance_gpus=n) for n in (4, 5)]
    alone = [configurations.best_on_machine(gpu, m, MODEL, workload) for m in machines]
    calls = _counting_solves(monkeypatch)
    solved: configurations.Solved = {}
    explained: configurations.Explained = {}
    together = [configurations.best_on_machine(gpu, m, MODEL, workload, solved, explained) for m in machines]
    assert (1, 1, 4) in calls
    assert len(calls) == len(set(calls))  # the one-GPU layout at 4 clients solved once for both
    assert [_written_out(e) for e in together] == [_written_out(e) for e in alone]
