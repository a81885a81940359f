"""Efficiency constants of the inference estimator (fitted by app.calibration.inference.calibrate_inference).

Each value is regime-dependent: tokens per forward pass, batch, TP degree, dtype, engine class or
GPU memory family. None is keyed on a model or a validation case. Starting points and plausible
ranges come from shared/research/inference_estimators.md (beside the repository) §7.3; the fitted value replaces the
central default where the public validation file constrains it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.specs import GpuSpec, card_gb


@dataclass(frozen=True, slots=True)
class InferenceEfficiency:
    """The fitted knobs. `calibrate_inference` varies exactly the fields listed in FITTED."""

    # Decode weight/KV streaming share of peak HBM bandwidth at TP1 (research §7.3: 0.55-0.75 end to end, fixed
    # step costs included; with those costs as terms of their own the fit reaches MAX_MBU, the kernel ceiling).
    # Timed on an H200 (docs/measurements): one cuBLAS GEMV streams 0.69-0.86 of peak, a copy 0.89.
    decode_mbu: float = 0.9
    # MBU falls with TP as per-GPU shards shrink: MBU x TP^-e (Databricks TP4 40%, TP8 25%).
    mbu_tp_exponent: float = 0.35
    # Overlap of memory and compute streams within a kernel class: soft roofline exponent
    # (p -> inf: perfect overlap, max(m, c); p = 1: additive, as in BLIS trained physics).
    overlap_power: float = 1.32
    # Compute-bound matmul share of the dense 16-bit peak (LLM-Viewer #4 derived 0.76; kipply 0.72). Timed on an
    # H200 (docs/measurements): cuBLAS bf16 0.67-0.70 sustained at M >= 2,048 tokens, 0.77-0.80 in bursts.
    mfu_max: float = 0.679
    # The FP8 peak is harder to reach than the 16-bit one: MFU multiplier vs 16-bit (NIM 70B FP8 derived 0.46/0.65).
    # Timed on an H200 (docs/measurements): torch._scaled_mm FP8 reaches 0.85-0.95 of bf16's share at the same M.
    fp8_mfu_factor: float = 0.825
    # The same for the FP4 peak (NVFP4 / MXFP4 on Blackwell; FP4 weights on older GPUs multiply on the 16-bit peak),
    # fitted on the B200 FP4 rows of TensorRT-LLM v0.20 (Llama 3.3-70B, 3.1-405B), MLPerf v4.1 (Llama-2-70B) and
    # InferenceX (SGLang DeepSeek-R1). No kernel timing backs it: the H200 of docs/measurements has no FP4.
    fp4_mfu_factor: float = 0.687
    # Fixed cost per forward pass, whatever it reads or computes. Research §7.3 puts it at 0.1-0.5 ms (BLIS trained
    # 126 us/step; BLIS roofline 500 us); the fit reads 4.9x the band's top and 19.3x BLIS's trained value. It absorbs
    # what the streaming term leaves out: with decode_mbu at the MAX_MBU ceiling (0.9, where end-to-end measurements
    # give 0.55-0.75) a small batch's missing step time lands here (Llama 3.1 8B at batch 1 on an H100 streams its
    # 16 GB in 5.3 ms at 0.9 of peak, 8.0 ms at 0.6), with any per-step work no other term names. It trades against
    # decode_mbu along a flat valley: refits since 2026-12 put it at 0.69-2.68 ms (docs/ACCURACY.md).
    step_overhead_ms: float = 2.43
    # Host work per running sequence per step: scheduling, sampling, detokenisation (BLIS trained
    # physics has a per-request term; TRT-LLM/vLLM batch-size-dependent CPU overhead).
    seq_overhead_ms: float = 0.00318
    # vLLM's own host work per running sequence per step, on top of that (Python scheduler, sampler and
    # detokeniser, which TensorRT-LLM's C++ runtime and SGLang's overlapped scheduler hide). BLIS's trained physics
    # on vLLM v0.15.1 adds 46 us per output token as API overhead (research §1.10); here it is charged on the step,
    # where each running sequence emits one token, as argonne's vLLM 0.6.1 rows ask (their over-prediction grew
    # with the batch on every GPU, their TensorRT-LLM rows' did not). Held there, not fitted: fitted, it stays at
    # 47 us (2026-12 case file). No row measures it on vLLM V1 at large batches: today's vLLM may pay less.
    vllm_seq_overhead_ms: float = 0.046
    # Per-layer kernel-launch/sync overhead (BLIS 20-32 us per layer).
    layer_overhead_ms: float = 0.0109
    # Latency of one TP all-reduce over NVLink/xGMI (NCCL 6-11 us; llm-analysis 8 us; AIC 10 us).
    allreduce_alpha_nvlink_ms: float = 0.005
    # Extra latency of the inter-node phase when tensor parallel spans nodes (pochenai: IB alpha 30 us; the
    # fit on SGLang TP16 over two 8×H100 nodes, the one such publication, reads far more: CUDA graphs off?).
    allreduce_alpha_fabric_ms: float = 0.147
    # Latency of one all-reduce over PCIe only (pochenai sanity range 50-200 us).
    allreduce_alpha_pcie_ms: float = 0.133
    # KV-read efficiency relative to weight streaming (BLIS trained physics 1.9 vs 1.4 => ~0.75x); with
    # attention timed as its own kernel (not hidden under the GEMMs) the fit reaches the 1.0 bound. Timed on an
    # H200 (docs/measurements): cuDNN's decode attention reads the cache at 3.5-4.4 TB/s from batch 32, this
    # value; PyTorch's FlashAttention-2 at 2.3-2.5 TB/s (0.55 of it).
    kv_mbu_factor: float = 1.0
    # MoE grouped GEMMs and routing reach a lower share of peak than dense GEMMs (BLIS: +482 us/MoE layer).
    moe_mfu_factor: float = 0.86
    # GDDR cards (workstation/consumer) reach a different share of their bandwidth than HBM parts (fitted above 1:
    # they stream at the MAX_MBU ceiling, which caps the product). At its 1.5 bound since the 2026-12-05 refit, with
    # llamacpp_mbu_factor, which the same llama.cpp rows fit, falling as it rose: 1.22 x 0.824 = 1.5 x 0.67.
    gddr_mbu_factor: float = 1.5
    # llama.cpp kernels (dequantising GEMV/GEMM) vs TensorRT-LLM (pochenai llama.cpp anchor 0.17).
    llamacpp_mbu_factor: float = 0.669
    llamacpp_mfu_factor: float = 0.371
    # Under Poisson load (MLPerf server) the engine runs at a mean TPOT of this share of the p99 limit.
    slo_tpot_utilisation: float = 0.8
    # Decode steps a new request waits for under load: residual of the running step (~0.5) plus the
    # iteration that carries its prefill with the batch (~1.0) (TRT-LLM/vLLM iteration-level scheduling).
    ttft_wait_steps: float = 1.41
    # p99 / mean of TPOT: a p99 is predicted as the predicted mean times this, fitted (each publication weighted
    # equally) on the 17 p99 TPOT rows of MLPerf v4.0, v4.1 (server) and InferenceX. The p99 / mean pairs they publish
    # (shared/validation): MLPerf v4.0 1.14-1.26, v4.1 1.13-1.38, InferenceX 1.06-1.12. The fit sits below MLPerf's
    # pairs because it multiplies the predicted mean, not the published one. MLPerf's predicted means are set by
    # slo_tpot_utilisation x its 200 ms p99 limit (158 ms on 9 of its 13 rows), above most published means
    # (103-165 ms): its published p99s are 1.12-1.15x the predicted mean (median per publication). InferenceX's
    # predicted means are 3-14% above the published ones: its p99s are 1.01x the predicted mean. 1.06 lies between.
    p99_over_mean: float = 1.04
    # p99 / mean of TTFT, fitted at its upper bound (2.0) on the p99 TTFT rows of the same three publications:
    # queueing tails are longer than decode-step tails. The pairs they publish: MLPerf v4.0 1.49-1.82, v4.1 1.59-3.49,
    # InferenceX 1.71-12.80 (start-up bursts: 6.0-6.5x on H200 at 8-64 clients, 12.8x on B200 at 64).
    p99_ttft_over_mean: float = 2.0
    # vLLM and SGLang against TensorRT-LLM, on MBU and MFU alike (research §7.3 engine multipliers ~0.9;
    # fitted per engine on every publication that ran it: argonne, SGLang README, vLLM blog, InferenceX).
    vllm_factor: float = 0.986
    sglang_factor: float = 1.04
    # Routed-expert weights stream at this share of the dense GEMMs' MBU (grouped GEMMs over few tokens
    # per expert: vLLM fused_moe / SGLang; BLIS trained physics +482 us per MoE layer). Timed on an H200
    # (docs/measurements): a cuBLAS GEMM pair per Mixtral expert streams at the dense rate (0.85-1.0 of this
    # estimate), a CUTLASS grouped GEMM at 0.53-0.82; fine-grained experts (Qwen3-30B-A3B, DeepSeek-R1,
    # gpt-oss-120b) reach only 0.28-0.77 below 512 tokens with the better of the two, and the same as served (R1 TP8
    # and EP8 shards, bf16 or FP8): 2.8-3.0 TB/s from 32 tokens, less below. Yet the public SGLang R1 and vLLM
    # gpt-oss cases fit at 1.0 and a 0.73 prior made both worse held out: kept, a weak spot at small batches.
    moe_mbu_factor: float = 1.0
    # ROCm serving stacks (vLLM/SGLang on Instinct) against CUDA ones on the same engine, weight/KV streaming and
    # matmuls apart (one factor for both made memory-bound and compute-bound AMD rows pull against each other):
    # fitted on the AMD rows of every publication (argonne vLLM 0.6.1 ROCm, MLPerf v4.1 AMD), each publication
    # weighted equally. On matmuls the two disagree several-fold (argonne saturates from batch ~32 at ~33 TFLOPS,
    # AMD's own MLPerf run does not), so that factor is a compromise and its bands are wide. The matmul prior is
    # measured: MAMF MI300X 51% vs H100 80% of peak = 0.64 (stas00/ml-engineering); the research notes hold no
    # streaming measurement of its own, so streaming shrinks toward the same 0.64.
    amd_mbu_factor: float = 0.517  # weight and KV-cache streaming (MBU)
    amd_mfu_factor: float = 0.602  # matmuls (MFU)
    # Time per MoE layer of each prefill pass on engines that run prefill eagerly (vLLM, SGLang; BLIS trained physics
    # +482 us per MoE layer is the prior). Not the dispatch of routing and grouped GEMMs alone: timed on an H200
    # (docs/measurements), a sync-free eager MoE layer exposes 0.10-0.32 ms of host time over its CUDA graph; the
    # fit's larger value also carries what else slows those engines' MoE prefill (untimed: their own kernels).
    moe_prefill_layer_ms: float = 2.43


FITTED: tuple[str, ...] = (
    "decode_mbu",
    "mbu_tp_exponent",
    "overlap_power",
    "mfu_max",
    "fp8_mfu_factor",
    "fp4_mfu_factor",
    "kv_mbu_factor",
    "moe_mfu_factor",
    "step_overhead_ms",
    "seq_overhead_ms",
    "layer_overhead_ms",
    "allreduce_alpha_nvlink_ms",
    "allreduce_alpha_pcie_ms",
    "allreduce_alpha_fabric_ms",
    "gddr_mbu_factor",
    "llamacpp_mbu_factor",
    "llamacpp_mfu_factor",
    "slo_tpot_utilisation",
    "ttft_wait_steps",
    "p99_over_mean",
    "p99_ttft_over_mean",
    "vllm_factor",
    "sglang_factor",
    "moe_mbu_factor",
    "amd_mbu_factor",
    "amd_mfu_factor",
    "moe_prefill_layer_ms",
)

DEFAULT_EFFICIENCY = InferenceEfficiency()

# The fitted constants that stand for a software stack's maturity (an engine's, ROCm's) rather than the hardware's:
# a newer build moves them, so an estimate says how old the builds behind them are (constant_evidence's eras).
SOFTWARE_CONSTANTS: tuple[str, ...] = (
    "amd_mbu_factor",
    "amd_mfu_factor",
    "llamacpp_mbu_factor",
    "llamacpp_mfu_factor",
    "sglang_factor",
    "vllm_factor",
)

# Engine class multipliers on MBU and MFU, relative to TensorRT-LLM (research §7.3 "Engine multipliers":
# vLLM/SGLang ~0.9, HF transformers 0.5 (gpu_poor x2.0 slower)). llama.cpp uses the fitted factors above.
# vLLM and SGLang have fitted factors (vllm_factor, sglang_factor; 0.9 is their prior); any other engine
# class not listed here takes vllm_factor.
ENGINE_MBU: dict[str, float] = {"trtllm": 1.0, "hf": 0.5}
ENGINE_MFU: dict[str, float] = {"trtllm": 1.0, "hf": 0.5}

# Largest running batch each engine schedules by default (vLLM's depends on the GPU: engine_defaults).
ENGINE_MAX_BATCH: dict[str, int] = {
    "trtllm": 2048,  # trtllm-bench tunes max_batch_size up to 2048 for short sequences
    "vllm": 256,  # vLLM V0 (before 0.8.0) max_num_seqs; V1 by GPU below
    # SGLang 0.5.7 (model_runner.py, wheel from PyPI, read 2026-12-05): max_running_requests = min(KV tokens // 2,
    # request pool), the pool clamp(KV tokens / context length x 512, 2048, 4096); the KV bound is the memory fit's,
    # so its engine cap is the pool's floor
    "sglang": 2048,
    "llamacpp": 4,  # llama-server default --parallel 4 (auto) in recent builds
    "hf": 64,  # static HF generate batch; no paging, kept modest
}

# Tokens one iteration may carry, the batch's decode tokens and prompt chunks together: TensorRT-LLM's
# max_num_tokens (BuildConfig / trtllm-build default 8192) and vLLM's max_num_batched_tokens (8192: V1's on GPUs of
# 70 GiB or more, and what the validator gives V0-era rows; V1 on smaller GPUs is in engine_defaults). Under
# continuous batching each step also prefills the prompts of the requests
# arriving meanwhile (batch × input / output tokens), so the budget caps the running batch where prompts are long
# and outputs short: TensorRT-LLM v0.14's 467-in / 16-out serving rows measured a 548 ms step on 4×H100 for
# Llama-3.1-70B; 271 running requests in full 8,192-token steps give 518 ms, where all 500 of the burst gave 946.
# SGLang runs prompts as prefill batches of their own (chunked_prefill_size bounds each), so its decode batch
# has no such cap; llama.cpp and HF generate batch statically.
ENGINE_TOKEN_BUDGET: dict[str, int] = {"trtllm": 8192, "vllm": 8192}

# vLLM V1's defaults (its engine since 0.8.0, 2025-03) depend on the GPU: vllm/engine/arg_utils.py,
# EngineArgs._set_default_args (v0.10.2 wheel from PyPI, read 2026-12-05), OpenAI server context: a GPU with at
# least 70 GiB that is not an A100 ("For GPUs like H100 and MI300x") runs max_num_seqs 1024 and
# max_num_batched_tokens 8192; any other 256 and 2048 (an A100 is kept small: vLLM PR #17885, a larger budget
# lowered its throughput).
VLLM_LARGE_GPU_BYTES = 70 * 2**30
VLLM_V1_DEFAULTS = {"large": (1024, 8192), "small": (256, 2048)}


def engine_defaults(engine: str, gpu: GpuSpec) -> tuple[int, int | None]:
    """(running sequences, tokens per step) the engine schedules on this GPU when not told; None: no step budget
    (SGLang prefills in batches of its own, llama.cpp and HF batch statically)."""
    if engine == "vllm":
        large = card_gb(gpu) * 1e9 >= VLLM_LARGE_GPU_BYTES and "a100" not in f"{gpu.id} {gpu.name}".lower()
        return VLLM_V1_DEFAULTS["large" if large else "small"]
    return ENGINE_MAX_BATCH.get(engine, 256), ENGINE_TOKEN_BUDGET.get(engine)


# Prompt tokens in one of SGLang's prefill batches: its chunked_prefill_size, which SGLang 0.5.7's server_args.py
# (_handle_gpu_memory_settings, wheel from PyPI, read 2026-12-05) sets by GPU memory in MiB: under 35 GiB 2,048,
# under 60 GiB 4,096, under 160 GiB 8,192, above 16,384 (B200, MI300X). It bounds how fast a backlog of prompts
# drains (finite_run.py), not the decode batch.
PREFILL_CHUNK_TOKENS = 8192  # the H100/H200 tier, for a GPU of unknown memory
SGLANG_PREFILL_CHUNKS = ((35, 2048), (60, 4096), (160, 8192))  # (below GiB, tokens); 16,384 above


def sglang_prefill_chunk(gpu: GpuSpec) -> int:
    gib = card_gb(gpu) * 1e9 / 2**30
    return next((tokens for below, tokens in SGLANG_PREFILL_CHUNKS if gib < below), 16384)


# Engines that run prefill as a compiled graph, with no per-layer Python dispatch: they do not pay
# moe_prefill_layer_ms. llama.cpp always; TensorRT-LLM only in its TensorRT (C++) engine flow (Mixtral TP2 on A100:
# 24 ms to the first token of a 128-token prompt), its default before 1.0. Since 1.0 its default is the PyTorch
# backend, the only one for the MoE models added from 2025 (Llama 4, DeepSeek-R1, Qwen3-MoE, gpt-oss): eager prefill,
# as vLLM's and SGLang's (validation: trtllm-perf-v0.20's Llama 4 Maverick, "PyTorch backend", ran 25-190% below
# the estimate without the term). A product answer is today's engine; the validator marks the older rows compiled.
COMPILED_ENGINES: tuple[str, ...] = ("llamacpp",)
# Engines whose scheduler runs waiting prompts as a prefill batch of their own before the next decode step
# (SGLang's default: mixed prefill/decode batches only with --enable-mixed-chunk): a new request waits for the
# forward pass in flight (mean residual half a step), then for its prefill alone, not for a step that also
# decodes the batch (the ~1.5 steps of ttft_wait_steps in TensorRT-LLM's and vLLM V1's mixed batches).
PREFILL_FIRST_ENGINES: tuple[str, ...] = ("sglang",)
PREFILL_FIRST_WAIT_STEPS = 0.5
# Engines whose batch runs to its end before the next starts: HF transformers' generate() takes a padded batch,
# prefills it and decodes it together (a batch job on it runs in waves, batch_job.py).
STATIC_BATCH_ENGINES: tuple[str, ...] = ("hf",)

# Engines that can run attention data-parallel over a tensor-parallel group (attention_parallel dp): SGLang
# (--enable-dp-attention), vLLM (--data-parallel-size with --enable-expert-parallel: DP attention, EP experts; docs
# "Data Parallel Deployment") and TensorRT-LLM (enable_attention_dp). HF generate() and llama.cpp split by heads only.
DP_ATTENTION_ENGINES: tuple[str, ...] = ("sglang", "vllm", "trtllm")
# Each engine's own switch for it, as the explanation names it.
DP_ATTENTION_SWITCH: dict[str, str] = {
    "sglang": "SGLang --enable-dp-attention",
    "vllm": "vLLM --data-parallel-size with --enable-expert-parallel",
    "trtllm": "TensorRT-LLM enable_attention_dp",
}

# Engines whose 16-bit GEMMs accumulate in FP16 (llama.cpp's CUDA backend calls cublasGemmEx with
# CUBLAS_COMPUTE_16F for FP16 matrices): on GeForce cards they get twice the FP32-accumulate peak.
FP16_ACCUMULATE_ENGINES: tuple[str, ...] = ("llamacpp",)

# Memory: share of capacity the engine may use, and a fixed runtime reserve per GPU.
USABLE_MEMORY_FRACTION = 0.90  # vLLM gpu_memory_utilization default; llm-optimizer 0.9
RUNTIME_RESERVE_GB = 2.0  # CUDA context + activations workspace (research §7.3: 2 GB, range 0.65-3.5)
TP_RESERVE_GB = 0.4  # NCCL buffers when TP > 1 (AIC: 342-392 MB)
# TensorRT-LLM sizes its memory the other way round: the weights load first, then the KV cache takes a share of
# what they leave (kv_cache_free_gpu_mem_fraction; 0.9 by default, 0.95 in the trtllm-perf runs of
# shared/validation, which publish Llama-3.1-70B FP8 on one 80 GB H100: 70.6 GB of weights, past vLLM's 0.9 share).
KV_SHARE_OF_FREE: dict[str, float] = {"trtllm": 0.90}

# No weight-streaming kernel reaches more of the peak bandwidth than this (research §7.3: kipply / llm-analysis
# "aggressive" 0.9; AIC's raw memory-op factor 0.8): the ceiling of every MBU product, GDDR cards included, and the
# fit's upper bound on decode_mbu. A 4 GiB device copy on an H200 moved 0.89 of its 4.8 TB/s (docs/measurements).
MAX_MBU = 0.9

# All-reduce bandwidth: the bidirectional per-GPU figure halves to one direction; links reach ~85%.
LINK_EFFICIENCY = 0.85  # pochenai 0.9, research §7.3 band 0.7-0.9
PCIE_GBS_UNIDIR: dict[int, float] = {3: 12.0, 4: 25.0, 5: 50.0}  # effective x16 throughput by generation

# Causal attention: FlashAttention skips the masked half of QK^T in prefill (research §6.2).
CAUSAL_ATTENTION_FACTOR = 0.5

# A row that states only a cap on its prompts ("input <= 1,919 tokens": MLPerf's GPT-J on CNN/DailyMail; "input and
# output each < 1,024 tokens": its Llama-2-70B on OpenOrca) is read at half the cap; no citable mean was found.
INPUT_CAP_SHARE = 0.5

# Defaults for inputs a source did not publish (stated in the prediction's assumptions).
DEFAULT_INPUT_LEN = 512  # no cap stated either (MLPerf's Mixtral mix, ShareGPT): half of Llama-2-70B's 1,024
DEFAULT_SINGLE_STREAM_INPUT_LEN = 512  # llama.cpp README example prompt (short); llama-bench pp512
DEFAULT_SINGLE_STREAM_OUTPUT_LEN = 1_024  # "-n 1024" in the llama.cpp benchmark

# Throughput bands: p10-p90 of leave-one-source-out residuals per regime, in bands.py / band_table.py.
