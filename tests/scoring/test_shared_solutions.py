"""A ranking solves each layout once per way its GPU is wired: machines that wire a GPU alike (an 8-GPU node rented
by the GPU and rented whole, a cluster of such nodes) share their layouts' solutions, and each machine's answer is
the one it gets alone."""

from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import machine_of
from app.scoring.inference.estimates import configurations
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MODEL = MODELS["llama-3.1-70b"]


def _offer(provider: str, gpu_count: int, **machine: object) -> Offer:
    return Offer(
        provider,
        provider.upper(),
        "H100-SXM",
        gpu_count,
        "on_demand",
        2.0 + gpu_count / 100,
        date(2026, 11, 1),
        gpus_per_node=8,
        intra_node_link="nvlink",
        **machine,  # type: ignore[arg-type]
    )


OFFERS = (
    _offer("by-the-gpu", 1),  # one GPU of an 8-GPU NVLink node
    _offer("whole-node", 8),
    _offer("cluster", 8, inter_node_fabric="infiniband", max_nodes=4, inter_node_gbps_per_gpu=400.0),
)


def test_machines_wiring_a_gpu_alike_share_each_layout_and_answer_as_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # input_len makes the workload this test's own, so no ranking memoised by another test answers it
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=1_031)
    alone = [
        configurations.best_on_machine(GPUS["H100-SXM"], machine_of(o, GPUS["H100-SXM"]), MODEL, workload)
        for o in OFFERS
    ]
    calls: list[tuple[int, int | None, int]] = []
    solve = configurations.solve_unless_outclassed

    def counting(gpu, gpu_count, model, w, tensor_parallel=None, pipeline_parallel=1, *rest, **named):  # type: ignore[no-untyped-def]
        solved = solve(gpu, gpu_count, model, w, tensor_parallel, pipeline_parallel, *rest, **named)
        if solved is not None:  # None: outclassed by a layout solved before it, its search skipped
            calls.append((gpu_count, tensor_parallel, pipeline_parallel))
        return solved

    monkeypatch.setattr(configurations, "solve_unless_outclassed", counting)
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=OFFERS), MODEL)
    assert len(calls) == len(set(calls))  # each single-node layout solved once for the three machines
    assert {(o.gpu_count, o.tensor_parallel, o.batch, o.output_tokens_per_s) for o in ranking.options} == {
        (e.gpu_count, e.tensor_parallel, e.batch, e.output_tokens_per_s) for e in alone
    }


def test_a_layout_machines_share_is_explained_once_and_answers_as_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=1_033)  # this test's own
    alone = [
        configurations.best_on_machine(GPUS["H100-SXM"], machine_of(o, GPUS["H100-SXM"]), MODEL, workload)
        for o in OFFERS
    ]
    explained: list[int] = []
    explain = configurations.explain

    def counting(solution):  # type: ignore[no-untyped-def]
        explained.append(id(solution))
        return explain(solution)

    monkeypatch.setattr(configurations, "explain", counting)
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=OFFERS), MODEL)
    assert len(explained) == len(set(explained)) < len(OFFERS)  # two machines' best layout, explained once
    assert [(o.gpu_count, o.tensor_parallel, o.batch, o.ttft_ms, o.assumptions) for o in ranking.options] == [
        (e.gpu_count, e.tensor_parallel, e.batch, e.ttft_ms, e.assumptions) for e in alone
    ]
