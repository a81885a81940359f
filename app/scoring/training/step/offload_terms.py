"""The explanation's line for activation offloading: its PCIe copies, and what of them the step's compute does not
hide (layouts/activation_offload.py)."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.explain import Term
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.activation_offload import activation_copy_seconds, activation_offload_seconds
from app.scoring.training.layouts.memory import Layout, offloaded_away_bytes
from app.scoring.training.layouts.optimizer import host_link_gbs, host_link_generation, state_recipe
from app.scoring.training.step.step_time import StepTime, local_micro_batches
from app.scoring.workload import TrainingWorkload


def activation_offload_terms(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
) -> list[Term]:
    """Activation offloading's PCIe copies, and the part of them the step's compute does not hide
    (activation_offload.activation_offload_seconds)."""
    recipe = state_recipe(w)
    if not recipe.activations_offloaded:
        return []
    moved = offloaded_away_bytes(model, w.seq_len, layout, e, w.framework, w.method, recipe)
    micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
    copies = activation_copy_seconds(gpu, moved, micro)
    hidden_under = st.compute_s + st.expert_gemm_s
    detail = (
        f"2 × {f(moved / 1e9)} GB × {micro} micro-batches / {f(host_link_gbs(gpu))} GB/s PCIe "
        f"Gen{host_link_generation(gpu)} x16 = {f(copies)} s of copies, less the {f(hidden_under)} s of compute they "
        "overlap on a side stream (torchtune's OffloadActivations, use_streams; its A100 table: 7,309 → 7,301 "
        "tokens/s with offloading added), at least 0: the stored activations go to host memory in the forward and "
        "come back in the backward"
    )
    exposed = activation_offload_seconds(gpu, moved, micro, hidden_under)
    return [Term("activations offloaded to CPU", exposed, "s/step", detail)]
