"""Switchless boards (AMD Instinct's Infinity Fabric mesh, Gaudi's RoCE all-to-all): a collective among some of
the board's GPUs runs over their own links only, so tensor parallel 2 on an MI300X reduces over one link of seven."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.hardware.mesh import group_link_share, mesh_board, peer_link_share
from app.scoring.inference.step.communication import allreduce_ms
from app.scoring.inference.step.context import build_context
from app.scoring.training.step.communication import collective_bandwidth_gbs

GPUS, MODELS = load_gpu_specs(), load_model_specs()


@pytest.mark.parametrize(
    ("gpu_id", "shares"),
    [
        ("MI300X", [1.0, 1 / 7, 3 / 7, 1.0]),
        ("MI355X", [1.0, 1 / 7, 3 / 7, 1.0]),
        ("GAUDI3", [1.0, 3 / 24, 9 / 24, 21 / 24]),  # 3 of 24 ports per peer; 3 ports scale out
        ("H100-SXM", [1.0, 1.0, 1.0, 1.0]),  # NVSwitch: any group at the full bandwidth
        ("B200", [1.0, 1.0, 1.0, 1.0]),
    ],
)
def test_a_group_uses_its_members_links_on_a_mesh_and_everything_behind_a_switch(gpu_id, shares) -> None:
    gpu = GPUS[gpu_id]
    assert [group_link_share(gpu, g) for g in (1, 2, 4, 8)] == pytest.approx(shares)
    assert peer_link_share(gpu) == pytest.approx(shares[1])


def test_only_the_mi300_platforms_seven_link_mesh_is_read_as_one() -> None:
    meshes = {g for g, spec in GPUS.items() if mesh_board(spec) is not None}
    assert {"MI300X", "MI325X", "MI355X", "GAUDI2", "GAUDI3"} <= meshes
    assert not meshes & {"MI250X", "MI210", "H100-SXM", "H200", "GB200", "A100-SXM-80GB", "TPU-V5P"}


def test_tensor_parallel_2_on_an_mi300x_pays_one_links_bandwidth_and_says_so() -> None:
    model, gpu = MODELS["llama-3.1-70b"], GPUS["MI300X"]
    switched = replace(gpu, interconnect="a switch")  # the same GPU behind a switch
    tokens = 4096.0  # a prefill chunk: the all-reduce is bandwidth-bound
    mesh2 = build_context(gpu, model, "bf16", "bf16", "vllm", 2)
    switch2 = build_context(switched, model, "bf16", "bf16", "vllm", 2)
    assert mesh2.link_gbs == pytest.approx(switch2.link_gbs / 7)
    alpha = 2 * mesh2.layers_per_stage * DEFAULT_EFFICIENCY.allreduce_alpha_nvlink_ms
    mesh_bw = allreduce_ms(mesh2, DEFAULT_EFFICIENCY, tokens) - alpha
    assert mesh_bw == pytest.approx(7 * (allreduce_ms(switch2, DEFAULT_EFFICIENCY, tokens) - alpha))
    assert any("switchless mesh" in note and "1 of those links" in note for note in mesh2.assumptions)
    # at TP8 the ring uses every link, as behind a switch, and nothing is said
    mesh8 = build_context(gpu, model, "bf16", "bf16", "vllm", 8)
    assert mesh8.link_gbs == pytest.approx(build_context(switched, model, "bf16", "bf16", "vllm", 8).link_gbs)
    assert not any("mesh" in note for note in mesh8.assumptions)
    # a KV hand-off to one peer (disaggregated serving on one node) goes over one link at any TP
    assert mesh8.peer_link_gbs == pytest.approx(mesh8.link_gbs / 7)


def test_training_collectives_are_not_narrowed_yet() -> None:
    """Held (docs/ACCURACY.md, 2026-12-05 mesh note): training prices a group of two MI300X at the full listed
    bandwidth. This test fails when that changes, so the note and the training fit are revisited with it."""
    e, gpu = DEFAULT_TRAINING_EFFICIENCY, GPUS["MI300X"]
    assert collective_bandwidth_gbs(e, gpu, 2) == collective_bandwidth_gbs(e, gpu, 8)


def test_the_all_reduce_term_names_the_boards_own_link() -> None:
    from app.scoring.inference.estimates.estimate import estimate_inference
    from app.scoring.workload import InferenceWorkload

    w = InferenceWorkload(engine="vllm", scenario="fixed_batch", batch=4, ttft_ms=60000, tpot_ms=1000)
    for gpu_id, link in (("MI300X", "Infinity Fabric 64 GB/s"), ("H200", "NVLink 450 GB/s")):
        terms = {t.name: t.detail for t in estimate_inference(GPUS[gpu_id], 2, MODELS["llama-3.1-70b"], w).terms}
        assert terms["TP all-reduce"].startswith("2 per layer × 80 layers × ("), terms["TP all-reduce"]
        assert f"over {link} one way" in terms["TP all-reduce"]
