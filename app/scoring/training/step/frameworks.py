"""The training stacks the estimator tells apart: each framework's class (FRAMEWORK_CLASS, which picks its efficiency
factor, its attention kernel and its FP8 speedup), the stacks that split a job by data parallelism alone
(DATA_PARALLEL_ONLY: no tensor or pipeline parallelism, DeepSpeed-Ulysses for long sequences) and every stack with no
tensor or pipeline parallelism (NO_MODEL_PARALLEL), and the stacks that split long sequences by ring context parallelism
(RING_CONTEXT_PARALLEL)."""

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

# Stacks that split each sequence over CP ranks passing K/V blocks around a ring (ring attention, load-balanced causal
# chunks): Megatron-Core's context_parallel_size (Megatron-Core docs, "context parallelism"; Megatron-LM and NeMo run
# it: NeMo's performance summary lists Llama-3 70B at TP4 PP4 CP2) and torchtitan's Context Parallel (PyTorch 2.6
# `torch.distributed.tensor.experimental.context_parallel`; PyTorch blog 2025, "Breaking barriers: training long
# context LLMs with 1M sequence length in PyTorch using Context Parallel"). "auto", a tuned open stack that already
# splits by TP and PP, splits long sequences the same way: it is priced as one of these stacks would run the job.
RING_CONTEXT_PARALLEL = frozenset({"megatron", "megatron-lm", "nemo", "torchtitan", "auto"})

FRAMEWORK_CLASS = {
    "megatron": "megatron",
    "megatron-lm": "megatron",
    "nemo": "megatron",
    "llm-foundry": "foundry",
    "torchtitan": "torchtitan",
    "hf": "hf",
    "pytorch": "pytorch",
}


def split_stack(framework: str, method: str) -> str:
    """The stack whose sequence split (DeepSpeed-Ulysses or ring CP) a job takes, and which names it in a layout's
    words: "hf" for QLoRA under "auto", the stack a user would pick for it being HF Trainer + PEFT over bitsandbytes
    NF4, with DeepSpeed-Ulysses for a long sequence (the Megatron-class stacks and torchtitan shard no NF4 weights by
    TP, PP or CP: search_space.data_parallel_only_method); the framework itself otherwise. The split follows hf, and
    an SP layout recomputes as hf does (no partial level: search_space.recompute_levels); the efficiency class and
    attention kernel stay auto's."""
    return "hf" if framework == "auto" and method == "qlora" else framework


# Two techniques share the name "sequence parallelism", and every face says which it means: Megatron's splits the
# LayerNorm/dropout activations inside the TP group (its all-reduces become an all-gather and a reduce-scatter of the
# same bytes; no layout field, no degree of its own), DeepSpeed-Ulysses' splits each sequence over SP ranks by
# all-to-alls of q, k, v and the attention output (a layout's sequence_parallel, `SP4`, on data-parallel-only stacks).
MEGATRON_SP = "Megatron sequence parallelism (within TP)"
ULYSSES_SP = "Ulysses sequence parallelism (SP)"
