"""The training stacks the estimator tells apart: each framework's class (FRAMEWORK_CLASS, which picks its efficiency
factor, its attention kernel and its FP8 speedup), the stacks that split a job by data parallelism alone
(DATA_PARALLEL_ONLY: no tensor or pipeline parallelism, DeepSpeed-Ulysses for long sequences) and every stack with no
tensor or pipeline parallelism (NO_MODEL_PARALLEL)."""

from __future__ import annotations

# Stacks that split a job by data parallelism only (DeepSpeed ZeRO / FSDP sharding, optionally DeepSpeed-Ulysses
# sequence parallelism), without Megatron tensor or pipeline parallelism: HF Trainer / Accelerate and the
# fine-tuning stacks built on DeepSpeed (LLaMA-Factory, XTuner, axolotl).
DATA_PARALLEL_ONLY = frozenset({"hf"})

# Stacks that run no tensor or pipeline parallelism: a layout search offers them DDP, ZeRO and FSDP only. LLM Foundry
# trains through Composer's FSDP (every MPT benchmark table in its repository is FSDP FULL_SHARD); "pytorch" is plain
# PyTorch DDP/FSDP and torchtune's recipes (single-device, or FSDP over one node's GPUs). torchtitan, Megatron-LM and
# NeMo are the stacks here that split by TP/PP.
NO_MODEL_PARALLEL = DATA_PARALLEL_ONLY | frozenset({"llm-foundry", "pytorch"})

FRAMEWORK_CLASS = {
    "megatron": "megatron",
    "megatron-lm": "megatron",
    "nemo": "megatron",
    "llm-foundry": "foundry",
    "torchtitan": "torchtitan",
    "hf": "hf",
    "pytorch": "pytorch",
}
