"""Explanation lines of a training estimate: FLOPs per token in both conventions, MFU, and the step's parts.

MFU follows the model-FLOPs convention of Megatron-LM and PaLM: 6 (4 for LoRA) × active parameters + 12 × layers ×
attention width × sequence, attention counted in full and recomputation not counted. The compute phase is timed on
the FLOPs as executed: flash attention computes the causal half of the score/AV matmuls, recomputation adds its
passes, and attention runs at its own efficiency beside the matmul efficiency. So MFU can exceed the compute
phase's matmul efficiency; each term below shows its own arithmetic."""

from __future__ import annotations

import math

from app.scoring.efficiency import training as eff
from app.scoring.efficiency.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.explain import Term, fixed, percent, significant
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import Layout, recomputed_share
from app.scoring.training.layouts.optimizer import (
    GPUS_PER_HOST,
    HOST_ADAM_GBS,
    host_link_gbs,
    host_link_generation,
    offload_time,
    state_recipe,
)
from app.scoring.training.step.flops import CAUSAL_SHARE, executed_flops_per_token, value_head_dim
from app.scoring.training.step.frameworks import split_stack
from app.scoring.training.step.memory_terms import memory_terms
from app.scoring.training.step.mfu import (
    attention_efficiency,
    base_mfu,
    framework_factor,
    gpu_family,
    low_precision_factor,
    low_precision_speedup,
    method_factor,
    scale_factor,
    width_factor,
)
from app.scoring.training.step.offload_terms import host_copy_terms
from app.scoring.training.step.step_terms import (
    bubble_term,
    dp_comm_term,
    ep_comm_term,
    expert_gemm_term,
    step_time_term,
    tp_comm_term,
)
from app.scoring.training.step.step_time import StepTime, busiest_replica_factor, compute_seconds, trained_per_gpu
from app.scoring.workload import TrainingWorkload

PEAK_LABELS = {"fp8": "FP8", "fp4": "FP4"}
MFU_CONVENTION = "model FLOPs (Megatron-LM / PaLM MFU convention: attention counted in full, no recompute)"


def _partial_text(layout: Layout, model: ModelSpec) -> str:
    """Partial recompute in the executed FLOPs' words: which layers run their forward again, at what share of full
    recompute's extra FLOPs (empty for the other levels)."""
    if layout.recompute != "partial":
        return ""
    share = recomputed_share(layout, model.layers)
    return (
        f"; {layout.partial_words(model.layers)}: their forward runs again in the backward, {percent(share, 1)} of "
        "full recompute's extra FLOPs, and they keep only their input activation (the others keep all of theirs)"
    )


def _flops_terms(
    model: ModelSpec, w: TrainingWorkload, flops: float, executed: tuple[float, float], layout: Layout
) -> list[Term]:
    k = 4 if w.method in ("lora", "qlora") else 6
    width = model.num_attention_heads * model.head_dim
    value = value_head_dim(model)
    attention_text = f"12 × {model.layers} layers × {width:,} × {w.seq_len:,} tokens"
    if value != model.head_dim:  # MLA: scores over the query/key width, values over their own
        attention_text = (
            f"6 × {model.layers} layers × {model.num_attention_heads} heads × ({model.head_dim} + {value}) × "
            f"{w.seq_len:,} tokens"
        )
    matmul, attention = executed
    return [
        Term(
            "FLOPs per token",
            flops,
            "FLOP",
            f"{k} × {significant(model.active_params_b)}B active + {attention_text}; " + MFU_CONVENTION,
        ),
        Term(
            "executed FLOPs per token",
            matmul + attention,
            "FLOP",
            f"{f(matmul / 1e9)} GFLOP matmuls + {f(attention / 1e9)} GFLOP attention; the matmuls with recompute "
            f"and expert padding, the attention at its causal share ({significant(CAUSAL_SHARE)}: flash attention "
            "skips the masked half), what the compute phase is timed on" + _partial_text(layout, model),
        ),
    ]


def _compute_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    peak: float,
    pclass: str,
    executed: tuple[float, float],
    e: eff.TrainingEfficiency,
    attention_span: int | None,
    capacity_factor: float,
) -> Term:
    tokens_per_gpu = w.global_batch_seqs * w.seq_len / gpu_count
    matmul, attention = executed
    slowdown, attn_eff = low_precision_speedup(e, w.framework, pclass, gpu), attention_efficiency(e, gpu, w.framework)
    speed = f" × {f(slowdown)} low-precision speedup" if slowdown != 1 else ""
    detail = (
        f"{f(tokens_per_gpu)} tokens per GPU × ({f(matmul / 1e9)} GFLOP matmuls + {f(attention / 1e9)} GFLOP "
        f"attention{speed} / {f(attn_eff)} attention efficiency) / ({f(peak)} TFLOPS × {f(st.mfu_eff)} matmul "
        "efficiency) / 10^3"
    )
    pure = compute_seconds(
        e,
        gpu_count,
        model,
        w.method,
        w.seq_len,
        w.global_batch_seqs,
        layout.recompute,
        peak,
        st.mfu_eff,
        attention_span,
        capacity_factor,
        slowdown,
        attn_eff,
        w.framework,
        recomputed_share(layout, model.layers),
    )
    busiest = busiest_replica_factor(w.global_batch_seqs, layout.replicas(gpu_count))
    dequant = st.compute_s - pure * busiest
    if busiest != 1:
        detail += f" × {f(busiest)} busiest replica's share of an uneven batch"
    if abs(dequant) > 1e-12:  # QLoRA: NF4 weights dequantised before each GEMM, at HBM speed
        detail += f" + {f(dequant)} s NF4 dequantisation"
    if slowdown != 1:
        detail += (
            "; attention runs at 16-bit speed while the matmul efficiency carries the FP8/FP4 speedup, so its "
            "FLOPs are scaled by that speedup"
        )
    return Term("compute", st.compute_s, "s/step", detail + f"; {w.global_batch_seqs * w.seq_len:,} tokens a step")


def training_terms(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    peak: float,
    pclass: str,
    breakdown: dict[str, float],
    flops: float,
    mfu: float,
    e: eff.TrainingEfficiency,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
) -> list[Term]:
    executed = executed_flops_per_token(
        e,
        model,
        w.method,
        w.seq_len,
        layout.recompute,
        attention_span,
        capacity_factor,
        w.framework,
        recomputed_share(layout, model.layers),
    )
    tokens_s = w.global_batch_seqs * w.seq_len / st.total_s / gpu_count
    return [
        *_flops_terms(model, w, flops, executed, layout),
        Term("dense peak", peak, "TFLOPS", f"{PEAK_LABELS.get(pclass, 'BF16/FP16')} tensor peak"),
        Term(
            "MFU",
            mfu,
            "fraction",
            f"{f(flops / 1e9)} GFLOP × {f(tokens_s)} tokens/s per GPU / {f(peak)} TFLOPS / 10^3; {MFU_CONVENTION}, "
            "over the whole step (bubble and exposed communication included)",
        ),
        _matmul_efficiency_term(gpu, gpu_count, model, w, pclass, st, e),
        _compute_term(gpu, gpu_count, model, w, layout, st, peak, pclass, executed, e, attention_span, capacity_factor),
        bubble_term(gpu_count, model, w, layout, st, e),
        tp_comm_term(gpu, gpu_count, model, w, layout, st, e, peak, pclass),
        dp_comm_term(gpu, gpu_count, model, w, layout, st, e, uneven_batch_note(w, layout, gpu_count)),
        *_offload_terms(gpu, gpu_count, model, w, layout),
        *host_copy_terms(gpu, gpu_count, model, w, layout, st, e),
        *filter(None, [ep_comm_term(gpu, gpu_count, model, w, layout, st, e, capacity_factor)]),
        *filter(None, [expert_gemm_term(gpu, gpu_count, model, w, layout, st, peak, pclass, e, capacity_factor)]),
        step_time_term(st, layout, split_stack(w.framework, w.method)),
        *memory_terms(gpu, gpu_count, model, w, layout, breakdown, e),
    ]


def _offload_terms(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, layout: Layout) -> list[Term]:
    """The optimizer offloaded to the CPU: its PCIe copies and the CPU's Adam, in figures (optimizer.offload_time)."""
    recipe = state_recipe(w)
    if not recipe.on_cpu:
        return []
    adapters = lora_adapter_params(model, w.lora_rank)
    trained = trained_per_gpu(model, w.method, layout, gpu_count, adapters)
    t = offload_time(recipe, gpu, gpu_count, trained, layout.zero_stage)
    b = recipe.state_bytes
    stay = recipe.weights_leave(layout.zero_stage)
    per_param = f"{f(b.grads)}" if stay else f"({f(b.grads)} + {f(b.weights)})"
    back = "" if stay else " and takes the updated weights back"
    stays = " (FSDP's CPU offload: the updated weights stay in host memory, copied up before each use)" if stay else ""
    detail = (
        f"{f(t.params_per_gpu / 1e9)}B params × {per_param} bytes / {f(host_link_gbs(gpu))} GB/s "
        f"PCIe + {f(t.params_per_host / 1e9)}B params × {f(b.host_traffic)} bytes / {f(HOST_ADAM_GBS)} GB/s; "
        f"each GPU's optimizer shard sends its gradients to the host{back} over PCIe "
        f"Gen{host_link_generation(gpu)} x16{stays}, and the CPUs of one host (up to {GPUS_PER_HOST} GPUs) run Adam "
        "on their GPUs' shards at host-memory speed (ZeRO-Offload's CPU-Adam: 8B params in 2.41 s, 28 bytes each); "
        "not overlapped with the GPU's work: an upper bound"
    )
    return [Term("optimizer offloaded to CPU", t.total_s, "s/step", detail)]


def matmul_efficiency_factors(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, pclass: str, e: eff.TrainingEfficiency
) -> list[tuple[str, float]]:
    """The factors step_time.effective_mfu multiplies, each named, in its order (a MoE model's last)."""
    family = gpu_family(gpu)
    return [
        (f"{family} base", base_mfu(e, family)),
        (f"framework {w.framework}", framework_factor(e, w.framework)),
        (f"precision {PEAK_LABELS.get(pclass, 'BF16')}", low_precision_factor(e, gpu, w.framework, pclass)),
        ("width", width_factor(e, model.hidden_size, gpu)),
        ("scale", scale_factor(e, gpu_count)),
        (f"method {w.method}", method_factor(e, w.method)),
        ("MoE", moe_layer_factor(e.moe_factor, moe_layer_share(model))),
    ]


def _matmul_efficiency_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    pclass: str,
    st: StepTime,
    e: eff.TrainingEfficiency,
) -> Term:
    factors = matmul_efficiency_factors(gpu, gpu_count, model, w, pclass, e)
    product = " × ".join(f"{name} {f(value)}" for name, value in factors)
    capped = "; capped at 1" if math.prod(v for _, v in factors) > 1 else ""
    moe = f", and a MoE's routed experts ({moe_layers_text(model, e)})" if model.is_moe else ""
    why = (
        f"{capped}; the family's 16-bit MFU, the framework class, FP8/FP4's speedup as a share of their peak, "
        f"small-matmul saturation at hidden {model.hidden_size:,}, jobs beyond 256 GPUs, LoRA adapters{moe}: the "
        "share of the peak the executed matmul FLOPs run at (not MFU: it times executed FLOPs, attention at its causal "
        "share and own efficiency)"
    )
    return Term("matmul efficiency (compute phase)", st.mfu_eff, "fraction", product + why)


def moe_layers_text(model: ModelSpec, e: eff.TrainingEfficiency) -> str:
    """How the MoE factor spreads over the layers: grouped expert GEMMs, token routing and all-to-all at the factor on
    the layers with routed experts, the dense layers at 1 (moe_share.moe_layer_factor)."""
    text = f"grouped expert GEMMs, token routing, all-to-all: {f(e.moe_factor)} on the MoE layers"
    if model.moe_layers == model.layers:
        return text + f", all {model.layers}"
    return (
        f"{text}, {model.moe_layers} of {model.layers}, the {model.dense_ffn_layers} dense at 1: "
        f"1 - (1 - {f(e.moe_factor)}) × {model.moe_layers}/{model.layers}"
    )


def uneven_batch_note(w: TrainingWorkload, layout: Layout, gpu_count: int) -> str:
    """'' when the global batch splits into whole sequences per data-parallel replica; else how the step is timed.

    The step waits for its busiest replica (step_time.busiest_replica_factor): such a layout pays for the sequences
    it pads, and ranks below an even split of the same GPUs."""
    replicas = layout.replicas(gpu_count)
    if w.global_batch_seqs % replicas == 0:
        return ""
    share = w.global_batch_seqs / replicas
    low, high = int(share) * replicas, math.ceil(share) * replicas
    even = f"{low:,} or {high:,}" if low else f"{high:,}"
    return (
        f"; the global batch of {w.global_batch_seqs:,} sequences is not a whole number per replica "
        f"({w.global_batch_seqs:,} / {replicas:,} = {fixed(share, 2)}): timed at the busiest replica's "
        f"{math.ceil(share):,}, as if {high:,} (Megatron-LM and torchtitan refuse the layout; a global batch of "
        f"{even} splits evenly)"
    )
