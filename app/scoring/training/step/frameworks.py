"""The training stacks the estimator tells apart: each framework's class (FRAMEWORK_CLASS, which picks its efficiency
factor, its attention kernel and its FP8 speedup) and the stacks that split a job by data parallelism alone
(DATA_PARALLEL_ONLY: no tensor or pipeline parallelism, DeepSpeed-Ulysses for long sequences)."""

from __future__ import annotations

# Stacks that split a job by data parallelism only (DeepSpeed ZeRO / FSDP sharding, optionally DeepSpeed-Ulysses
# sequence parallelism), without Megatron tensor or pipeline parallelism: HF Trainer / Accelerate and the
# fine-tuning stacks built on DeepSpeed (LLaMA-Factory, XTuner, axolotl).
DATA_PARALLEL_ONLY = frozenset({"hf"})

FRAMEWORK_CLASS = {
    "megatron": "megatron",
    "megatron-lm": "megatron",
    "nemo": "megatron",
    "llm-foundry": "foundry",
    "torchtitan": "torchtitan",
    "hf": "hf",
    "pytorch": "pytorch",
}
