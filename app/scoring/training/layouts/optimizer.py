"""The optimizer state recipe a user chooses for the weights they train, and the CPU offload of those states.

Bytes per trained parameter held by the job, by recipe (shared/research/training_estimators.md §1.2):
- adamw: mixed-precision AdamW, bf16 weights and gradients, fp32 master weights + m + v (ZeRO paper §3.1, K = 12;
  TM101): 16 B. The default, unchanged.
- adamw_bf16: weights, gradients and both moments in bf16, no fp32 master (research §1.2: PEFT's Llama-3.2-3B full
  fine-tune allocates 26.07 GB = 3.21B x 8 B; torchtune's recipes train so, `dtype: bf16`): 8 B.
- adamw_8bit: bitsandbytes' blockwise 8-bit m and v (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
  Quantization": 1 B each, one fp32 scale per 2,048 values) on bf16 weights and gradients (torchtune's single-device
  full fine-tune: PagedAdamW8bit on a bf16 model): 6 B.
With `offload` "cpu" the gradients and optimizer states live in host memory and the optimizer step runs on the CPU
(ZeRO-Offload, Ren et al. 2021: DeepSpeed's offload_optimizer): the GPU keeps the bf16 weights (sharded under
ZeRO-3/FSDP), and each step pays the PCIe copies and the CPU's Adam (offload_seconds). FSDP's CPU offload (FSDP2
CPUOffloadPolicy, FSDP1 CPUOffload(offload_params=True); torchtune's fsdp_cpu_offload, "CPU offload of parameters,
gradients, and optimizer states", full_finetune_distributed.py in torchtune 0.3.0) keeps the sharded weights in host
memory too and copies each layer's up for its compute: `offload` "cpu_weights", on a layout that shards the weights
(ZeRO-3/FSDP); the updated weights stay on the host, and the copies up run beside the compute (weight_copy_seconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.efficiency import training as eff
from app.scoring.efficiency.inference import PCIE_GBS_UNIDIR
from app.scoring.specs import GpuSpec

if TYPE_CHECKING:
    from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class StateBytes:
    """Bytes per trained parameter: the weights the matmuls read, their gradients, and the optimizer's own (master
    weights and moments); host_traffic is what one CPU Adam update reads and writes per parameter."""

    weights: float
    grads: float
    optimizer: float
    host_traffic: float

    @property
    def total(self) -> float:
        return self.weights + self.grads + self.optimizer


STATE_BYTES = {
    # fp32 master + m + v read and written (24 B), the bf16 gradient read and the bf16 weight written (4 B)
    "adamw": StateBytes(eff.BYTES_BF16, eff.BYTES_BF16, eff.BYTES_OPT_AND_MASTER, 28.0),
    # bf16 weight, m and v read and written (12 B), the bf16 gradient read (2 B)
    "adamw_bf16": StateBytes(eff.BYTES_BF16, eff.BYTES_BF16, 4.0, 14.0),
    # bf16 weight read and written (4 B), 8-bit m and v read and written (4 B), the bf16 gradient read (2 B)
    "adamw_8bit": StateBytes(eff.BYTES_BF16, eff.BYTES_BF16, 2.0, 10.0),
}

OPTIMIZER_NOTES = {
    "adamw": "mixed-precision AdamW (16 bytes/param) for trained weights",
    "adamw_bf16": (
        "pure-bf16 AdamW (weights, gradients, m and v in bf16, no fp32 master: 8 bytes/param) for trained weights: "
        "updates smaller than bf16's 8-bit mantissa resolves round away, which can slow or stall convergence (Zamirai "
        "et al. 2020, 'Revisiting BFloat16 Training'; stochastic rounding or Kahan summation repairs it)"
    ),
    "adamw_8bit": (
        "8-bit AdamW (bitsandbytes blockwise-quantised m and v on bf16 weights and gradients: 6 bytes/param) for "
        "trained weights; Dettmers et al. 2022 match 32-bit Adam's accuracy with it"
    ),
}

OFFLOAD_NOTE = (
    "optimizer offloaded to the CPU (ZeRO-Offload's offload_optimizer): gradients and optimizer states in host memory, "
    "which is not checked; the GPU keeps the bf16 weights; each step copies gradients down and weights up over PCIe "
    "and runs Adam on the host's CPUs (FSDP's CPU offload, torchtune's fsdp_cpu_offload, moves the weights too: "
    "offload cpu_weights)"
)
WEIGHTS_OFFLOAD_NOTE = (
    "optimizer and weights offloaded to the CPU (FSDP's CPU offload, torchtune's fsdp_cpu_offload, DeepSpeed's "
    "offload_param): gradients, optimizer states and the sharded weights in host memory, which is not checked; on a "
    "layout that shards the weights (FSDP / ZeRO-3) the GPU holds only the layers gathered for compute, each shard "
    "copied up before the forward's and the backward's all-gathers; elsewhere the GPU keeps the bf16 weights, as "
    "offload cpu does"
)

# CPU Adam throughput, bound by host memory traffic: ZeRO-Offload's CPU-Adam updated 8 B parameters in 2.41 s on a
# DGX-2 host (2 x Xeon Platinum 8168; Ren et al. 2021, Table 3), 28 B of traffic each (STATE_BYTES["adamw"]): 93 GB/s.
# Newer hosts have more memory bandwidth (8-12 DDR5 channels a socket): an upper bound on the time there.
HOST_ADAM_GBS = 8e9 * 28.0 / 2.41 / 1e9
# GPUs sharing one host's CPUs and memory: an 8-GPU HGX/DGX server (PCIe cards: eff.PCIE_SERVER_GPUS alike).
GPUS_PER_HOST = 8


@dataclass(frozen=True, slots=True)
class StateRecipe:
    """What the trained weights carry: an optimizer of STATE_BYTES, its states on the GPU or in host memory; and two
    choices of where a step's tensors live: stored activations in host memory (layouts/activation_offload.py), and
    the optimizer step fused into the backward, each gradient freed once its parameter is updated (step_peak)."""

    optimizer: str = "adamw"
    offload: str = "none"
    activations_offloaded: bool = False
    optimizer_in_backward: bool = False

    @property
    def state_bytes(self) -> StateBytes:
        return STATE_BYTES[self.optimizer]

    @property
    def on_cpu(self) -> bool:
        """Gradients and optimizer states in host memory, the update on the CPU (both offloads)."""
        return self.offload in ("cpu", "cpu_weights")

    @property
    def weights_on_cpu(self) -> bool:
        """The sharded weights in host memory too, where a layout shards them (FSDP's CPU offload: weights_leave)."""
        return self.offload == "cpu_weights"

    def weights_leave(self, zero_stage: int) -> bool:
        """The GPU holds none of its weight shard between uses: FSDP's CPU offload on a ZeRO-3 (FSDP) layout; a
        layout that does not shard the weights keeps them whole on the GPU, as offload cpu does."""
        return self.weights_on_cpu and zero_stage >= 3


DEFAULT_RECIPE = StateRecipe()


def state_recipe(w: TrainingWorkload) -> StateRecipe:
    return StateRecipe(w.optimizer, w.offload, w.activation_offload, w.optimizer_in_backward)


def gpu_state_bytes_per_param(recipe: StateRecipe, zero_stage: int, dp: int) -> float:
    """Bytes per trained parameter one GPU of a DP group holds (ZeRO table, research §1.2): offloaded, only the bf16
    weights (sharded under ZeRO-3) stay; else ZeRO-1 shards the optimizer's bytes, ZeRO-2 the gradients too, ZeRO-3
    everything."""
    b = recipe.state_bytes
    if recipe.weights_leave(zero_stage):
        return 0.0
    if recipe.on_cpu:
        return b.weights / dp if zero_stage >= 3 else b.weights
    if zero_stage >= 3:
        return b.total / dp
    if zero_stage == 2:
        return b.weights + (b.grads + b.optimizer) / dp
    if zero_stage == 1:
        return b.weights + b.grads + b.optimizer / dp
    return b.total


# Host-to-device copies of a GPU's weight shard a micro-batch under FSDP's CPU offload: before the forward's
# all-gather and again before the backward's, as FSDP reshards after the forward (FSDP2 CPUOffloadPolicy with
# reshard_after_forward=True, torchtune's default; FSDP1 CPUOffload(offload_params=True) alike).
WEIGHT_COPIES_PER_MICRO_BATCH = 2


def weight_copy_seconds(gpu: GpuSpec, shard_bytes: float, micro_batches: int) -> float:
    """PCIe time of FSDP's CPU offload copying a GPU's `shard_bytes` of weights up WEIGHT_COPIES_PER_MICRO_BATCH times
    a micro-batch (prefetched beside the compute, as its all-gathers are: the caller credits the overlap)."""
    return WEIGHT_COPIES_PER_MICRO_BATCH * shard_bytes * micro_batches / (host_link_gbs(gpu) * 1e9)


def host_link_generation(gpu: GpuSpec) -> int:
    """The PCIe generation host copies are priced at: the card's (a newer one than listed at the fastest listed; none
    stated: Gen4)."""
    return min(gpu.pcie_gen or 4, max(PCIE_GBS_UNIDIR))


def host_link_gbs(gpu: GpuSpec) -> float:
    """GPU-host copy bandwidth, one direction, x16 (PCIE_GBS_UNIDIR: effective throughput by generation)."""
    return PCIE_GBS_UNIDIR.get(host_link_generation(gpu), PCIE_GBS_UNIDIR[4])


@dataclass(frozen=True, slots=True)
class OffloadTime:
    """Seconds a step spends on its offloaded optimizer: PCIe copies and the CPU's Adam."""

    params_per_gpu: float
    params_per_host: float
    pcie_s: float
    cpu_s: float

    @property
    def total_s(self) -> float:
        return self.pcie_s + self.cpu_s


NO_OFFLOAD = OffloadTime(0.0, 0.0, 0.0, 0.0)


def offload_time(
    recipe: StateRecipe, gpu: GpuSpec, gpu_count: int, trained_per_gpu: float, zero_stage: int = 0
) -> OffloadTime:
    """Each GPU copies the gradients of its optimizer shard to the host and the updated bf16 weights back (not where
    the weights stay in host memory: FSDP's CPU offload copies them up before each use, weight_copy_seconds); the
    host's CPUs update the shards of the GPUs they serve. Neither overlaps the GPU's work here (ZeRO-Offload hides
    part of the gradient copy under backward and can delay the update a step; not credited: an upper bound)."""
    if not recipe.on_cpu:
        return NO_OFFLOAD
    b = recipe.state_bytes
    up = 0.0 if recipe.weights_leave(zero_stage) else b.weights
    pcie_s = trained_per_gpu * (b.grads + up) / (host_link_gbs(gpu) * 1e9)
    per_host = trained_per_gpu * min(gpu_count, GPUS_PER_HOST)
    cpu_s = per_host * b.host_traffic / (HOST_ADAM_GBS * 1e9)
    return OffloadTime(trained_per_gpu, per_host, pcie_s, cpu_s)
