"""A ranking solves each layout once per way its GPU is wired: machines that wire a GPU alike (an 8-GPU node rented
by the GPU and rented whole, a cluster of such nodes) share their layouts' solutions, and each machine's answer is
the one it gets alone."""

from dataclasses import fields, replace
from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import machine_of
from app.scoring.inference.estimates import configurations
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.inference.step.context import InferenceContext, build_context, wiring_seen_by
from app.scoring.specs import CatalogSnapshot, GpuSpec, Offer
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


def _pcie_offer(provider: str, gpu_id: str, gpu_count: int) -> Offer:
    return Offer(
        provider,
        provider.upper(),
        gpu_id,
        gpu_count,
        "on_demand",
        1.0 + gpu_count / 100,
        date(2026, 11, 1),
        gpus_per_node=gpu_count,
        intra_node_link="pcie",
    )


def _written_out(estimate: InferenceEstimate) -> str:
    """Every field of an estimate, its reason, footprint and terms written out."""
    values = {f.name: getattr(estimate, f.name) for f in fields(estimate)}
    values.update(reason_words=estimate.reason, memory_footprint_gb=estimate.memory_gb, terms=list(estimate.terms))
    values["peak_spread_p99"] = estimate.peak_spread_p99 is not None  # a solver, one per estimate (spread2)
    return repr(values)


@pytest.mark.parametrize(
    "gpu_id, question",
    [
        ("L40S", {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 0.5}),  # served
        ("L4", {"model": "llama-3.1-70b", "weight_dtype": "fp8"}),  # every layout refused: misses the limits
    ],
)
def test_pcie_nodes_of_other_sizes_share_each_layout_and_answer_as_alone(
    monkeypatch: pytest.MonkeyPatch, gpu_id: str, question: dict[str, object]
) -> None:
    # A PCIe card's TP group reads no scale-up domain (context.wiring_seen_by): a 4-GPU and an 8-GPU node solve the
    # layouts they both hold once, and each answers as it would alone, word for word.
    workload = InferenceWorkload.model_validate(question)
    gpu, model = GPUS[gpu_id], MODELS[workload.model]
    machines = [machine_of(_pcie_offer(name, gpu_id, count), gpu) for name, count in (("4", 4), ("8", 8), ("1", 1))]
    alone = [_written_out(configurations.best_on_machine(gpu, m, model, workload)) for m in machines]
    calls: list[tuple[int, int | None, int]] = []
    solve = configurations.solve_unless_outclassed

    def counting(gpu, gpu_count, model, w, tensor_parallel=None, pipeline_parallel=1, *rest, **named):  # type: ignore[no-untyped-def]
        found = solve(gpu, gpu_count, model, w, tensor_parallel, pipeline_parallel, *rest, **named)
        if found is not None:  # searched (a layout skipped as outclassed on one node is not, and is not kept)
            calls.append((gpu_count, tensor_parallel, pipeline_parallel))
        return found

    monkeypatch.setattr(configurations, "solve_unless_outclassed", counting)
    solved: configurations.Solved = {}
    explained: configurations.Explained = {}
    together = [
        _written_out(configurations.best_on_machine(gpu, m, model, workload, solved, explained)) for m in machines
    ]
    assert calls and len(calls) == len(set(calls))  # 1x, 2x and 4x layouts solved once for the three nodes
    assert together == alone


def test_wirings_a_tp_group_sees_alike_build_equal_contexts() -> None:
    # The proof behind sharing: a GPU wired into any scale-up domain (or none) builds, at each TP, the context of every
    # other wiring that wiring_seen_by says the TP group sees alike; a context reading the domain otherwise fails here.
    model = MODELS["deepseek-r1"]
    for gpu in GPUS.values():
        for linked in (True, False):
            wirings = [
                replace(gpu, scaleup_domain_gpus=domain, interconnect_gbs=gpu.interconnect_gbs if linked else None)
                for domain in (1, 2, 4, 8, 16, 72)
            ]
            for tp in (1, 2, 4, 8, 16):
                contexts: dict[GpuSpec, InferenceContext] = {}
                for wired in wirings:
                    ctx = build_context(wired, model, "fp8", "fp8", "sglang", tp, 1, 0.0, 1, 1)
                    seen = contexts.setdefault(wiring_seen_by(wired, tp), ctx)
                    assert seen == ctx, (gpu.id, linked, wired.scaleup_domain_gpus, tp)
