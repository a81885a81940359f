"""What each serving engine does with a setting a workload may ask for: the KV-cache dtype it keeps, the features
it lacks and the words that refuse them (shared by the workload's validators and the precision questions)."""

from __future__ import annotations

from pydantic import ValidationInfo

# Engines whose KV cache, left at its default, is stored at the model's activation dtype (BF16) whatever the weights:
# vLLM and SGLang `--kv-cache-dtype auto` ("auto will use the model data type"), llama.cpp's f16 cache, Transformers'.
# TensorRT-LLM builds an FP8 checkpoint's cache in FP8 (ModelOpt's kv_cache_quant_algo FP8 in its quantization recipes).
ACTIVATION_DTYPE_KV_ENGINES = frozenset({"vllm", "sglang", "llamacpp", "hf"})
KV_DTYPE_DEFAULT = (
    "default: bf16 on vllm, sglang, llamacpp and hf (their 'auto' keeps the activation dtype); on trtllm the weight "
    "dtype for 8/16-bit weights, else bf16"
)


def default_kv_dtype(weight_dtype: str, engine: str) -> str:
    """The KV-cache dtype an engine uses where the question names none: the weights' dtype for 8/16-bit weights on
    TensorRT-LLM (and engines of unknown kind), BF16 on the engines that keep the activation dtype and for any 4-bit
    or INT8 weights (dequantised to BF16 activations)."""
    if engine in ACTIVATION_DTYPE_KV_ENGINES and weight_dtype == "fp8":
        return "bf16"
    return weight_dtype if weight_dtype in ("fp32", "bf16", "fp16", "fp8") else "bf16"


# Engines without a feature a workload may ask for, and why (each engine's serving docs).
NO_EXPERT_PARALLEL_ENGINES = {
    "llamacpp": "llama.cpp splits a model over GPUs by layer or by row (--split-mode), never expert by expert",
}
# Engines that load no INT8 W8A8 checkpoint (SmoothQuant, compressed-tensors quantized.w8a8), and what they run instead.
NO_W8A8_ENGINES = {
    "llamacpp": "its 8-bit format is GGUF Q8_0, weight_dtype int8, whose measured speed (int8 dot products in its "
    "MMQ kernels included) its own factors were fitted on",
    "hf": "Transformers decompresses a compressed-tensors W8A8 checkpoint's weights to 16-bit for its matmuls, which "
    "weight_dtype int8 prices",
}
NO_PREFIX_CACHE_ENGINES = {
    "hf": "HF generate() builds each request's KV cache anew; vLLM's automatic prefix caching, SGLang's "
    "RadixAttention, TensorRT-LLM's KV cache reuse and llama.cpp's --cache-reuse keep prompts between requests",
}


def w8a8_lack(engine: str) -> str:
    """What `engine` (one of NO_W8A8_ENGINES) lacks, in words: no INT8 W8A8, and what it runs instead."""
    return f"engine {engine} runs no INT8 W8A8 ({NO_W8A8_ENGINES[engine]})"


def w8a8_refusal(engine: str) -> str:
    """Why `engine` (one of NO_W8A8_ENGINES) cannot rank weight_dtype int8_w8a8, naming the field to change."""
    return f"weight_dtype: {w8a8_lack(engine)}: choose weight_dtype int8, or engine vllm, sglang or trtllm"


def _engine_lacks(info: ValidationInfo, lacking: dict[str, str], what: str, instead: str) -> None:
    """Refuse a setting the workload's engine has no such feature for, saying why (`lacking`: engine -> reason)."""
    engine = info.data.get("engine")
    if engine in lacking:
        raise ValueError(f"engine {engine} {what} ({lacking[engine]}): {instead}")
