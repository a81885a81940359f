"""Efficiency constants of the training estimator, one regime per key, never per case.

Structure and starting values: shared/research/training_estimators.md §6.5. Values marked
"fitted" are reproduced by `python -m app.calibration.calibrate_training training_cases.csv`
(log-error fit on the public validation file, each publication weighted equally so that LLM Foundry's
201 tokens/s rows do not drown the other 13 sources); the others are research defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

# Fitted keys, in the order the calibration walks them (name -> field of TrainingEfficiency).
FITTED = (
    "mfu_ampere_16",
    "mfu_hopper_16",
    "mfu_hopper_fp8",
    "mfu_blackwell_fp8",
    "mfu_ada_fp8",
    "fw_foundry_fp8",
    "fw_torchtitan_16",
    "fw_torchtitan_fp8",
    "fw_pytorch",
    "width_half_hidden",
    "width_exponent",
    "attn_efficiency",
    "tp_comm_exposed",
    "dp_overlap",
    "lora_factor",
    "pp_interleave_default",
)


@dataclass(frozen=True, slots=True)
class TrainingEfficiency:
    """All tunable efficiencies; MFU values are fractions of the dense peak of the precision used."""

    # MFU base per GPU family and precision class ("16" = bf16/fp16).
    mfu_ampere_16: float = 0.6519  # fitted; research default 0.50 (LLM Foundry, Korthikanti A100)
    mfu_hopper_16: float = 0.5184  # fitted; research default 0.40 (LLM Foundry, Megatron-Core H100)
    mfu_hopper_fp8: float = 0.5374  # fitted; research default 0.40 vs the FP8 peak
    mfu_blackwell_16: float = 0.38  # research default, no BF16 evidence
    mfu_blackwell_fp8: float = (
        0.2498  # fitted on MLPerf v4.1 B200 and torchao MXFP8 rows (the latter pull it down); default 0.38
    )
    mfu_ada_16: float = 0.35  # research default (sparse data)
    mfu_ada_fp8: float = 0.3937  # fitted on MLPerf L40S LoRA rows (PCIe-only nodes)
    mfu_cdna_16: float = 0.30  # research default, inferred from MLPerf MI300X
    mfu_cdna_fp8: float = 0.26  # research default, fitted there to MLPerf AMD LoRA
    mfu_other_16: float = 0.30  # assumption for families without evidence (Turing, Gaudi, TPU)
    mfu_other_fp8: float = 0.25  # assumption for families without evidence
    # Framework class factors (Megatron/NeMo-class = 1.0 reference).
    fw_megatron: float = 1.0  # reference class (Megatron-LM, NeMo, MLPerf NVIDIA)
    fw_foundry: float = 1.0  # research default (LLM Foundry FSDP = Megatron-class)
    fw_foundry_fp8: float = 0.5055  # fitted; LLM Foundry amp_fp8 rows reach less of the FP8 peak
    fw_torchtitan_16: float = 1.0089  # fitted; research default 0.85 (torchtitan FSDP2 BF16)
    fw_torchtitan_fp8: float = 0.6519  # fitted; research default ~0.65 (torchtitan Float8)
    fw_pytorch: float = 1.0496  # fitted on MLPerf non-NVIDIA PyTorch/NeMo submissions
    fw_hf: float = 0.70  # research default 0.6-0.8 (HF Trainer + DeepSpeed/FSDP)
    fw_auto: float = 0.90  # assumption: a tuned open stack between HF and Megatron-class
    # Small-matmul saturation: factor = 1 / (1 + (half_hidden / hidden) ** exponent).
    width_half_hidden: float = 351.4705  # fitted; MPT 125M-70B sweep (LLM Foundry)
    width_exponent: float = 0.6445  # fitted; same sweep
    # Attention score/AV matmuls run at this fraction of the dense-matmul efficiency.
    attn_efficiency: float = 1.0  # fitted; LLM Foundry long-sequence rows (research f_seq 0.7-0.9)
    # Share of TP all-reduce time not hidden behind compute.
    tp_comm_exposed: float = 0.0662  # fitted; Korthikanti/NeMo TP rows
    # Share of compute time under which DP/FSDP gradient/parameter traffic hides.
    dp_overlap: float = 1.0  # fitted (at its bound); MLPerf strong-scaling rows
    # LoRA/QLoRA MFU factor relative to full training (k = 4 already in FLOPs).
    lora_factor: float = 0.8128  # fitted; MLPerf + NeMo Llama-2 LoRA rows
    qlora_factor: float = 0.45  # research: QLoRA 0.25-0.7 of LoRA throughput (universal-llm-trainer)
    # MoE factor on active-parameter MFU.
    moe_factor: float = 0.6  # research default (GPT-OSS-120B, DeepSeek-V3 BF16 rows)
    # Virtual pipeline chunks assumed when the stack interleaves and the layout does not say.
    pp_interleave_default: float = 8.0  # fitted (at its bound); NeMo uses VP 5-20, torchtitan interleaved 1F1B
    # Large-job factor (stragglers, collectives at scale).
    scale_factor_2k: float = 0.95  # research: Megatron strong scaling 47->42 % (<= 2k GPUs)
    scale_factor_big: float = 0.90  # research: Llama 3 43 % at 8k -> 41 % at 16k GPUs
    # Links: fraction of nominal bandwidth reached by collectives.
    nvlink_efficiency: float = 0.65  # Calculon H100 system file (NVLink 450 GB/s at 0.65)
    scaleout_gbs_per_gpu: float = 45.0  # 400 Gb/s IB/RoCE per GPU at 0.9 (Calculon, scaling book)
    pcie_gbs_per_gpu: float = 20.0  # PCIe Gen4/5 x16 practical all-reduce bandwidth (assumption)
    # Hardware FLOPs overhead of recomputation, as a multiple of N_active per token.
    selective_recompute_flops_per_param: float = 0.2  # research §6.2 (~0.2 N selective)
    full_recompute_flops_per_param: float = 2.0  # one extra forward pass (TM101)
    selective_activation_share: float = 0.6  # torchtitan op-level selective AC keeps ~60 % (assumption)


DEFAULT_TRAINING_EFFICIENCY = TrainingEfficiency()

# Memory constants (research §1.2-1.3 and §6.3).
BYTES_MIXED_ADAMW = 16.0  # bf16 weights + fp32 master + m + v (+ bf16 grads): TM101, ZeRO paper
BYTES_OPT_AND_MASTER = 12.0  # fp32 master + Adam m + v: ZeRO paper (K = 12)
BYTES_BF16 = 2.0  # one bf16/fp16 tensor element
BYTES_QLORA_BASE = 0.55  # NF4 + double-quant constants: QLoRA paper (0.52-0.56)
LOGITS_BYTES_PER_ELEMENT = 6.0  # bf16 logits + fp32 loss upcast (ipex-llm #11247)
RUNTIME_RESERVE_GB = 1.5  # CUDA context + NCCL buffers (vram.asmirnov.xyz: 0.3-2 GiB)
USABLE_HBM_SHARE = 0.92  # allocator reserve/fragmentation: research §6.3
PCIE_SERVER_GPUS = 8  # PCIe-only cards: TP allowed inside one 8-GPU server, over PCIe (assumption)
LIVE_PARAM_LAYERS = 2  # ZeRO-3/FSDP prefetched layers held unsharded (stage3_max_live_parameters)
LORA_TARGETS_ALL_LINEAR = True  # adapters on q,k,v,o,gate,up,down (PEFT "all-linear")

# Uncertainty bands on tokens/s: p10-p90 of leave-one-source-out residuals per regime (bands.py).
