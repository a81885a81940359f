"""The value sets, ids and bounds a workload's fields take: shared by the edge models, the forms that offer
the choices and the questions (mix, plan) built on them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

# One request in ~12 days: the least traffic any rate field takes. Below it $ per token overflows (a replica
# that is all idle time), and a denormal rate (5e-324) made infinite costs, serialised as null.
MIN_REQUESTS_PER_S = 1e-6
# The least latency limit (TTFT and TPOT, ms) taken: a microsecond, far below any decode step a GPU in the catalog
# takes (a TPOT of a few ms at best), so no real target is refused; below it 1e-300 ms was taken and its refusal
# printed the target as ~300 zeros. A 0.001 ms TPOT still ranks (every offer over the limit, said so).
MIN_LATENCY_LIMIT_MS = 0.001
# A replica's GPU limit when none is given: eight nodes of eight. Layouts across nodes are tried only when no single
# node holds the model (a 1T-parameter MoE on Hopper, 405B in bf16), so for every model that fits one node this
# changes nothing; below it, a 2 x 8 H200 replica of Kimi-K2 was never considered.
REPLICA_MAX_GPUS = 64

Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]  # an element's: KV cache, stored weights
# A weight precision as the engine runs it: its element dtype (int8 and int4 weight-only, W8A16 / W4A16; fp8 and fp4
# W8A8 / W4A4 where the GPU has the peak), or int8_w8a8, INT8 weights and activations on the INT8 tensor peak
# (dtypes.INT8_W8A8). A KV cache has no such choice: kv_dtype stays a Dtype.
WeightDtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int8_w8a8", "int4", "fp4"]

Engine = Literal["trtllm", "vllm", "sglang", "llamacpp", "hf"]
Scenario = Literal["latency_bound", "max_throughput", "fixed_batch", "concurrency", "request_rate", "single_stream"]
Method = Literal["pretrain", "full_ft", "lora", "qlora"]
FULL_WEIGHT_METHODS = ("pretrain", "full_ft")  # no adapters: lora_rank means nothing to them
Precision = Literal["bf16", "fp16", "fp8", "fp4"]
AttentionParallel = Literal["auto", "tp", "dp"]
ExpertParallel = Literal["tp", "ep"]
# expert_parallel names two things: inference's places a served MoE's experts (tp | ep, an input); a training layout's
# is its expert-parallel degree (an int its layout search picks, no input). Each side's error for the other's kind.
EXPERT_PLACEMENT_NOT_DEGREE = (
    "tp or ep only (where a served MoE's experts go), not a degree such as {value}: ep places whole experts over the "
    "layout's tensor-parallel GPUs (E / TP per GPU); a training layout's expert-parallel degree is picked by its search"
)
TRAINING_TAKES_NO_EXPERT_PARALLEL = (
    "not a training input, so neither tp, ep nor a degree: the ranking picks each layout's expert-parallel degree "
    "itself (an int, layout_detail.expert_parallel); tp or ep place a served model's experts (inference's "
    "expert_parallel)"
)
Framework = Literal["auto", "megatron", "nemo", "llm-foundry", "torchtitan", "hf", "pytorch"]
# The stacks that run QLoRA as it is priced here (NF4 base weights dequantised per matmul, data parallel or FSDP):
# HF Trainer + PEFT over bitsandbytes (the QLoRA paper's own code) and torchtune's QLoRA recipes ("pytorch"); "auto"
# runs it as hf does (frameworks.split_stack). Megatron-LM, NeMo's Megatron-Core path, torchtitan and LLM Foundry
# load no bitsandbytes NF4 weights: ranking QLoRA under them priced a run their docs do not describe (found by qa32).
QLORA_FRAMEWORKS = ("auto", "hf", "pytorch")
# The stacks that step the optimizer inside the backward, each gradient freed after its parameter's update: torchtune
# ("pytorch": optimizer_in_bwd, its recipes' OptimizerInBackwardWrapper) and torchtitan
# (optimizer.early_step_in_backward, OptimizersInBackwardContainer); both free gradients between steps (step_peak).
OPTIMIZER_IN_BACKWARD_FRAMEWORKS = ("pytorch", "torchtitan")
Optimizer = Literal["adamw", "adamw_bf16", "adamw_8bit"]  # training.layouts.optimizer.STATE_BYTES
Offload = Literal["none", "cpu", "cpu_weights"]  # training.layouts.optimizer.StateRecipe
PriceType = Literal["on_demand", "spot", "reserved", "marketplace", "capacity_block"]  # specs.PRICE_TYPES
RankBy = Literal["auto", "output_tokens", "all_tokens", "requests", "fleet"]

ShortId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._\-]+$")]

# Each load-setting scenario's own field: required under it, meaningless under the others.
SCENARIO_OF_LOAD_FIELD = {"batch": "fixed_batch", "concurrency": "concurrency", "requests_per_s": "request_rate"}
SCENARIO_LOAD_UNITS = {
    "batch": "requests together",
    "concurrency": "requests in flight",
    "requests_per_s": "arrivals per second",
}
