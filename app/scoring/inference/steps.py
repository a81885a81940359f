"""Per-forward-pass timing of one inference configuration: pure float arithmetic, no strings.

`InferenceContext` holds everything that depends on (GPU, model, dtypes, TP, PP, engine) and not on
the efficiency constants, so calibration can rebuild timings cheaply with other constants.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from app.scoring.dtypes import ACTIVATION_BYTES, WEIGHT_BYTES, dense_peak_tflops, matmul_dtype
from app.scoring.efficiency.inference import (
    CAUSAL_ATTENTION_FACTOR,
    COMPILED_ENGINES,
    ENGINE_MBU,
    ENGINE_MFU,
    FP16_ACCUMULATE_ENGINES,
    LINK_EFFICIENCY,
    MAX_MBU,
    PCIE_GBS_UNIDIR,
    PREFILL_CHUNK_TOKENS,
    PREFILL_FIRST_ENGINES,
    InferenceEfficiency,
    engine_defaults,
    sglang_prefill_chunk,
)
from app.scoring.efficiency.mamf import rocm_matmul_scale
from app.scoring.inference.memory import (
    attended_tokens,
    attention_params,
    kv_bytes_per_token_per_gpu,
    prefill_attended_tokens,
    routed_expert_params,
    routed_share,
    sliding_share,
    weight_bytes_per_gpu,
)
from app.scoring.inference.techniques import NO_TECHNIQUES, ServingTechniques
from app.scoring.machines import DEFAULT_RDMA_GBPS_PER_GPU, FABRIC_ALPHA_MS, FABRIC_EFFICIENCY
from app.scoring.mesh import group_link_share, mesh_note, peer_link_share, scaleup_link_name
from app.scoring.moe_share import moe_layer_factor
from app.scoring.specs import GpuSpec, ModelSpec, is_gddr


@dataclass(frozen=True, slots=True)
class InferenceContext:
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
    link_gbs: float  # one-direction all-reduce bandwidth per GPU, for its TP group (a mesh narrows it: mesh.py)
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
            f"FP32-accumulate peak: {peak:g} TFLOPS"
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
        expert_parallel=expert_parallel if share > 0 else 1,
        experts_per_group=model.num_experts / expert_parallel if share > 0 and expert_parallel > 1 else 0.0,
        compiled_prefill=engine in COMPILED_ENGINES,
        moe_layers_per_stage=model.moe_layers / pipeline_parallel if share > 0 else 0.0,
        attention_peak_tflops=attention_peak,
    )


def w8a8_note(gpu: GpuSpec, int8_tops: float, attention_tflops: float) -> str:
    """What an INT8 W8A8 estimate assumes: its matmul efficiency is FP8's, borrowed (mfu_factors)."""
    note = (
        f"INT8 W8A8: matmuls on {gpu.name}'s dense INT8 peak, {int8_tops:g} TOPS, at FP8's matmul efficiency "
        "(fp8_mfu_factor, borrowed and unvalidated: no public validation row runs W8A8); attention (QK^T, AV) on "
        f"the 16-bit peak, {attention_tflops:g} TFLOPS (no engine runs INT8 attention)"
    )
    if int8_tops < attention_tflops:  # Blackwell Ultra cut INT8 (GB300: 165 TOPS against 2,500 TFLOPS BF16)
        note += f"; {gpu.name}'s INT8 peak is below its 16-bit peak, so W8A8 matmuls run slower than W8A16 there"
    return note


def expert_coverage(active_share: float, tokens: float) -> float:
    """Expected share of routed experts touched per layer by `tokens` tokens: 1 - (1 - k/E)^tokens."""
    if active_share <= 0:
        return 0.0
    return 1.0 - (1.0 - active_share) ** max(tokens, 1.0)


# Expected maximum of n independent standard normal draws (Royston 1982 tables): the busiest of n groups.
EXPECTED_MAX_OF_NORMALS = {2: 0.564, 4: 1.029, 8: 1.424, 16: 1.766, 32: 2.070, 64: 2.326}


def busiest_group_coverage(coverage: float, experts_per_group: float, groups: int) -> float:
    """Expert parallelism: the step waits for the GPU whose experts the batch touched most. Each GPU's touched
    count is about Binomial(E / EP, coverage) under uniform routing; the busiest of EP GPUs is mean + z(EP) x sd
    (z = expected maximum of EP standard normals), as a share of that GPU's experts, at most all of them."""
    if groups <= 1 or experts_per_group <= 0 or not 0 < coverage < 1:
        return coverage
    z = EXPECTED_MAX_OF_NORMALS.get(groups) or math.sqrt(2 * math.log(groups))
    return min(1.0, coverage + z * math.sqrt(coverage * (1 - coverage) / experts_per_group))


def engine_factors(
    ctx: InferenceContext, eff: InferenceEfficiency, table: dict[str, float], rocm: str
) -> list[tuple[str, float]]:
    """The serving engine's share of TensorRT-LLM's efficiency on CUDA, and the ROCm factor named `rocm`
    (streaming or matmul) on AMD, as named factors (llama.cpp has factors of its own). Only the constants that
    apply are read (the fits recompute a case only when a constant it read moves)."""
    if ctx.engine == "vllm":
        factors = [("vLLM", eff.vllm_factor)]
    elif ctx.engine == "sglang":
        factors = [("SGLang", eff.sglang_factor)]
    else:
        own = table.get(ctx.engine)  # an engine without a factor of its own is priced as vLLM
        factors = [(ctx.engine, eff.vllm_factor if own is None else own)]
    if not ctx.amd:
        return factors
    factors.append(("ROCm", getattr(eff, rocm)))
    return factors + ([ctx.rocm_matmul] if rocm == "amd_mfu_factor" and ctx.rocm_matmul else [])


def _rocm_matmul(gpu: GpuSpec) -> tuple[str, float] | None:
    scale, label = rocm_matmul_scale(gpu)
    return (label, scale) if label else None


def _product(factors: list[tuple[str, float]]) -> float:
    return math.prod(value for _, value in factors)


def mbu_factors(ctx: InferenceContext, eff: InferenceEfficiency, tp_penalty: bool = True) -> list[tuple[str, float]]:
    """The named factors whose product is `mbu` (before its clamp)."""
    factors = [("decode streaming at TP1", eff.decode_mbu)]
    if tp_penalty and ctx.tensor_parallel > 1:
        factors.append(
            (f"TP{ctx.tensor_parallel}^-{eff.mbu_tp_exponent:g}", ctx.tensor_parallel ** (-eff.mbu_tp_exponent))
        )
    if ctx.gddr:
        factors.append(("GDDR", eff.gddr_mbu_factor))
    if ctx.engine == "llamacpp":
        return factors + [("llama.cpp", eff.llamacpp_mbu_factor)]
    return factors + engine_factors(ctx, eff, ENGINE_MBU, "amd_mbu_factor")


# mbu and mfu per (context, efficiency) object: a solve times a few dozen passes of one context, and naming the
# factors costs more than the pass's arithmetic. Keyed by identity, the objects kept beside the value so that an id
# is never reused while its entry lives; cleared when full.
_FACTOR_MEMO: dict[tuple[int, int, str], tuple[object, object, float]] = {}
_FACTOR_MEMO_LIMIT = 4096


def _memoised(kind: str, ctx: InferenceContext, eff: InferenceEfficiency, compute: Callable[[], float]) -> float:
    key = (id(ctx), id(eff), kind)
    hit = _FACTOR_MEMO.get(key)
    if hit is not None and hit[0] is ctx and hit[1] is eff:
        return hit[2]
    value = compute()
    if len(_FACTOR_MEMO) >= _FACTOR_MEMO_LIMIT:
        _FACTOR_MEMO.clear()
    _FACTOR_MEMO[key] = (ctx, eff, value)
    return value


def mbu(ctx: InferenceContext, eff: InferenceEfficiency, tp_penalty: bool = True) -> float:
    """Share of peak bandwidth for weight streaming (a fitted shard-size term, bytes per GPU per layer, was
    tried in place of the TP exponent and fitted to zero on the 2026-12 file, so it is not modelled).

    `tp_penalty=False`: routed experts. One grouped-GEMM launch streams every touched expert's shard of the
    layer, so the read does not shrink into many small GEMMs as TP grows (InferenceX DeepSeek-R1 TP8 on
    8xH200: TPOT 12.8-34.6 ms, about half what the dense TP exponent gives)."""
    return _memoised(
        "mbu" if tp_penalty else "mbu experts",
        ctx,
        eff,
        lambda: min(max(_product(mbu_factors(ctx, eff, tp_penalty)), 0.01), MAX_MBU),
    )


def mbu_cap_text(ctx: InferenceContext, eff: InferenceEfficiency) -> str:
    """', capped at 0.9 (...)' when the factors' product passes the streaming ceiling, else ''."""
    if _product(mbu_factors(ctx, eff)) <= MAX_MBU:
        return ""
    return f", capped at {MAX_MBU:g} (no streaming kernel reaches more of the peak: research §7.3)"


def mfu_factors(ctx: InferenceContext, eff: InferenceEfficiency, attention: bool = False) -> list[tuple[str, float]]:
    """The named factors whose product is `mfu` (before its clamp); `attention`: W8A8's 16-bit attention's
    (attention_mfu), without the INT8 factor."""
    factors = [("16-bit matmuls", eff.mfu_max)]
    if ctx.compute_dtype == "fp8":
        factors.append(("FP8", eff.fp8_mfu_factor))
    elif ctx.compute_dtype == "fp4":
        factors.append(("FP4", eff.fp4_mfu_factor))
    elif ctx.compute_dtype == "int8" and not attention:
        # INT8 W8A8 borrows FP8's factor, unvalidated: an 8-bit tensor-core GEMM at twice the 16-bit rate, as FP8's,
        # and no public validation row runs W8A8 to fit one of its own (w8a8_note says so in every estimate)
        factors.append(("INT8 W8A8, FP8's factor borrowed", eff.fp8_mfu_factor))
    if ctx.moe:  # on the MoE layers' share of the matmuls: Maverick's 24 dense layers of 48 run at the dense rate
        factors.append(("MoE", moe_layer_factor(eff.moe_mfu_factor, ctx.moe_layer_share)))
    if ctx.engine == "llamacpp":
        return factors + [("llama.cpp", eff.llamacpp_mfu_factor)]
    return factors + engine_factors(ctx, eff, ENGINE_MFU, "amd_mfu_factor")


def mfu(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Matmul share of the dense peak once compute-bound; the small-M (GEMV) regime is the memory side
    of the soft roofline, so no separate M-dependent efficiency (it would count weight reads twice)."""
    return _memoised("mfu", ctx, eff, lambda: min(max(_product(mfu_factors(ctx, eff)), 1e-4), 1.0))


def attention_mfu(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Share of `attention_peak_tflops` the 16-bit attention of an INT8 W8A8 pass reaches: the 16-bit matmul share."""
    return _memoised("mfu attention", ctx, eff, lambda: min(max(_product(mfu_factors(ctx, eff, True)), 1e-4), 1.0))


def attention_flop_rate(ctx: InferenceContext, eff: InferenceEfficiency, matmul_rate: float) -> float:
    """FLOP per ms of a pass's QK^T and AV: the matmuls' rate, or W8A8's 16-bit attention's (attention_peak_tflops)."""
    if not ctx.attention_peak_tflops:
        return matmul_rate
    return ctx.attention_peak_tflops * 1e12 * attention_mfu(ctx, eff) / 1e3


def factor_text(factors: list[tuple[str, float]]) -> str:
    """'0.777 (decode streaming at TP1) x 0.565 (TP8^-0.275) x ...' for an explanation line."""
    return " x ".join(f"{value:.3g} ({name})" for name, value in factors)


def allreduce_call_ms(ctx: InferenceContext, eff: InferenceEfficiency, tokens: float) -> tuple[float, float]:
    """(latency, transfer) ms of one ring all-reduce of tokens x hidden activations: alpha, and 2(TP-1)/TP x bytes
    / link (across nodes: reduce-scatter/all-gather inside each node, all-reduce of 1/g of it across nodes)."""
    tp = ctx.tensor_parallel
    alpha = eff.allreduce_alpha_nvlink_ms if ctx.nvlink else eff.allreduce_alpha_pcie_ms
    payload = tokens * ctx.hidden_size * ACTIVATION_BYTES
    if ctx.tp_nodes > 1:
        nodes, local = ctx.tp_nodes, tp / ctx.tp_nodes
        inside = 2 * (local - 1) / local * payload / (ctx.link_gbs * 1e9 * LINK_EFFICIENCY)
        across = 2 * (nodes - 1) / nodes * payload / local / (ctx.tp_fabric_gbs * 1e9)
        return alpha + eff.allreduce_alpha_fabric_ms, (inside + across) * 1e3
    return alpha, 2 * (tp - 1) / tp * payload / (ctx.link_gbs * 1e9 * LINK_EFFICIENCY) * 1e3


def allreduce_ms(ctx: InferenceContext, eff: InferenceEfficiency, tokens: float) -> float:
    """Two ring all-reduces per layer (allreduce_call_ms), none at TP1."""
    if ctx.tensor_parallel <= 1:
        return 0.0
    latency, transfer = allreduce_call_ms(ctx, eff, tokens)
    return 2 * ctx.layers_per_stage * (latency + transfer)


def stage_send_ms(ctx: InferenceContext, tokens: float) -> float:
    """Activations handed to the next pipeline stage on another node: alpha + tokens x hidden / fabric.
    Zero inside one node (the send is tiny next to an all-reduce, and calibration has it in overheads)."""
    if ctx.pipeline_parallel <= 1 or ctx.fabric_gbs <= 0:
        return 0.0
    payload = tokens * ctx.hidden_size * ACTIVATION_BYTES
    return FABRIC_ALPHA_MS + payload / (ctx.fabric_gbs * 1e9) * 1e3


def overhead_ms(ctx: InferenceContext, eff: InferenceEfficiency, sequences: float = 1.0) -> float:
    """Launch/sync per step and layer, plus per-sequence scheduling and sampling work on the host."""
    return (
        eff.step_overhead_ms
        + ctx.layers_per_stage * eff.layer_overhead_ms
        + sequences * per_sequence_overhead_ms(ctx, eff)
    )


def per_sequence_overhead_ms(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Host time per running sequence per step: more in vLLM, whose scheduler, sampler and detokeniser run in
    Python on the step's critical path."""
    return eff.seq_overhead_ms + (eff.vllm_seq_overhead_ms if ctx.engine == "vllm" else 0.0)


def moe_prefill_ms(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Host time of one prefill pass through an MoE model's layers in a PyTorch engine (vLLM, SGLang, ...):
    prefill runs eagerly, without CUDA graphs, so each MoE layer's routing, token permutation and grouped-GEMM
    launches are paid per pass (BLIS trained physics on vLLM: +482 us per MoE layer; SGLang DeepSeek-R1 TTFT
    180-200 ms flat from 128 to 4k input tokens). llama.cpp and TensorRT-LLM's TensorRT engine flow
    (compiled_prefill) do not pay it (TRT-LLM Mixtral TP2 on A100: 24 ms to the first token of a 128-token prompt);
    TensorRT-LLM's PyTorch backend, its default since 1.0, does."""
    if not ctx.moe or ctx.compiled_prefill:
        return 0.0
    return ctx.moe_layers_per_stage * eff.moe_prefill_layer_ms


def attending_seqs(ctx: InferenceContext, seqs: float) -> float:
    """Sequences whose attention the step waits for, in units of the per-GPU KV share: all of them under TP
    attention; under data-parallel attention the busiest rank's, max(seqs / dp, one sequence if any) x dp."""
    dp = ctx.attention_dp
    if dp <= 1:
        return seqs
    return max(seqs / dp, min(seqs, 1.0)) * dp


def dp_attention_flops(
    ctx: InferenceContext,
    seqs: float,
    tokens_per_seq: float,
    attended: float,
    prefill_tokens: float,
    prefill_requests: float,
    prefill_attention: float,
) -> tuple[float, float]:
    """(GEMM, score/AV) FLOPs of the busiest GPU of one pipeline stage under data-parallel attention.

    The MLP/experts stay split over TP; a request's attention projections and score/AV run on the one rank that
    holds it, so that rank decodes max(seqs / dp, one sequence) and prefills max(1 / dp, one prompt's share) of
    the prompts. Balanced (seqs >= dp, many prompts) this equals TP's split; a lone long prompt is not split."""
    dp, tp, pp, a = ctx.attention_dp, ctx.tensor_parallel, ctx.pipeline_parallel, ctx.attention_gemm_share
    busiest = max(seqs / dp, min(seqs, 1.0))
    prefill_busy = max(1.0 / dp, 1.0 / max(prefill_requests, 1.0)) if prefill_tokens > 0 else 0.0
    per_token = ctx.flops_per_token / pp
    gemm = seqs * tokens_per_seq * per_token * (1 - a) / tp + busiest * tokens_per_seq * per_token * a
    gemm += prefill_tokens * per_token * (a * prefill_busy + (1 - a) / tp)
    score = busiest * tokens_per_seq * ctx.attention_flops_per_token_ctx * attended / pp
    score += prefill_attention / pp * prefill_busy / pp
    return gemm, score


def roofline_ms(memory_ms: float, compute_ms: float, power: float) -> float:
    """Soft roofline of one kernel class: (m^p + c^p)^(1/p); p -> inf is max(m, c), p = 1 is no overlap.

    Never below max(m, c), so no prediction beats the roofline; near the ridge point the streams
    overlap only partly (BLIS trained physics: additive memory and compute terms).
    """
    high = max(memory_ms, compute_ms)
    if high <= 0:
        return 0.0
    low = min(memory_ms, compute_ms) / high
    return high * (1.0 + low**power) ** (1.0 / power)


@dataclass(frozen=True, slots=True)
class StepDetail:
    """What a forward pass's totals are made of, kept for its explanation (terms.py); no timing reads it.

    Each kernel class is a (memory ms, compute ms) pair that roofline_ms combines: the dense GEMMs, the routed
    experts' grouped GEMMs (zero for a dense model) and the attention (KV reads vs QK^T/AV FLOPs)."""

    tokens: float  # tokens this pass carries per stage: decode (x verified drafts) + prefill
    attending_seqs: float  # sequences whose KV the step waits to read (attending_seqs)
    attended_tokens: float  # KV tokens each of them reads (sliding layers: their window)
    gemm_flops: float  # dense + routed-expert matmul FLOPs per GPU
    expert_flops: float  # the routed experts' part of gemm_flops
    attention_flops: float  # QK^T and AV FLOPs per GPU
    expert_coverage: float  # share of this GPU's routed-expert bytes the pass touches
    dense: tuple[float, float]
    experts: tuple[float, float]
    attention: tuple[float, float]
    host_sequences: float  # sequences paying the per-sequence host time (a prefill counts as one)
    host_ms: float  # launch and host overheads per step, layer and sequence
    moe_host_ms: float  # eager MoE prefill host time of the prefill passes this step stands for


@dataclass(frozen=True, slots=True)
class StepParts:
    """One forward pass of one pipeline stage (ms) and the work behind it.

    `memory_ms` / `compute_ms` are the totals; `busy_ms` is the time of the two kernel classes run in
    sequence: the GEMMs (weights vs matmul FLOPs) and the attention (KV reads vs QK/AV FLOPs).
    """

    weight_bytes: float
    kv_bytes: float
    flops: float
    memory_ms: float
    compute_ms: float
    comm_ms: float
    overhead_ms: float
    pipeline_stages: int
    busy_ms: float = 0.0
    draft_ms: float = 0.0  # speculative decoding's draft passes (techniques.py)
    tokens_per_step: float = 1.0  # tokens each sequence advances per pass (> 1 with speculative decoding)
    expert_busy_ms: float = 0.0  # the routed experts' grouped GEMMs (part of busy_ms): their own roofline
    prefill_tokens: float = 0.0  # prompt tokens this pass prefills beside the decode (per pipeline stage)
    # StepDetail's fields in order, a plain tuple: the hot path builds thousands of passes per ranking and only the
    # chosen point's terms read them (StepParts.breakdown makes the dataclass then)
    detail: tuple[Any, ...] | None = None

    @property
    def breakdown(self) -> StepDetail | None:
        return StepDetail(*self.detail) if self.detail is not None else None

    @property
    def total_ms(self) -> float:
        """Wall time for every sequence to advance one token (PP stages run micro-batches in turn)."""
        return (
            self.pipeline_stages
            * (self.busy_ms + self.comm_ms + self.overhead_ms + self.draft_ms)
            / self.tokens_per_step
        )

    @property
    def bound(self) -> str:
        return "memory" if self.memory_ms >= self.compute_ms else "compute"


def forward_parts(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    decode_seqs: float,
    context_tokens: float,
    prefill_tokens: float = 0.0,
    prefill_attention_flops: float = 0.0,
    tokens_per_seq: float = 1.0,
    prefill_passes: float = 0.0,
    prefill_requests: float = 0.0,
) -> StepParts:
    """A forward pass with `decode_seqs` decoding sequences at `context_tokens` plus prefill tokens
    (`tokens_per_seq` > 1: speculative verification of drafted tokens, one KV read per sequence).

    `prefill_passes`: eager prefill passes this step stands for (1 for a prefill; the share of a request
    prefilled per step in the continuous-batching steady state); each pays the host cost of an MoE layer.
    `prefill_requests`: the prompts those prefill tokens belong to (data-parallel attention runs each prompt's
    attention on one rank)."""
    pp = ctx.pipeline_parallel
    seqs, new_prefill = decode_seqs / pp, prefill_tokens / pp  # one micro-batch per stage
    tokens = seqs * tokens_per_seq + new_prefill
    coverage = expert_coverage(ctx.experts_active_share, tokens)
    if ctx.expert_parallel > 1:
        coverage = busiest_group_coverage(coverage, ctx.experts_per_group, ctx.expert_parallel)
    expert_bytes = ctx.expert_weight_bytes_per_gpu * coverage
    weights = ctx.dense_weight_bytes_per_gpu + expert_bytes
    attended = attended_tokens(context_tokens, ctx.sliding_window, ctx.sliding_share)  # sliding layers: window
    attending = attending_seqs(ctx, seqs)
    kv = attending * ctx.kv_bytes_per_token_per_gpu * attended
    shards = ctx.tensor_parallel * pp
    gemm_flops = tokens * ctx.flops_per_token / shards
    attention_flops = (
        attending * tokens_per_seq * ctx.attention_flops_per_token_ctx * attended + prefill_attention_flops / pp
    ) / shards
    if ctx.attention_dp > 1:  # the busiest rank's attention work; the MLP/experts split over TP as before
        gemm_flops, attention_flops = dp_attention_flops(
            ctx, seqs, tokens_per_seq, attended, new_prefill, prefill_requests, prefill_attention_flops
        )
    bandwidth = ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff) / 1e3  # bytes per ms
    peak = ctx.peak_tflops * 1e12 * mfu(ctx, eff) / 1e3  # FLOP per ms
    # routed experts are their own kernel class: each expert multiplies only the tokens routed to it (k / E of
    # them), so its grouped GEMM stays memory-bound at batches where the dense GEMMs are compute-bound
    expert_flops = min(tokens * ctx.routed_flops_per_token / shards, gemm_flops)
    dense_gemm = (ctx.dense_weight_bytes_per_gpu / bandwidth, (gemm_flops - expert_flops) / peak)
    expert_gemm = (0.0, 0.0)  # a dense model (its MoE constants stay unread)
    if expert_bytes or expert_flops:
        expert_bandwidth = ctx.bandwidth_tbs * 1e12 * mbu(ctx, eff, tp_penalty=False) * eff.moe_mbu_factor / 1e3
        expert_gemm = (expert_bytes / expert_bandwidth, expert_flops / peak)
    attention = (kv / (bandwidth * eff.kv_mbu_factor), attention_flops / attention_flop_rate(ctx, eff, peak))
    expert_ms = roofline_ms(*expert_gemm, eff.overlap_power)
    busy = roofline_ms(*dense_gemm, eff.overlap_power) + expert_ms + roofline_ms(*attention, eff.overlap_power)
    host_sequences = seqs + (1.0 if new_prefill else 0.0)
    host_ms, moe_host_ms = overhead_ms(ctx, eff, host_sequences), prefill_passes * moe_prefill_ms(ctx, eff)
    detail = (
        tokens,
        attending,
        attended,
        gemm_flops,
        expert_flops,
        attention_flops,
        coverage,
        dense_gemm,
        expert_gemm,
        attention,
        host_sequences,
        host_ms,
        moe_host_ms,
    )
    return StepParts(
        weights,
        kv,
        gemm_flops + attention_flops,
        dense_gemm[0] + expert_gemm[0] + attention[0],
        dense_gemm[1] + expert_gemm[1] + attention[1],
        allreduce_ms(ctx, eff, tokens) + stage_send_ms(ctx, tokens),
        host_ms + moe_host_ms,
        pp,
        busy,
        expert_busy_ms=expert_ms,
        prefill_tokens=new_prefill,
        detail=detail,
    )


def prefill_attention_flops(ctx: InferenceContext, requests: float, input_len: float) -> float:
    """Causal QK^T and AV FLOPs of prefilling `requests` prompts of `input_len` tokens (whole model)."""
    attended = prefill_attended_tokens(input_len, ctx.sliding_window, ctx.sliding_share)
    flops = requests * CAUSAL_ATTENTION_FACTOR * ctx.attention_flops_per_token_ctx * input_len * attended
    return flops * ctx.techniques.uncached_attention_share


def prefill_parts(ctx: InferenceContext, eff: InferenceEfficiency, requests: float, input_len: float) -> StepParts:
    """Prefill of `requests` prompts together (no decoding sequences in the pass)."""
    tokens = requests * input_len * ctx.techniques.uncached_share
    attention = prefill_attention_flops(ctx, requests, input_len)
    return forward_parts(ctx, eff, 0.0, 0.0, tokens, attention, prefill_passes=1.0, prefill_requests=requests)


def prompt_stage_pass(
    ctx: InferenceContext, eff: InferenceEfficiency, prompts: float, input_len: float
) -> tuple[StepParts, float]:
    """The pass a first token waits for, as one pipeline stage runs it, and the micro-batches m it comes in. Without
    PP, prefill_parts (the one stage holds every layer) and m = 1. With PP a request sits in one micro-batch at a time
    (vLLM, TensorRT-LLM): the prompts split into m = min(prompts, stages) micro-batches of whole prompts, and the pass
    is one stage's layers over one micro-batch (its total_ms is `stages` of them, as every StepParts of PP)."""
    pp = ctx.pipeline_parallel
    if pp == 1:
        return prefill_parts(ctx, eff, prompts, input_len), 1.0
    batches = min(max(prompts, 1.0), float(pp))
    per_batch = prompts / batches
    tokens = per_batch * input_len * ctx.techniques.uncached_share
    attention = prefill_attention_flops(ctx, per_batch, input_len)
    # forward_parts splits what it is given into one micro-batch per stage: given `pp` micro-batches' worth, each
    # stage carries one micro-batch of `per_batch` whole prompts, and total_ms is `pp` stage times
    stage = forward_parts(
        ctx, eff, 0.0, 0.0, tokens * pp, attention * pp, prefill_passes=1.0, prefill_requests=per_batch
    )
    return stage, batches


def prefill_latency_ms(ctx: InferenceContext, eff: InferenceEfficiency, prompts: float, input_len: float) -> float:
    """Time from a prefill pass's start to its last prompt's first token. Without PP, prefill_parts' total. With
    PP the m micro-batches of prompt_stage_pass run the stages in turn: (m + stages - 1) stage times, where
    prefill_parts (the throughput view, every stage kept busy) is `stages` of them. A lone prompt takes every
    stage's time in turn: PP divides its layers, not its latency."""
    pp = ctx.pipeline_parallel
    stage, batches = prompt_stage_pass(ctx, eff, prompts, input_len)
    if pp == 1:
        return stage.total_ms
    return stage.total_ms / pp * (batches + pp - 1)


def mixed_step_parts(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    batch: float,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
    others_only: bool = False,
) -> StepParts:
    """Continuous batching steady state: each step also carries batch x input/output prefill tokens.

    With beam search every request decodes `beam_width` sequences (own KV each) but is prefilled once.
    `others_only`: the steps a request decodes in carry the other batch - 1 requests' prefills (its own
    prefill is in its TTFT), as a closed or open loop sees it; a lone request decodes undisturbed.
    """
    context = input_len + output_len / 2
    # requests whose prompt is prefilled per step, on average
    prefilling = max(batch - 1.0, 0.0) if others_only else batch
    share = prefilling * ctx.techniques.tokens_per_step / max(output_len, 1.0)
    return decode_parts(
        ctx,
        eff,
        batch * beam_width,
        context,
        share * input_len * ctx.techniques.uncached_share,
        prefill_attention_flops(ctx, share, input_len),
        min(share, 1.0),
        share,
    )


def decode_parts(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    decode_seqs: float,
    context_tokens: float,
    prefill_tokens: float = 0.0,
    prefill_attention: float = 0.0,
    prefill_passes: float = 0.0,
    prefill_requests: float = 0.0,
) -> StepParts:
    """A decode step. With speculative decoding: one pass verifies k drafted tokens per sequence, k draft
    passes precede it, and the step yields `tokens_per_step` tokens per sequence (techniques.py)."""
    t = ctx.techniques
    verify = forward_parts(
        ctx,
        eff,
        decode_seqs,
        context_tokens,
        prefill_tokens,
        prefill_attention,
        t.spec_draft_tokens + 1 if t.speculative else 1.0,
        prefill_passes,
        prefill_requests,
    )
    if not t.speculative:
        return verify
    plain = forward_parts(ctx, eff, decode_seqs, context_tokens)
    # each draft pass runs the draft model (MTP module or EAGLE head: one decoder layer), so its fixed cost is that
    # layer's launch, not a whole model's step overhead; it still pays the host time per running sequence (vLLM's
    # Python scheduler prepares every pass), so at large batches the drafts cost more than the tokens they save
    pass_overhead_ms = eff.layer_overhead_ms + decode_seqs * per_sequence_overhead_ms(ctx, eff)
    draft_ms = t.spec_draft_tokens * (t.draft_cost_share * plain.busy_ms + pass_overhead_ms)
    return replace(verify, draft_ms=draft_ms, tokens_per_step=t.tokens_per_step)
