"""The training workload: train or fine-tune a model on a token budget, within a deadline and a budget."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, field_validator, model_validator

from app.scoring.explain import fixed
from app.scoring.pricing.price_terms import INTERRUPTIBLE
from app.scoring.workload.field_types import (
    FULL_WEIGHT_METHODS,
    OPTIMIZER_IN_BACKWARD_FRAMEWORKS,
    QLORA_FRAMEWORKS,
    TRAINING_TAKES_NO_EXPERT_PARALLEL,
    Framework,
    Method,
    Offload,
    Optimizer,
    Precision,
)
from app.scoring.workload.limits_at import TRAINING_LIMITS_AT_DESCRIPTION, LimitsAt, estimate_is_unset
from app.scoring.workload.model_choice import ModelChoice


class TrainingWorkload(ModelChoice):
    """Train or fine-tune a model on a token budget."""

    trains: ClassVar[bool] = True  # offers that only serve (managed inference endpoints) cannot run it

    @model_validator(mode="before")
    @classmethod
    def _no_expert_parallel(cls, data: Any) -> Any:
        """Inference's expert_parallel (tp | ep) or a layout's EP degree given to a run: say why neither is taken,
        not pydantic's 'Extra inputs are not permitted'."""
        if isinstance(data, dict) and "expert_parallel" in data:
            raise ValueError(f"expert_parallel: {TRAINING_TAKES_NO_EXPERT_PARALLEL}")
        return data

    method: Method = Field(
        "lora",
        description="pretrain (from scratch), full_ft (every weight trained), lora (adapters on a frozen 16-bit "
        "base) or qlora (adapters on a 4-bit base)",
    )
    precision: Precision = Field(
        "bf16",
        description="matmul precision: bf16/fp16 mixed precision; fp8 (TransformerEngine, torchao float8/MXFP8); fp4 "
        "(NVFP4 on Blackwell, MXFP4 on CDNA 4; a GPU without FP4 tensor cores runs it in FP8, one without FP8 in BF16)",
    )
    seq_len: int = Field(4_096, ge=16, le=1_048_576, description="tokens per training sequence")
    global_batch_seqs: int = Field(64, ge=1, le=1_000_000, description="sequences per optimizer step")
    total_tokens: float = Field(2e9, gt=0, le=1e15, description="training token budget")
    lora_rank: int = Field(16, ge=1, le=4_096, description="adapter rank of method lora or qlora")
    framework: Framework = Field(
        "auto",
        description="training stack: llm-foundry, pytorch (plain PyTorch, torchtune) and hf (HF Trainer, DeepSpeed) "
        "split a job by DDP, ZeRO and FSDP only; megatron, nemo, torchtitan and auto (a tuned stack) may also use "
        "tensor and pipeline parallelism, and ring context parallelism (CP) for sequences of 16,384 tokens or more "
        "or that fit no other way; qlora runs on hf, pytorch (torchtune) and auto only",
    )
    optimizer: Optimizer = Field(
        "adamw",
        description="optimizer states of the trained weights: adamw = mixed precision, fp32 master + m + v "
        "(16 bytes/param); adamw_bf16 = pure bf16 weights, gradients and moments (8 bytes/param; updates can round "
        "away); adamw_8bit = bitsandbytes 8-bit moments on bf16 weights (6 bytes/param)",
    )
    offload: Offload = Field(
        "none",
        description="cpu: gradients and optimizer states in host memory, the optimizer step on the CPU (DeepSpeed "
        "ZeRO-Offload's offload_optimizer); the GPU keeps the bf16 weights, each step pays PCIe copies and the CPU's "
        "Adam. cpu_weights: the weights' shards too (FSDP's CPU offload, torchtune's fsdp_cpu_offload, DeepSpeed's "
        "offload_param) on a layout that shards them (FSDP / ZeRO-3), the GPU holding only the layers gathered for "
        "compute; each shard is copied up before the forward's and the backward's all-gathers, beside the compute, "
        "costing time only beyond it",
    )
    activation_offload: bool = Field(
        False,
        description="true: the activations a step stores for its backward are copied to host memory in the forward "
        "and back in the backward (torchtune's enable_activation_offloading), so a GPU holds two layers' worth; the "
        "copies cross PCIe twice a micro-batch on a side stream and cost time only beyond the compute they overlap",
    )
    optimizer_in_backward: bool = Field(
        False,
        description="true: each parameter is updated as soon as its gradient is ready and that gradient freed "
        "(torchtune's optimizer_in_bwd, torchtitan's early_step_in_backward), so the whole gradient is never held; "
        "the same update, no time cost. Runs on pytorch and torchtitan, without gradient accumulation: a step that "
        "accumulates micro-batches keeps its gradients and is sized so",
    )
    max_gpus: int = Field(64, ge=1, le=65_536, description="largest job size to consider")
    max_days: float = Field(30.0, gt=0, le=3_650, description="deadline: the run must finish within this many days")
    budget_usd: float | None = Field(None, gt=0, le=1e10, description="optional cap on the run's total cost")
    limits_at: LimitsAt | None = Field(None, description=TRAINING_LIMITS_AT_DESCRIPTION)
    checkpoint_interval_hours: float = Field(
        1.0, gt=0, le=168, description="spot: work since the last checkpoint is lost at each interruption"
    )
    interruptions_per_node_month: float | None = Field(
        None, ge=0, le=1_000, description="spot: override the provider class's sourced interruption rate"
    )

    _estimate_is_unset = field_validator("limits_at")(estimate_is_unset)

    @field_validator("lora_rank")
    @classmethod
    def _rank_of_an_adapter(cls, value: int, info: ValidationInfo) -> int:
        method = info.data.get("method")
        if method in FULL_WEIGHT_METHODS and value != cls.model_fields["lora_rank"].default:
            raise ValueError(
                f"lora_rank sizes the adapters of method lora or qlora; method {method} trains every weight and has "
                "none: leave lora_rank empty, or choose lora"
            )
        return value

    @field_validator("total_tokens")
    @classmethod
    def _at_least_one_step(cls, value: float, info: ValidationInfo) -> float:
        """A budget under one global batch is a fraction of an optimizer step: its run would bill less than the $ per
        step shown beside it."""
        seq_len, batch = info.data.get("seq_len"), info.data.get("global_batch_seqs")
        if seq_len is not None and batch is not None and value < seq_len * batch:
            raise ValueError(
                f"total_tokens {fixed(value, 0)} is less than one optimizer step: global_batch_seqs {batch:,} × "
                f"seq_len {seq_len:,} = {seq_len * batch:,} tokens a step; raise total_tokens to at least "
                f"{seq_len * batch:,}, or lower global_batch_seqs"
            )
        return value

    @field_validator("checkpoint_interval_hours", "interruptions_per_node_month")
    @classmethod
    def _spot_terms_need_spot(cls, value: float | None, info: ValidationInfo) -> float | None:
        """Only spot offers are interrupted (price_terms.INTERRUPTIBLE): without spot among the price types these
        change no answer. The form shows the default interval filled in, so the default is no choice."""
        name = str(info.field_name)
        given = value is not None and value != cls.model_fields[name].default
        if given and "price_types" in info.data and not INTERRUPTIBLE.intersection(info.data["price_types"]):
            raise ValueError(
                f"{name} prices spot interruptions, and price_types has no spot: add spot to price_types, or leave "
                f"{name} empty"
            )
        return value

    @field_validator("optimizer_in_backward")
    @classmethod
    def _a_stack_that_steps_in_backward(cls, value: bool, info: ValidationInfo) -> bool:
        framework, offload = info.data.get("framework"), info.data.get("offload")
        if value and framework not in OPTIMIZER_IN_BACKWARD_FRAMEWORKS:
            raise ValueError(
                f"{framework} does not step the optimizer in the backward: torchtune's optimizer_in_bwd (pytorch) and "
                f"torchtitan's early_step_in_backward do. Choose framework pytorch or torchtitan, or leave "
                "optimizer_in_backward off"
            )
        if value and offload != "none":
            raise ValueError(
                "optimizer_in_backward frees each gradient on the GPU after its update, and offload cpu moves the "
                "gradients and the update to the host: choose one"
            )
        return value

    @field_validator("framework")
    @classmethod
    def _a_stack_that_runs_qlora(cls, value: str, info: ValidationInfo) -> str:
        if value not in QLORA_FRAMEWORKS and info.data.get("method") == "qlora":
            raise ValueError(
                f"{value} does not run QLoRA: QLoRA loads NF4 base weights through bitsandbytes, which HF Trainer + "
                f"PEFT (hf) and torchtune (pytorch) do and {value} does not. Choose framework hf, pytorch or auto with "
                f"qlora, or method lora (a bf16 base) on {value}"
            )
        return value

    @field_validator("precision")
    @classmethod
    def _qlora_matmuls_run_in_16_bit(cls, value: str, info: ValidationInfo) -> str:
        # QLoRA dequantises its NF4 base weights to BF16 before each matmul (QLoRA paper §3; bitsandbytes/PEFT,
        # Unsloth and torchtune all do): no QLoRA stack runs FP8 or FP4 matmuls on them, so no speedup to price.
        if value in ("fp8", "fp4") and info.data.get("method") == "qlora":
            raise ValueError(
                f"QLoRA dequantises its NF4 base weights to BF16 before every matmul (bitsandbytes/PEFT, Unsloth, "
                f"torchtune): no QLoRA stack runs {value.upper()} matmuls on them. Use bf16 or fp16 with qlora, "
                f"or method lora (a bf16 base) with {value}"
            )
        return value
