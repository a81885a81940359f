"""One inference configuration's fixed numbers: `InferenceContext`, and `build_context`, which makes it.

The context holds everything that depends on (GPU, model, dtypes, TP, PP, engine) and not on the efficiency
constants, so calibration can rebuild timings cheaply with other constants: bytes and FLOPs per GPU, the matmul
peak (with its FP16-accumulate and W8A8 notes), the tensor-parallel link and fabric, and the engine's defaults.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from app.scoring.efficiency.inference import (
    COMPILED_ENGINES,
    FP16_ACCUMULATE_ENGINES,
    PCIE_GBS_UNIDIR,
    PREFILL_CHUNK_TOKENS,
    PREFILL_FIRST_ENGINES,
    engine_defaults,
    sglang_prefill_chunk,
)
from app.scoring.efficiency.mamf import rocm_matmul_scale
from app.scoring.explain import significant
from app.scoring.hardware.dtypes import WEIGHT_BYTES, dense_peak_tflops, matmul_dtype
from app.scoring.hardware.machines import DEFAULT_RDMA_GBPS_PER_GPU, FABRIC_EFFICIENCY
from app.scoring.hardware.mesh import group_link_share, mesh_note, peer_link_share, scaleup_link_name
from app.scoring.hashed_once import HashedOnce, hashed_once
from app.scoring.inference.step.memory import (
    attention_params,
    kv_bytes_per_token_per_gpu,
    routed_expert_params,
    routed_share,
    sliding_share,
    weight_bytes_per_gpu,
    whole_weight_bytes_per_gpu,
)
from app.scoring.inference.step.techniques import NO_TECHNIQUES, ServingTechniques
from app.scoring.specs import GpuSpec, ModelSpec, is_gddr


@hashed_once
@dataclass(frozen=True, slots=True)
class InferenceContext(HashedOnce):
    tensor_parallel: int
    pipeline_parallel: int
    layers_per_stage: float
    dense_weight_bytes_per_gpu: float
    expert_weight_bytes_per_gpu: float
    experts_active_share: float  # k / E (0 for dense models)
    kv_bytes_per_token_per_gpu: float
    flops_per_token: float  # 2 x active params, whole model
    routed_flops_per_token: float  # the routed experts' part of it: 2 x k/E x all routed expert params (0: dense)
    attention_flops_per_token_ctx: float  # 4 x L x H x d: QK^T + AV per token per context token
    hidden_size: int
    peak_tflops: float  # the matmuls' dense peak (TOPS for INT8)
    bandwidth_tbs: float
    compute_dtype: str
    gddr: bool
    moe: bool
    engine: str
    # one-direction all-reduce bandwidth per GPU, for its TP group (a mesh narrows it: hardware/mesh.py)
    link_gbs: float
    nvlink: bool
    assumptions: tuple[str, ...] = ()
    techniques: ServingTechniques = NO_TECHNIQUES  # prefix cache, speculative decoding (techniques.py)
    fabric_gbs: float = 0.0  # one-direction GB/s per GPU between nodes; > 0 when pipeline stages span nodes
    amd: bool = False  # ROCm software stack (amd_mbu_factor, amd_mfu_factor)
    # An AMD GPU's matmul efficiency against MI300X's, which the ROCm matmul factor was fitted on (efficiency.mamf).
    rocm_matmul: tuple[str, float] | None = None
    tp_nodes: int = 1  # > 1: tensor parallel spans nodes (hierarchical all-reduce over the fabric)
    tp_fabric_gbs: float = 0.0  # one-direction GB/s per GPU for the inter-node phase
    peer_link_gbs: float = 0.0  # one-direction GB/s from one GPU to one other of its node (KV hand-off)
    default_batch_cap: int = 256  # running sequences the engine schedules when not told (engine_defaults)
    default_token_budget: int | None = None  # tokens per step when not told; None: the engine has no such budget
    prefill_chunk_tokens: int = PREFILL_CHUNK_TOKENS  # SGLang's chunked_prefill_size on this GPU
    link_name: str = "NVLink"  # what the terms call the node's link: NVLink, Infinity Fabric, scale-up link, PCIe
    sliding_window: float = 0.0  # sliding-window attention: tokens a sliding layer keeps (0 = none)
    sliding_share: float = 0.0  # sliding layers / layers (memory.attended_tokens)
    # > 1: attention runs data-parallel over this many ranks of the TP group (SGLang --enable-dp-attention): each
    # rank holds its own requests' KV cache and a full copy of the attention weights; the MLP/experts stay split.
    attention_dp: int = 1
    attention_gemm_share: float = 0.0  # attention projections' share of the GEMM FLOPs per token (attention_dp > 1)
    # Of dense_weight_bytes_per_gpu, the bytes held whole on every GPU (attention_dp > 1: the attention weights): whole
    # matrices, streamed as at TP1, without the TP factor of the MBU (pass_rates.dense_weight_ms)
    whole_weight_bytes_per_gpu: float = 0.0
    # > 1: routed experts are placed whole on this many GPUs (expert parallelism: SGLang --ep-size, vLLM
    # --enable-expert-parallel) instead of each being sharded over TP; `experts_per_group` experts per GPU.
    expert_parallel: int = 1
    experts_per_group: float = 0.0
    # Prefill runs as a compiled graph with no per-layer host dispatch (llama.cpp; TensorRT-LLM's TensorRT engine
    # flow, its default before 1.0): no MoE prefill host time (efficiency.inference.COMPILED_ENGINES).
    compiled_prefill: bool = False
    # Layers of one stage with routed experts (ModelSpec.moe_layers / PP; DeepSeek-V3: 58 of 61, the first 3 dense):
    # what the per-MoE-layer costs count (moe_prefill_ms, the MoE share of the matmul efficiency).
    moe_layers_per_stage: float = 0.0
    # > 0: attention's QK^T and AV run on this 16-bit peak while the GEMMs run INT8 (W8A8): no engine modelled has
    # INT8 attention, and the KV cache it reads is 16-bit or FP8. 0: attention on the GEMMs' peak (FP8 and FP4 keep
    # that, as fp8_mfu_factor and fp4_mfu_factor were fitted with it).
    attention_peak_tflops: float = 0.0

    @property
    def moe_layer_share(self) -> float:
        """MoE layers / layers (1 for a model with experts on every layer, 0 for a dense one)."""
        return self.moe_layers_per_stage / self.layers_per_stage if self.moe and self.layers_per_stage else 0.0

    def prefill_pass_tokens(self, budget: int | None = None) -> int | None:
        """Prompt tokens one engine step may prefill: SGLang's chunk on this GPU (its prefill batches are its own and
        max_num_batched_tokens does not apply), else `budget` where stated, else the engine's default for this GPU
        (None: the engine has no step budget: llama.cpp, HF)."""
        if self.engine in PREFILL_FIRST_ENGINES:
            return self.prefill_chunk_tokens
        return budget or self.default_token_budget


def half_rate_fp32_accumulate(gpu: GpuSpec) -> bool:
    """GeForce cards run 16-bit tensor math at half rate with FP32 accumulation; the catalog's 16-bit peak is that
    rate, and FP16 accumulation runs at twice it (Ada whitepaper: RTX 4090 165.2 vs 330.3 TFLOPS; the reference
    gpus.csv marks these cards' form factor "consumer"). Workstation and data-centre cards run both at full rate."""
    return gpu.vendor.upper() == "NVIDIA" and "consumer" in gpu.form_factor.lower()


def tensor_parallel_nodes(gpu: GpuSpec, tensor_parallel: int) -> int:
    """Nodes (scale-up domains) one tensor-parallel group spans: > 1 when TP is larger than the NVLink/xGMI
    domain of a GPU that has one (a PCIe-only card's TP group stays on its node's PCIe)."""
    domain = max(gpu.scaleup_domain_gpus, 1)
    if gpu.interconnect_gbs and tensor_parallel > domain:
        return math.ceil(tensor_parallel / domain)
    return 1


# Contexts by their arguments, shared across rankings: a context depends on the configuration only, never on the
# workload's lengths or load, and mbu/mfu (efficiency_factors) memoise per context object, so a context built once
# keeps its factors too. A ranking of the seeded catalog builds ~150; make bench's inference rankings ran 15-30%
# faster with the cache (A/B in one process, 2026-12-06).
_CONTEXT_CACHE_SIZE = 4096


@lru_cache(maxsize=_CONTEXT_CACHE_SIZE)
def build_context(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    engine: str,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    fabric_gbs: float = 0.0,
    attention_dp: int = 1,
    expert_parallel: int = 1,
) -> InferenceContext:
    shards = tensor_parallel * pipeline_parallel
    total_weights = model.params_b * 1e9 * WEIGHT_BYTES[weight_dtype]
    share = routed_share(model)
    expert_bytes = routed_expert_params(model) * WEIGHT_BYTES[weight_dtype]
    cdtype, dequant_note = matmul_dtype(gpu, weight_dtype)
    peak, peak_note = dense_peak_tflops(gpu, cdtype)
    accumulate_note = None
    if engine in FP16_ACCUMULATE_ENGINES and cdtype in ("bf16", "fp16") and half_rate_fp32_accumulate(gpu):
        peak *= 2.0
        accumulate_note = (
            f"{engine} multiplies in FP16 with FP16 accumulation, which {gpu.name} runs at twice its "
            f"FP32-accumulate peak: {significant(peak)} TFLOPS"
        )
    attention_peak = dense_peak_tflops(gpu, "bf16")[0] if cdtype == "int8" else 0.0
    int8_note = w8a8_note(gpu, peak, attention_peak) if cdtype == "int8" else None
    notes = tuple(n for n in (dequant_note, peak_note, accumulate_note, int8_note) if n)
    default_cap, default_budget = engine_defaults(engine, gpu)
    interconnect_gbs = gpu.interconnect_gbs or 0.0  # None = PCIe only
    domain = max(gpu.scaleup_domain_gpus, 1)
    tp_nodes = tensor_parallel_nodes(gpu, tensor_parallel)
    nvlink = bool(interconnect_gbs) and (domain >= tensor_parallel or tp_nodes > 1)
    link = interconnect_gbs / 2 if nvlink else PCIE_GBS_UNIDIR.get(gpu.pcie_gen or 4, 25.0)
    peer_link = link
    if nvlink:  # a switchless board reduces a TP group over its members' own links only
        local_group = max(tensor_parallel // tp_nodes, 1)
        link *= group_link_share(gpu, local_group)
        peer_link *= peer_link_share(gpu)
        notes += tuple(n for n in (mesh_note(gpu, local_group),) if n)
    tp_fabric = (fabric_gbs or DEFAULT_RDMA_GBPS_PER_GPU / 8 * FABRIC_EFFICIENCY) if tp_nodes > 1 else 0.0
    heads = model.num_attention_heads * model.head_dim
    return InferenceContext(
        tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel,
        layers_per_stage=model.layers / pipeline_parallel,
        dense_weight_bytes_per_gpu=(
            weight_bytes_per_gpu(model, weight_dtype, tensor_parallel, pipeline_parallel, attention_dp)
            - expert_bytes / shards
        )
        if attention_dp > 1
        else (total_weights - expert_bytes) / shards,
        expert_weight_bytes_per_gpu=expert_bytes / shards,
        experts_active_share=share,
        kv_bytes_per_token_per_gpu=kv_bytes_per_token_per_gpu(
            model, kv_dtype, tensor_parallel, pipeline_parallel, attention_dp
        ),
        flops_per_token=2 * model.active_params_b * 1e9,
        routed_flops_per_token=2 * share * routed_expert_params(model),
        attention_flops_per_token_ctx=4 * model.layers * heads,
        hidden_size=model.hidden_size,
        peak_tflops=peak,
        bandwidth_tbs=gpu.memory_bandwidth_tbs,
        compute_dtype=cdtype,
        gddr=is_gddr(gpu),
        moe=share > 0,
        engine=engine,
        link_gbs=link,
        peer_link_gbs=peer_link,
        link_name=scaleup_link_name(gpu) if nvlink else "PCIe",
        default_batch_cap=default_cap,
        default_token_budget=default_budget,
        prefill_chunk_tokens=sglang_prefill_chunk(gpu),
        nvlink=nvlink,
        assumptions=notes,
        fabric_gbs=fabric_gbs,
        amd=gpu.vendor.upper() == "AMD",
        rocm_matmul=_rocm_matmul(gpu),
        tp_nodes=tp_nodes,
        tp_fabric_gbs=tp_fabric,
        sliding_window=model.sliding_window,
        sliding_share=sliding_share(model),
        attention_dp=attention_dp,
        attention_gemm_share=min(2 * attention_params(model) / (2 * model.active_params_b * 1e9), 1.0)
        if attention_dp > 1
        else 0.0,
        whole_weight_bytes_per_gpu=whole_weight_bytes_per_gpu(model, weight_dtype, pipeline_parallel, attention_dp),
        expert_parallel=expert_parallel if share > 0 else 1,
        experts_per_group=model.num_experts / expert_parallel if share > 0 and expert_parallel > 1 else 0.0,
        compiled_prefill=engine in COMPILED_ENGINES,
        moe_layers_per_stage=model.moe_layers / pipeline_parallel if share > 0 else 0.0,
        attention_peak_tflops=attention_peak,
    )


def w8a8_note(gpu: GpuSpec, int8_tops: float, attention_tflops: float) -> str:
    """What an INT8 W8A8 estimate assumes: its matmul efficiency is FP8's, borrowed (mfu_factors)."""
    note = (
        f"INT8 W8A8: matmuls on {gpu.name}'s dense INT8 peak, {significant(int8_tops)} TOPS, at FP8's matmul "
        "efficiency (fp8_mfu_factor, borrowed and unvalidated: no public validation row runs W8A8); attention (QK^T, "
        f"AV) on the 16-bit peak, {significant(attention_tflops)} TFLOPS (no engine runs INT8 attention)"
    )
    if int8_tops < attention_tflops:  # Blackwell Ultra cut INT8 (GB300: 165 TOPS against 2,500 TFLOPS BF16)
        note += f"; {gpu.name}'s INT8 peak is below its 16-bit peak, so W8A8 matmuls run slower than W8A16 there"
    return note


def _rocm_matmul(gpu: GpuSpec) -> tuple[str, float] | None:
    scale, label = rocm_matmul_scale(gpu)
    return (label, scale) if label else None


@lru_cache(maxsize=_CONTEXT_CACHE_SIZE)
def wiring_seen_by(gpu: GpuSpec, tensor_parallel: int) -> GpuSpec:
    """The GPU as a tensor-parallel group of this size sees its wiring: the scale-up domain is read only to say
    whether the group stays inside it (tensor_parallel_nodes, build_context's NVLink test), and not at all on a
    PCIe-only card, so every domain the group fits in reads alike (stated here as the group's own size, 1 on PCIe).
    Layouts keyed by it are shared by machines that wire a GPU into nodes of other sizes (configurations.solve_on)."""
    if not gpu.interconnect_gbs:
        domain = 1
    elif tensor_parallel <= max(gpu.scaleup_domain_gpus, 1):
        domain = tensor_parallel
    else:  # the group spans domains: how many it spans depends on their size
        return gpu
    return gpu if gpu.scaleup_domain_gpus == domain else replace(gpu, scaleup_domain_gpus=domain)
