"""Activation offloading: the activations a step stores for its backward copied to host memory in the forward and
back in the backward, so the GPU holds a couple of layers' worth rather than every layer's.

torchtune's OffloadActivations (training/_activation_offloading.py, torchtune 0.4.0; `enable_activation_offloading`)
moves each tensor autograd saves to pinned host memory on a side CUDA stream as the forward makes it, and in the
backward brings the next layer's back while the current one runs (`use_streams=True`, its default), so a GPU holds
the layer whose tensors are in flight and the one computing. torchtune pairs it with activation checkpointing, whose
saved tensors are the layers' inputs; it leaves the output projection's (and so the loss's logits) on the GPU.
Measured on its optimization-flags table (README, 2024-11): Llama 3.2 3B full fine-tune at batch 2 × 4,096 on one
A100, "+ Activation Offloading" 23.1 → 21.8 GiB peak active at 7,309 → 7,301 tokens/s: the 28 layer inputs (1.4 GB)
gone, the copies hidden under compute.
"""

from __future__ import annotations

from app.scoring.specs import GpuSpec
from app.scoring.training.layouts.optimizer import host_link_gbs

# Layers' stored activations on the GPU while the rest are in host memory: the one whose tensors are being copied (to
# the host in the forward, back for the backward) and the one computing (torchtune OffloadActivations, above).
ON_GPU_LAYERS = 2


def offloaded_activation_bytes(stored_per_layer: float, working_layer: float, layers: int, kept: float) -> float:
    """Bytes of stored activations one GPU holds with offloading: ON_GPU_LAYERS layers' stored tensors, plus the
    `working_layer` a recomputed layer rebuilds in the backward (0 without recompute), never more than it `kept`
    without offloading (a model of fewer layers)."""
    return min(kept, min(ON_GPU_LAYERS, layers) * stored_per_layer + working_layer)


def activation_offload_seconds(gpu: GpuSpec, moved_bytes: float, micro_batches: int, hidden_under_s: float) -> float:
    """Seconds a step waits on activation copies: `moved_bytes` a micro-batch (the stored activations that leave the
    GPU) to the host in the forward and back in the backward over PCIe (optimizer.host_link_gbs), on a side stream
    that overlaps `hidden_under_s` of the GPU's compute (torchtune's use_streams; its A100 table above shows the
    copies hidden): only the excess is exposed."""
    copies_s = 2 * moved_bytes * micro_batches / (host_link_gbs(gpu) * 1e9)
    return max(0.0, copies_s - hidden_under_s)


def activation_copy_seconds(gpu: GpuSpec, moved_bytes: float, micro_batches: int) -> float:
    """The copies' own time, hidden or not (activation_offload_seconds before the overlap)."""
    return activation_offload_seconds(gpu, moved_bytes, micro_batches, 0.0)
