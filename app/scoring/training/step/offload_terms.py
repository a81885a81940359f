"""The explanation's line for the copies a step makes between host memory and the GPU beside its compute: offloaded
activations (layouts/activation_offload.py) and FSDP's CPU offload of the weights (optimizer.weight_copy_seconds),
and what of them the step's compute does not hide."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.explain import Term
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.activation_offload import activation_copy_seconds
from app.scoring.training.layouts.memory import Layout, offloaded_away_bytes
from app.scoring.training.layouts.optimizer import (
    WEIGHT_COPIES_PER_MICRO_BATCH,
    host_link_gbs,
    host_link_generation,
    state_recipe,
    weight_copy_seconds,
)
from app.scoring.training.step.step_time import StepTime, local_micro_batches, weight_shard_bytes
from app.scoring.workload import TrainingWorkload

HOST_COPIES_TERM = "host memory copies"


def host_copy_terms(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
) -> list[Term]:
    """The copies' seconds in figures, less the compute they overlap (step_time.host_copy_seconds); none where the
    workload copies nothing beside its compute."""
    recipe = state_recipe(w)
    micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
    link = f"{f(host_link_gbs(gpu))} GB/s PCIe Gen{host_link_generation(gpu)} x16"
    parts, copies = [], 0.0
    if recipe.activations_offloaded:
        moved = offloaded_away_bytes(model, w.seq_len, layout, e, w.framework, w.method, recipe)
        copies += activation_copy_seconds(gpu, moved, micro)
        parts.append(
            f"2 × {f(moved / 1e9)} GB offloaded activations × {micro} micro-batches (to host memory in the forward, "
            "back in the backward: torchtune's OffloadActivations on a side stream; its A100 table: 7,309 → 7,301 "
            "tokens/s with offloading added)"
        )
    if recipe.weights_leave(layout.zero_stage):
        shard = weight_shard_bytes(model, w.method, layout, gpu_count)
        copies += weight_copy_seconds(gpu, shard, micro)
        parts.append(
            f"{WEIGHT_COPIES_PER_MICRO_BATCH} × {f(shard / 1e9)} GB weight shard × {micro} micro-batches (FSDP's CPU "
            "offload copies each layer's shard up before its all-gather, in the forward and again in the backward, "
            "prefetched as the all-gathers are: FSDP2 CPUOffloadPolicy)"
        )
    if not parts:
        return []
    hidden = st.compute_s + st.expert_gemm_s
    detail = (
        f"({' + '.join(parts)}) / {link} = {f(copies)} s of copies, less the {f(hidden)} s of compute they overlap, "
        "at least 0"
    )
    return [Term(HOST_COPIES_TERM, max(0.0, copies - hidden), "s/step", detail)]
