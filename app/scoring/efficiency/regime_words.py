"""A band table key in words, as an answer says it: `ttft_ms@traffic|trtllm|nvidia|fp8|dense` reads "TTFT under
traffic, TensorRT-LLM on NVIDIA, FP8, dense" (found by qa36: term details quoted the raw key)."""

from __future__ import annotations

METRIC_WORDS = {
    "ttft_ms": "TTFT",
    "tpot_ms": "TPOT",
    "decode_tok_s": "decode tokens/s",
    "prefill_tok_s": "prefill tokens/s",
    "output_tok_s_per_gpu": "output tokens/s per GPU",
    "tokens_s_per_gpu": "training tokens/s per GPU",
    "step_time_s": "training step time",
    "mfu_pct": "MFU",
}
LOAD_WORDS = {"traffic": "under traffic", "fixed": "at a fixed load"}
ENGINE_WORDS = {
    "trtllm": "TensorRT-LLM",
    "vllm": "vLLM",
    "sglang": "SGLang",
    "llamacpp": "llama.cpp",
    "hf": "Hugging Face",
    "megatron-lm": "Megatron-LM",
    "nemo": "NeMo",
    "maxtext": "MaxText",
    "torchtitan": "torchtitan",
    "llm-foundry": "LLM Foundry",
    "pytorch": "PyTorch",
}
VENDOR_WORDS = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}
CLASS_WORDS = {
    "16bit": "16-bit",
    "fp8": "FP8",
    "fp4": "FP4",
    "int8": "INT8",
    "int4": "INT4",
    "other": "another precision",
    "full_ft": "full fine-tuning",
    "lora": "LoRA",
    "qlora": "QLoRA",
    "pretrain": "pretraining",
    "moe": "MoE",
}


def regime_words(key: str) -> str:
    """`key` (metric[@load][|engine|vendor[|precision|architecture or method]], or metric|multinode) in words."""
    head, *parts = key.split("|")
    metric, _, load = head.partition("@")
    words = METRIC_WORDS.get(metric, metric.replace("_", " "))
    if load:
        words += f" {LOAD_WORDS.get(load, load)}"
    if parts == ["multinode"]:
        return f"{words}, tensor parallel across nodes"
    if len(parts) >= 2:
        engine, vendor = parts[0], parts[1]
        words += f", {ENGINE_WORDS.get(engine, engine)} on {VENDOR_WORDS.get(vendor, vendor)}"
    words += "".join(f", {CLASS_WORDS.get(part, part)}" for part in parts[2:])
    return words
