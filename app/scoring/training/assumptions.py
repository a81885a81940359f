"""What a training estimate assumes, in the words of its assumptions (estimate_assumptions): the optimizer and its
offload, the framework, LoRA's adapters, QLoRA's data parallelism, a mixture of experts' matmul factor, the loss's
logits memory and FP4's modelled speed."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.efficiency.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.explain import significant
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.lora_adapters import lora_note
from app.scoring.training.layouts.memory import logits_bytes_per_element
from app.scoring.training.layouts.optimizer import OFFLOAD_NOTE, OPTIMIZER_NOTES, WEIGHTS_OFFLOAD_NOTE, state_recipe
from app.scoring.training.layouts.search_space import data_parallel_only_method, recompute_levels
from app.scoring.training.step.frameworks import FRAMEWORK_CLASS
from app.scoring.training.step.mfu import fp4_modelled_note
from app.scoring.workload import TrainingWorkload

QLORA_NOTE = (
    "QLoRA: NF4 base weights dequantised to BF16 before each matmul; data parallel or FSDP only (bitsandbytes/PEFT, "
    "Unsloth and torchtune have no tensor or pipeline parallelism over NF4 weights), FSDP sharding the NF4 base "
    "(bitsandbytes 0.43, Answer.AI FSDP+QLoRA, 2024-03)"
)

PEFT_CHECKPOINTING_NOTE = (
    "QLoRA on HF Trainer + PEFT: every layer checkpointed, as prepare_model_for_kbit_training does by default "
    "(use_gradient_checkpointing=True): the backward recomputes the forward and dequantises the NF4 weights again"
)


def moe_note(model: ModelSpec, e: eff.TrainingEfficiency) -> str:
    """What a mixture of experts' estimate rests on (the matmul efficiency term shows the factor)."""
    layers = "on every layer"
    if model.moe_layers < model.layers:
        overall = moe_layer_factor(e.moe_factor, moe_layer_share(model))
        layers = (
            f"on its {model.moe_layers} MoE layers of {model.layers} and at 1 on the {model.dense_ffn_layers} dense "
            f"ones: {significant(overall, 3)} over the model, as inference counts it"
        )
    return (
        f"MoE: FLOPs of the active parameters at {significant(e.moe_factor, 3)} of a dense model's matmul efficiency "
        f"(research default from GPT-OSS-120B and DeepSeek-V3 BF16 rows) {layers}; the factor stands for token "
        "routing, grouped expert GEMMs and the all-to-all of the runs it was read on, none timed on its own; memory "
        "holds every expert, split with the other weights by ZeRO/FSDP, TP and PP. On Megatron-LM, NeMo, torchtitan "
        "and auto the search also tries expert parallelism (EP, at TP 1 or beside attention TP, EP folded over "
        "TP x DP): each GPU holds num_experts / EP whole experts, their states sharded over TP x DP / EP ranks, and "
        f"pays a timed all-to-all (inside the NVLink domain at {significant(e.ep_a2a_nvlink_efficiency, 3)} of the "
        "link, DeepEP's measured share), "
        f"{significant(e.ep_a2a_exposed, 3)} of it exposed (Megatron-Core runs dispatch, expert GEMM and combine one "
        "after another) on top of the factor, so an EP layout is priced on the cautious side"
    )


def loss_memory_note(framework: str) -> str:
    """What the logits' memory assumes of the stack's loss (memory.logits_bytes_per_element)."""
    per_element = logits_bytes_per_element(framework)
    if framework in eff.FUSED_LOSS_FRAMEWORKS:
        peak = significant(per_element)
        return f"fused or chunked loss: logits peak at {peak} bytes per token and vocabulary entry"
    return (
        "unfused loss (HF Trainer, torchtitan, plain PyTorch): logits peak at "
        f"{significant(per_element)} bytes per token and vocabulary entry in its backward pass; a fused or chunked "
        "loss (Liger, torchtune) needs about half"
    )


# Notes by all they read (the model, the GPU's peak note, the workload's optimizer, offload, framework, method, LoRA
# rank and precision): a ranking estimates each of its ~40 (GPU, machine) slots on copies of one workload, and the
# notes were written out again for each (found by speed26). Cleared when full; each entry is a few strings.
_NOTES: dict[tuple[object, ...], tuple[str, ...]] = {}
_NOTES_LIMIT = 1024


def estimate_assumptions(gpu: GpuSpec, model: ModelSpec, w: TrainingWorkload, note: str) -> list[str]:
    """The estimate's notes (a new list each call: an estimate may extend it), read from _NOTES where the same reads
    wrote them before. The GPU is read through its peak `note` alone."""
    key = (model, note, w.optimizer, w.offload, w.framework, w.method, w.lora_rank, w.precision)
    notes = _NOTES.get(key)
    if notes is None:
        if len(_NOTES) >= _NOTES_LIMIT:
            _NOTES.clear()
        notes = _NOTES[key] = tuple(_written_assumptions(model, w, note))
    return list(notes)


def _written_assumptions(model: ModelSpec, w: TrainingWorkload, note: str) -> list[str]:
    out = ["flash attention; bf16 activations; " + OPTIMIZER_NOTES[w.optimizer]]
    if state_recipe(w).on_cpu:
        out.append(WEIGHTS_OFFLOAD_NOTE if state_recipe(w).weights_on_cpu else OFFLOAD_NOTE)
    if note:
        out.append(note.strip("; "))
    if FRAMEWORK_CLASS.get(w.framework) is None:
        out.append("framework auto: a tuned FSDP/Megatron-class stack, 0.9 of Megatron efficiency")
    if w.method in ("lora", "qlora"):
        out.append(lora_note(model, w.lora_rank))
    if data_parallel_only_method(w.method):
        out.append(QLORA_NOTE)
    if recompute_levels(w) == ("full",):
        out.append(PEFT_CHECKPOINTING_NOTE)
    if model.is_moe:
        out.append(moe_note(model, eff.DEFAULT_TRAINING_EFFICIENCY))
    out.append(loss_memory_note(w.framework))
    if w.precision == "fp4" and not note:
        out.append(fp4_modelled_note(eff.DEFAULT_TRAINING_EFFICIENCY))
    return out
