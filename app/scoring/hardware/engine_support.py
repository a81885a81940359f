"""Which serving engine runs on which accelerator vendor: the one table every inference answer reads.

An engine serves a vendor's accelerators only where its own documentation says it does; a vendor the table does not
list for an engine is refused (no source says it runs there). Vendors are matched to GpuSpec.vendor ignoring case.
The catalog's Intel accelerators are Gaudi (HPU), not Intel GPUs (XPU), so "INTEL" here means Gaudi.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.scoring.specs import GpuSpec

# engine -> vendors it serves. Sources, per engine:
# trtllm: TensorRT-LLM support matrix, NVIDIA GPUs only (nvidia.github.io/TensorRT-LLM/reference/support-matrix.html)
# vllm: vLLM installation docs: NVIDIA CUDA and AMD ROCm GPUs, Google TPU, and the Intel Gaudi (vllm-gaudi) and
#   AWS Neuron (Trainium, Inferentia) hardware plugins (docs.vllm.ai/en/latest/getting_started/installation/)
# sglang: SGLang docs, NVIDIA GPUs and AMD Instinct (docs.sglang.ai/platforms/amd_gpu.html); its TPU backend is a
#   separate JAX project (sglang-jax), not the engine timed here
# llamacpp: llama.cpp build docs, CUDA, HIP (AMD), SYCL (Intel GPUs, not Gaudi), Vulkan, Metal
#   (github.com/ggml-org/llama.cpp/blob/master/docs/build.md)
# hf: transformers generate() on PyTorch's CUDA and ROCm builds (pytorch.org/get-started/locally); Gaudi, TPU and
#   Neuron need other libraries (optimum-habana, torch_xla, optimum-neuron), which are not this engine
ENGINE_VENDORS: dict[str, tuple[str, ...]] = {
    "trtllm": ("NVIDIA",),
    "vllm": ("NVIDIA", "AMD", "Google", "Intel", "AWS"),
    "sglang": ("NVIDIA", "AMD"),
    "llamacpp": ("NVIDIA", "AMD", "Apple"),
    "hf": ("NVIDIA", "AMD"),
}
_UPPER_VENDORS = {engine: frozenset(v.upper() for v in vendors) for engine, vendors in ENGINE_VENDORS.items()}
ENGINE_NAMES = {"trtllm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang", "llamacpp": "llama.cpp", "hf": "HF"}


def runs_on(engine: str, vendor: str) -> bool:
    """Whether `engine` serves accelerators of `vendor` (an engine not in the table: no claim, so yes)."""
    vendors = _UPPER_VENDORS.get(engine)  # checked per configuration in every ranking: the set is built once
    return vendors is None or vendor.upper() in vendors


def engines_for(vendor: str) -> list[str]:
    """The engines that serve `vendor`'s accelerators, in the table's order."""
    return [engine for engine in ENGINE_VENDORS if runs_on(engine, vendor)]


def unsupported_reason(engine: str, gpu: GpuSpec) -> str | None:
    """Why `engine` cannot serve on `gpu` (None when it can): the engine, the vendor and the engines that do."""
    if runs_on(engine, gpu.vendor):
        return None
    name = ENGINE_NAMES.get(engine, engine)
    served = ", ".join(ENGINE_VENDORS[engine])
    others = engines_for(gpu.vendor)
    instead = f"choose engine {_either(others)}" if others else "no engine here serves it"
    return f"engine {engine} ({name}) does not run on {gpu.vendor} {gpu.name}: it serves {served} only; {instead}"


def filter_reason(engine: str, gpus: Iterable[GpuSpec]) -> str | None:
    """Why a request's GPU/vendor filters leave the engine nothing to serve on (None when some GPU is served, or
    none is named): every GPU they leave is one the engine does not run on."""
    left = list(gpus)
    if not left or any(runs_on(engine, g.vendor) for g in left):
        return None
    vendors = sorted({g.vendor for g in left}, key=str.lower)
    name = ENGINE_NAMES.get(engine, engine)
    served = ", ".join(ENGINE_VENDORS[engine])
    others = [e for e in ENGINE_VENDORS if all(runs_on(e, g.vendor) for g in left)]
    instead = f"choose engine {_either(others)}, or" if others else "choose"
    return (
        f"engine {engine} ({name}) runs on {served} only, and the GPU and vendor filters leave only "
        f"{', '.join(vendors)} accelerators: {instead} GPUs it serves"
    )


def _either(names: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
