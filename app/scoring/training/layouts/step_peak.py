"""Which moment of a training step holds the most memory: the start of the backward or the optimizer step.

The parts of memory.memory_breakdown_gb are not all live at once. At the start of the backward (the loss) a GPU holds
the weights, the optimizer states, the gradients that persist from step to step, every stored activation and the
loss's logits. The backward frees activations layer by layer as the gradients fill (a sum of one falling and one rising
straight line, largest at an end), so at its end and through the optimizer step the activations and logits are gone and
every gradient is held, beside the temporaries of the optimizer's update. The need is the larger of the two moments.
Bytes per parameter are memory.py's (shared/research/training_estimators.md §1.2-1.3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.specs import ModelSpec
from app.scoring.training.layouts.experts import all_expert_params, expert_data_parallel, expert_parallel
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import GB, Layout
from app.scoring.training.layouts.optimizer import StateRecipe, state_recipe
from app.scoring.training.step.step_time import local_micro_batches

if TYPE_CHECKING:
    from app.scoring.workload import TrainingWorkload

# Stacks that free every gradient between steps: PyTorch's Optimizer.zero_grad(set_to_none=True), the default since
# PyTorch 2.0 (torch/optim/optimizer.py), drops each .grad; torchtitan (FSDP2: each unsharded gradient reduce-scattered
# and freed in post-backward, its optimizers' zero_grad() between steps) and torchtune's recipes
# (`optimizer.zero_grad(set_to_none=True)`), which the "pytorch" stack stands for, run so. Megatron-LM and NeMo keep a
# contiguous gradient buffer that is zeroed, never freed (megatron/core/distributed/param_and_grad_buffer.py,
# `zero_grad_buffer`); DeepSpeed ZeRO-1/2, under which the hf stack runs, keeps its contiguous gradient partitions; LLM
# Foundry and auto are kept on the side that never under-sizes. Measured: a plain PyTorch loop's step starts at 12 B per
# parameter (fp32 weights, m and v) and ends its backward 4 B higher (its fp32 gradients), none held between steps
# (docs/measurements/h200-2026-12-04-train-step.json, memory_by_phase_gb: start_gb, backward_end_gb).
GRADS_FREED_STACKS = frozenset({"torchtitan", "pytorch"})

# Stacks whose AdamW update is one fused kernel with no gradient-sized temporaries: Megatron-Core and NeMo (Transformer
# Engine / Apex FusedAdam, multi_tensor_apply in chunks), torchtitan (`optimizer.implementation = "fused"`, its
# default: torch.optim.AdamW(fused=True)), torchtune, which the "pytorch" stack stands for (its recipes' configs set
# `fused: True` on torch.optim.AdamW: 93 of 95 in torchtune 0.4.0, 2024-11, and 118 of 123 in 0.6.1, the Llama 3.1 8B
# LoRA and QLoRA configs among them), HF Trainer (transformers' default `optim` is "adamw_torch_fused" with torch 2.8
# or later: training_args.py `default_optim`, transformers 5.25), and auto, priced as those stacks run a job (their
# splits, partial recompute and grad buffer). PyTorch's own default on CUDA, foreach AdamW (torch/optim/adamw.py
# `_multi_tensor_adamw`: `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`), allocates one copy of the
# second moment for the whole parameter group: LLM Foundry is priced with it, and a plain PyTorch loop or an HF Trainer
# on torch before 2.8 ("adamw_torch") holds it too, beyond these sizes.
# Measured: fused AdamW's step added nothing to the backward's end (same file: optimizer_peak_gb = backward_end_gb).
FUSED_OPTIMIZER_STACKS = frozenset({"megatron", "nemo", "torchtitan", "pytorch", "hf", "auto"})

# Bytes per trained parameter of that temporary: the second moment's (fp32 under mixed-precision AdamW, bf16 under
# pure-bf16 AdamW); bitsandbytes' 8-bit AdamW updates block by block in one kernel (`optimizer_update_8bit_blockwise`).
FOREACH_TEMPORARY_BYTES = {"adamw": 4.0, "adamw_bf16": 2.0, "adamw_8bit": 0.0}


@dataclass(frozen=True, slots=True)
class StepPeak:
    """What moves between the two moments, GB per GPU: the gradients (inside model_states), whether they are held at
    the backward's start too, and the optimizer update's temporaries. `update_gradients_gb` is what the update holds
    of the gradients where that is not all of them: the optimizer step fused into the backward updates each parameter
    as its gradient is ready and frees that gradient, so one tensor's at most (None: every gradient)."""

    gradients_gb: float
    grads_persist: bool
    optimizer_temporary_gb: float
    update_gradients_gb: float | None = None

    def backward_start_gb(self, breakdown: dict[str, float]) -> float:
        """Weights, optimizer states, persisting gradients, live gathered params, every activation and the logits."""
        states = breakdown["model_states"] - (0.0 if self.grads_persist else self.gradients_gb)
        return states + breakdown["live_params"] + breakdown["activations"] + breakdown["logits"]

    def _states_at_update_gb(self, breakdown: dict[str, float]) -> float:
        if self.update_gradients_gb is None:
            return breakdown["model_states"]
        return breakdown["model_states"] - self.gradients_gb + self.update_gradients_gb

    def optimizer_step_gb(self, breakdown: dict[str, float]) -> float:
        """Weights, optimizer states, every gradient (one, fused into the backward), live gathered params and the
        update's temporaries."""
        return self._states_at_update_gb(breakdown) + breakdown["live_params"] + self.optimizer_temporary_gb

    def at_optimizer_step(self, breakdown: dict[str, float]) -> bool:
        """The optimizer step is the peak (ties go to the backward's start)."""
        return self.optimizer_step_gb(breakdown) > self.backward_start_gb(breakdown)

    def needed_gb(self, breakdown: dict[str, float]) -> float:
        return max(self.backward_start_gb(breakdown), self.optimizer_step_gb(breakdown))

    def parts_gb(self, breakdown: dict[str, float]) -> dict[str, float]:
        """The breakdown's parts live at the fuller moment, with the update's temporaries beside them and the runtime
        reserve: they sum to needed_gb plus the reserve, as a memory chart should draw the need."""
        at_update = self.at_optimizer_step(breakdown)
        if at_update:
            states = self._states_at_update_gb(breakdown)
        else:
            states = breakdown["model_states"] - (0.0 if self.grads_persist else self.gradients_gb)
        return {
            "model_states": states,
            "live_params": breakdown["live_params"],
            "activations": 0.0 if at_update else breakdown["activations"],
            "logits": 0.0 if at_update else breakdown["logits"],
            "optimizer_temporaries": self.optimizer_temporary_gb if at_update else 0.0,
            "runtime_reserve": breakdown["runtime_reserve"],
        }


@dataclass(frozen=True, slots=True)
class TrainedShare:
    """Trained parameters one GPU holds of one sharding group, before bytes: `params` split as
    memory.model_state_bytes splits them, `dp` the data-parallel ranks that shard their per-parameter bytes."""

    params: float
    dp: int


def trained_shares(
    model: ModelSpec, method: str, layout: Layout, gpu_count: int, lora_rank: int
) -> tuple[TrainedShare, ...]:
    """One GPU's trained weights, split as memory.model_state_bytes splits them (TP × PP; the routed experts over
    PP × EP under EP; LoRA's adapters): once per layout, then priced at each per-parameter size (_trained_bytes)."""
    split, dp = layout.tensor_parallel * layout.pipeline_parallel, layout.shard_ranks(gpu_count)
    if method not in ("pretrain", "full_ft"):
        return (TrainedShare(lora_adapter_params(model, lora_rank) / split, dp),)
    ep = expert_parallel(layout, model) if layout.expert_parallel else 1
    if ep <= 1:
        return (TrainedShare(model.params_b * 1e9 / split, dp),)
    experts = all_expert_params(model)
    edp = expert_data_parallel(dp, ep, layout.tensor_parallel)
    dense = TrainedShare((model.params_b * 1e9 - experts) / split, dp)
    return dense, TrainedShare(experts / (layout.pipeline_parallel * ep), edp)


def _trained_bytes(shares: tuple[TrainedShare, ...], per_param: Callable[[int], float]) -> float:
    """Bytes one GPU holds for its trained weights at `per_param(data-parallel ranks sharding them)` bytes each."""
    total = shares[0].params * per_param(shares[0].dp)
    for share in shares[1:]:
        total = total + share.params * per_param(share.dp)
    return total


def grads_persist(framework: str, layout: Layout, gpu_count: int, global_batch_seqs: int | None) -> bool:
    """Gradients are held at the backward's start: on a stack that keeps them between steps (GRADS_FREED_STACKS), under
    a DDP reducer (its gradient buckets live as long as the model), or within a step that adds several micro-batches
    into them (accumulation, or a pipeline's micro-batches; an unknown batch counts as accumulating)."""
    if framework not in GRADS_FREED_STACKS or layout.pipeline_parallel > 1 or global_batch_seqs is None:
        return True
    if layout.zero_stage < 3 and layout.data_parallel(gpu_count) > 1:
        return True
    return local_micro_batches(global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs) > 1


def step_peak(
    model: ModelSpec,
    method: str,
    layout: Layout,
    gpu_count: int,
    lora_rank: int,
    recipe: StateRecipe,
    framework: str,
    global_batch_seqs: int | None,
) -> StepPeak:
    """The gradients and optimizer temporaries of one GPU, and whether the gradients persist (grads_persist)."""
    b, stage = recipe.state_bytes, layout.zero_stage
    fused = framework in FUSED_OPTIMIZER_STACKS or recipe.on_cpu  # offloaded: the update runs on the host's CPUs
    temporary = 0.0 if fused else FOREACH_TEMPORARY_BYTES[recipe.optimizer]
    grad_bytes = 0.0 if recipe.on_cpu else b.grads
    shares = trained_shares(model, method, layout, gpu_count, lora_rank) if grad_bytes or temporary else ()
    # zero bytes a parameter is zero bytes a GPU: no shares to price (offloaded gradients, a fused update)
    grads = _trained_bytes(shares, lambda dp: grad_bytes / (dp if stage >= 2 else 1)) if grad_bytes else 0.0
    temps = _trained_bytes(shares, lambda dp: temporary / (dp if stage else 1)) if temporary else 0.0
    persist = grads_persist(framework, layout, gpu_count, global_batch_seqs)
    if recipe.optimizer_in_backward and not persist and grads:
        # each parameter's update runs on its own gradient (a per-tensor step holds no group-wide temporary)
        one = largest_trained_tensor(model, method, layout) * grad_bytes
        return StepPeak(grads / GB, persist, 0.0, min(grads, one) / GB)
    return StepPeak(grads / GB, persist, temps / GB)


def largest_trained_tensor(model: ModelSpec, method: str, layout: Layout) -> float:
    """Parameters in the largest tensor one GPU trains, whose gradient an update fused into the backward holds at
    most: the token embedding or LM head (vocab × hidden, split by TP) where every weight trains; none worth counting
    under LoRA (an adapter's A or B, rank × hidden)."""
    if method not in ("pretrain", "full_ft"):
        return 0.0
    return model.vocab_size * model.hidden_size / layout.tensor_parallel


def workload_peak(model: ModelSpec, w: TrainingWorkload, layout: Layout, gpu_count: int) -> StepPeak:
    """step_peak of a workload's method, adapters, optimizer recipe, stack and global batch."""
    recipe = state_recipe(w)
    return step_peak(model, w.method, layout, gpu_count, w.lora_rank, recipe, w.framework, w.global_batch_seqs)
