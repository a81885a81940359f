"""The memory lines of a training estimate, each with the arithmetic of its GB per GPU (memory.memory_breakdown_gb)
first and the source of every constant after it: model states, live gathered params, activations, logits, reserve."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.explain import Term, significant
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.eager_activations import eager_coefficients, fp32_residual, stack_layer
from app.scoring.training.layouts.experts import (
    all_expert_params,
    expert_data_parallel,
    expert_parallel,
    held_params,
)
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import (
    GB,
    SINGLE_GPU_RESERVE_GB,
    Layout,
    frozen_base_bytes_per_param,
    largest_linear_params,
    layer_mean_ffn_width,
    logits_bytes_per_element,
    moe_ffn_width,
    offloaded_away_bytes,
    recomputed_layers,
    runtime_reserve_gb,
    selective_share,
    stage_layers,
    unquantised_params,
    usable_gb,
)
from app.scoring.training.layouts.optimizer import StateRecipe, state_recipe
from app.scoring.training.layouts.step_peak import FUSED_OPTIMIZER_STACKS, GRADS_FREED_STACKS, StepPeak, workload_peak
from app.scoring.training.step.frameworks import RING_CONTEXT_PARALLEL, split_stack
from app.scoring.workload import TrainingWorkload

ACTIVATION_SOURCE = (
    "bf16 activations per token per layer, 18 × hidden + 4 × FFN width as Megatron-LM's theoretical_memory_usage.py "
    "counts them (Korthikanti et al. 2022 with flash attention: no 5as/h attention scores), + 2 × FFN width for the "
    "gated MLP's extra tensor (shared/research/training_estimators.md §1.3)"
)


def memory_terms(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    breakdown: dict[str, float],
    e: eff.TrainingEfficiency,
) -> list[Term]:
    """One line per part of the breakdown, in its order, in GB per GPU, then the step's peak the fit is judged on."""
    details = {
        "model_states": lambda: (
            model_states_arithmetic(model, w, layout, gpu_count) + "; " + model_states_detail(w, layout)
        ),
        "live_params": lambda: live_params_detail(model, w.method, layout, gpu_count),
        "activations": lambda: activations_detail(model, w, layout, e),
        "logits": lambda: logits_detail(model, w, layout),
        "runtime_reserve": lambda: reserve_detail(gpu, gpu_count),
    }
    lines = [
        Term(f"memory: {k.replace('_', ' ')}", v, "GB/GPU", details[k]() if k in details else "")
        for k, v in breakdown.items()
    ]
    peak = workload_peak(model, w, layout, gpu_count)
    return [
        *lines,
        Term("memory: step peak", peak.needed_gb(breakdown), "GB/GPU", step_peak_detail(w, breakdown, peak)),
    ]


def _per_param(recipe: StateRecipe, zero_stage: int, dp: int, name: str = "DP ranks") -> str:
    """optimizer.gpu_state_bytes_per_param in figures: the bytes ZeRO shards over `dp` ranks divided by them."""
    b, ranks = recipe.state_bytes, f" / {dp} {name}"
    weights, grads, optimizer = (f(x) for x in (b.weights, b.grads, b.optimizer))
    if recipe.weights_leave(zero_stage):
        return "0 bytes/param (weights, gradients and optimizer states in host memory)"
    if recipe.on_cpu:
        return f"{weights} bytes/param bf16 weights" + (ranks if zero_stage >= 3 and dp > 1 else "")
    if dp <= 1:  # nothing to shard over
        return f"{f(b.total)} bytes/param"
    return {
        3: f"{f(b.total)} bytes/param{ranks}",
        2: f"({weights} + ({grads} + {optimizer}){ranks}) bytes/param",
        1: f"({weights} + {grads} + {optimizer}{ranks}) bytes/param",
    }.get(zero_stage, f"{f(b.total)} bytes/param")


def _split(params: float, *divisors: tuple[int, str]) -> str:
    """Parameters in billions over the ranks that split them, each divisor written only where it is above 1."""
    return f"{f(params / 1e9)}B params" + "".join(f" / {n} {name}" for n, name in divisors if n > 1)


def model_states_arithmetic(model: ModelSpec, w: TrainingWorkload, layout: Layout, gpu_count: int) -> str:
    """memory.model_state_bytes in figures: trained weights' (and a frozen base's) bytes over TP, PP, EP and ZeRO."""
    recipe, dp, stage = state_recipe(w), layout.shard_ranks(gpu_count), layout.zero_stage
    tp, pp = (layout.tensor_parallel, "TP ranks"), (layout.pipeline_parallel, "PP stages")
    ep = expert_parallel(layout, model) if layout.expert_parallel else 1
    experts = all_expert_params(model) if ep > 1 else 0.0
    edp = expert_data_parallel(dp, ep, layout.tensor_parallel)
    expert_split = (pp, (ep, "EP ranks"))
    ranks = "HSDP shard-group ranks" if layout.shard_group else "DP ranks"
    fsdp = (dp if stage >= 3 else 1, ranks)
    if w.method in ("pretrain", "full_ft"):
        parts = [f"{_split(model.params_b * 1e9 - experts, tp, pp)} × {_per_param(recipe, stage, dp, ranks)}"]
        if experts:
            parts.append(f"{_split(experts, *expert_split)} × {_per_param(recipe, stage, edp)}")
        return " + ".join(parts)
    base_dtype = "NF4" if w.method == "qlora" else "bf16"
    per_param = f"{significant(frozen_base_bytes_per_param(w.method))} bytes/param {base_dtype}"
    if recipe.weights_leave(stage):
        per_param = f"0 bytes/param (the {base_dtype} base's shards in host memory)"
    dense = model.params_b * 1e9 - experts
    kept = min(dense, unquantised_params(model)) if w.method == "qlora" else 0.0
    parts = [f"{_split(dense - kept, tp, pp, fsdp)} × {per_param}"]
    if kept:
        bf16 = "0 bytes/param" if recipe.weights_leave(stage) else f"{f(eff.BYTES_BF16)} bytes/param bf16"
        parts.append(f"{_split(kept, tp, pp, fsdp)} × {bf16} embedding and LM head")
    if experts:
        parts.append(f"{_split(experts, *expert_split, (edp if stage >= 3 else 1, 'DP ranks'))} × {per_param}")
    adapters = lora_adapter_params(model, w.lora_rank)
    parts.append(f"{_split(adapters, tp, pp)} × {_per_param(recipe, stage, dp, ranks)}")
    return " + ".join(parts)


def model_states_detail(w: TrainingWorkload, layout: Layout) -> str:
    """What the model states' bytes per trained parameter are (optimizer.STATE_BYTES)."""
    recipe = state_recipe(w)
    b = recipe.state_bytes
    held = layout.shard_words() if layout.zero_stage else "unsharded"
    text = (
        f"{w.optimizer}: {f(b.total)} bytes per trained parameter (weights {f(b.weights)} + gradients {f(b.grads)} + "
        f"optimizer {f(b.optimizer)}), {held}"
    )
    if recipe.weights_leave(layout.zero_stage):
        text += (
            "; offloaded with the weights (FSDP's CPU offload): the GPU holds none of its shard between uses, only "
            "the layers gathered for compute (live params)"
        )
    elif recipe.on_cpu:
        text += f"; offloaded: the GPU holds the weights' {f(b.weights)} bytes/param, the rest is in host memory"
    if w.method in ("lora", "qlora"):
        text += f"; the frozen base in {'NF4' if w.method == 'qlora' else 'bf16'}, trained weights the adapters"
    if layout.expert_parallel and layout.expert_parallel > 1:
        ranks = "DP / EP" if layout.tensor_parallel <= 1 else "TP × DP / EP"
        text += (
            f"; EP{layout.expert_parallel}: the routed experts over PP × EP, whole, sharded over the {ranks} ranks "
            "holding the same ones; the other weights over TP × PP"
        )
    return text


def _tp(layout: Layout) -> str:
    """The TP divisor of a per-GPU figure, written only where TP splits it."""
    return f" / {layout.tensor_parallel} TP ranks" if layout.tensor_parallel > 1 else ""


def live_params_detail(model: ModelSpec, method: str, layout: Layout, gpu_count: int) -> str:
    """memory.live_param_bytes in figures: FSDP/ZeRO-3's gathered layers, QLoRA's dequantised Linear."""
    dp = layout.data_parallel(gpu_count)
    parts, why = [], []
    if layout.zero_stage >= 3 and dp > 1:
        per_layer = held_params(model, layout) / max(1, model.layers)
        dtype = "NF4" if method == "qlora" else "bf16"
        parts.append(
            f"{eff.LIVE_PARAM_LAYERS} layers × {f(per_layer / 1e9)}B params × "
            f"{significant(frozen_base_bytes_per_param(method))} bytes/param {dtype}{_tp(layout)}"
        )
        experts = (
            f", its own {model.num_experts // expert_parallel(layout, model)} routed experts only"
            if (expert_parallel(layout, model) > 1)
            else ""
        )
        why.append(
            f"{layout.shard_words()} over {layout.shard_ranks(gpu_count)} data-parallel ranks gathers each layer's "
            "weights whole before it runs: "
            f"{eff.LIVE_PARAM_LAYERS} layers live at once, the one running and the one prefetched (DeepSpeed "
            f"stage3_max_live_parameters, FSDP forward prefetch); a layer is {f(model.params_b)}B params / "
            f"{model.layers} layers{experts}"
        )
    else:
        why.append(
            "no FSDP (ZeRO-3) gathers: the weights are whole in model states"
            if layout.zero_stage < 3
            else "FSDP over one data-parallel rank gathers nothing: the weights are whole in model states"
        )
    if method == "qlora":
        parts.append(
            f"{f(largest_linear_params(model) / 1e9)}B params × {significant(eff.BYTES_BF16)} bytes/param bf16"
            f"{_tp(layout)}"
        )
        why.append(
            "QLoRA's largest Linear dequantised from NF4 to bf16 for its matmul and freed after, one at a time "
            "(bitsandbytes matmul_4bit / dequantize_4bit)"
        )
    return (" + ".join(parts) or "0 GB") + "; " + "; ".join(why)


def _tokens(w: TrainingWorkload, layout: Layout) -> tuple[str, str]:
    """A micro-batch's tokens on one GPU in figures and, where the sequence is split, the split in words."""
    text = f"{w.seq_len:,} tokens"
    if layout.sequence_parallel <= 1:
        return text, ""
    split = "CP" if w.framework in RING_CONTEXT_PARALLEL else "SP"
    how = "ring context parallelism" if split == "CP" else "DeepSpeed-Ulysses sequence parallelism"
    return f"{text} / {layout.sequence_parallel} {split} ranks", f"; {how} splits each sequence's tokens"


def _per_stage(layout: Layout, recomputed: int) -> str:
    """Under PP, how a stage's recomputed layers count on the first stage, which holds PP micro-batches in flight."""
    if layout.pipeline_parallel <= 1:
        return ""
    return f" × PP{layout.pipeline_parallel} micro-batches in flight = {recomputed}"


def activations_detail(model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency) -> str:
    """memory.activation_bytes in figures, by recompute level, with its sharding by TP, SP/CP and PP."""
    tokens, split_words = _tokens(w, layout)
    h, layers = model.hidden_size, model.layers
    per_token, source = layer_words(model, w, layout, e)
    head = f"{tokens} × {layout.micro_batch_seqs} sequences"
    tail, bf16 = f"{_tp(layout)} / 10^9", significant(eff.BYTES_BF16)
    if layout.recompute == "full":
        text = f"{head} × ({layers} layers × {h:,} × {bf16} bytes + {per_token}){tail}"
        how = (
            "full recompute: each layer keeps only its bf16 input (hidden × 2 bytes per token), and one layer's whole "
            "set lives while its forward runs again in the backward"
        )
    elif layout.recompute == "partial":
        recomputed = recomputed_layers(layout, layers)
        whole = layers - recomputed + 1
        text = f"{head} × ({recomputed} layers × {h:,} × {bf16} bytes + {whole} layers × {per_token}){tail}"
        how = (
            f"{layout.partial_words(layers)}{_per_stage(layout, recomputed)}: {recomputed} layers keep only their "
            f"bf16 input, the other "
            f"{layers - recomputed} all of theirs, plus one layer's whole set while it is recomputed"
        )
    else:
        share = selective_share(e, layout.recompute, w.framework)
        kept = f" × {significant(share)}" if share != 1 else ""
        text = f"{head} × {layers} layers × {per_token}{kept}{tail}"
        how = {
            "none": "no recompute: every layer keeps all its activations",
            "selective": "selective recompute drops only the attention scores, which flash attention never stores",
        }[layout.recompute]
        if share != 1:
            how = (
                f"selective recompute on {w.framework} is op-level SAC, keeping {significant(share)} of them "
                "(selective_activation_share, an assumption)"
            )
    if model.is_moe and model.moe_intermediate_size:
        how += "; " + moe_width_words(model)
    if layout.tensor_parallel > 1:
        how += "; TP divides every activation (Megatron sequence parallelism splits the norms' and dropouts' too)"
    if layout.pipeline_parallel > 1:
        how += (
            f"; under PP{layout.pipeline_parallel} the first stage holds {layout.pipeline_parallel} micro-batches of "
            f"its {stage_layers(layers, layout.pipeline_parallel)} layers in flight (1F1B): about all {layers} layers"
        )
    return f"{text}; {how}{split_words}; {source}{_offloaded_words(model, w, layout, e)}"


def _offloaded_words(model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency) -> str:
    """Under activation offloading, what leaves the GPU of the count above and what stays (activation_offload)."""
    recipe = state_recipe(w)
    if not recipe.activations_offloaded:
        return ""
    moved = offloaded_away_bytes(model, w.seq_len, layout, e, w.framework, w.method, recipe) / GB
    kept = "the stored tensors of 2 layers (one in flight to or from the host, one computing)"
    if layout.recompute in ("full", "partial"):
        kept += " and the recomputed layer's whole set"
    return (
        f"; activation offloading: {f(moved)} GB of it copied to host memory in the forward and back in the "
        f"backward, so the GPU holds {kept} (torchtune's OffloadActivations on a side stream: "
        "layouts/activation_offload.py); the line's figure is what stays"
    )


def layer_words(
    model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY
) -> tuple[str, str]:
    """One layer's bytes per token in figures (memory.layer_bytes_per_token) and where they come from: the fused
    count, or the eager layer of a stack that runs uncompiled (eager_activations) on e.eager_layer_share of them."""
    ffn = f(layer_mean_ffn_width(model, moe_ffn_width(model)))
    eager = stack_layer(w.framework, w.method)
    fused = f"(18 × {model.hidden_size:,} + 6 × {ffn}) B"
    if eager is None or e.eager_layer_share == 0:
        return fused, ACTIVATION_SOURCE
    fp32_stream = fp32_residual(w.method, state_recipe(w), layout.zero_stage)
    c = eager_coefficients(eager, fp32_stream, w.method in ("pretrain", "full_ft"))
    widths = [
        (c.hidden, f"{model.hidden_size:,}"),
        (c.query, f"{model.num_attention_heads * model.head_dim:,}"),
        (c.kv, f"{model.num_kv_heads * model.head_dim:,}"),
        (c.heads, f"{model.num_attention_heads}"),
        (c.ffn, ffn),
    ]
    figures = " + ".join(f"{significant(k)} × {width}" for k, width in widths if k)
    stream = "fp32 (autocast on fp32 weights)" if fp32_stream else "bf16"
    source = (
        f"bf16 activations per token per layer as {split_stack(w.framework, w.method)}'s eager (uncompiled) layer "
        f"saves them, its residual stream {stream}: {significant(c.hidden)} × hidden for its two RMSNorms, "
        f"{significant(c.query)} × query width for q{', k, v (expanded to every head)' if not c.kv else ''} and the "
        "attention output"
        f"{f', {significant(c.kv)} × k/v width' if c.kv else ''}, {significant(c.heads)} × heads of logsumexp, "
        f"{significant(c.ffn)} × FFN width for the gated MLP ({eager.source}; layouts/eager_activations.py: the same "
        "count for a plain loop's fused norm and unexpanded k/v matched an H200 run to within 1 %, "
        "docs/measurements/h200-2026-12-04-train-step.json), in place of the fused count "
        "Megatron-LM's theoretical_memory_usage.py makes (18 × hidden + 6 × FFN width, Korthikanti et al. 2022)"
    )
    if e.eager_layer_share != 1:
        share = significant(e.eager_layer_share)
        mixed = f"({fused} + {share} × (({figures}) B − {fused}))"
        return mixed, f"{source}; on {share} of the layers (eager_layer_share)"
    return f"({figures}) B", source


def moe_width_words(model: ModelSpec) -> str:
    """Where a MoE's FFN width comes from: a token's routed and shared experts, averaged with any dense layers."""
    experts = model.experts_per_token + model.num_shared_experts
    text = f"FFN width: a token's {experts} experts × {model.moe_intermediate_size:,} on the MoE layers"
    if model.dense_ffn_layers:
        text += (
            f", {model.intermediate_size:,} on the {model.dense_ffn_layers} dense ones, averaged over the "
            f"{model.layers} layers"
        )
    return text


def logits_detail(model: ModelSpec, w: TrainingWorkload, layout: Layout) -> str:
    """memory.logits_bytes in figures, with the measured bytes per logit of the stack's loss."""
    tokens, split_words = _tokens(w, layout)
    per_logit = logits_bytes_per_element(w.framework)
    text = (
        f"{tokens} × {layout.micro_batch_seqs} sequences × {model.vocab_size:,} vocabulary × "
        f"{significant(per_logit)} bytes{_tp(layout)} / 10^9"
    )
    if w.framework in eff.FUSED_LOSS_FRAMEWORKS:
        why = (
            f"{significant(per_logit)} bytes per logit: {w.framework}'s fused or chunked loss holds the bf16 logits "
            "and one fp32 copy at a time (ipex-llm #11247; an 8-chunk loss measured 6.6 bytes, "
            "docs/measurements/h200-2026-12-04-train-step.json)"
        )
    else:
        why = (
            f"{significant(per_logit)} bytes per logit on {w.framework}: an unfused loss (HF Trainer, torchtitan, "
            "plain PyTorch; auto takes it, on the safe side) holds the fp32 log-probabilities, their gradient and the "
            "logits' gradient at once at the start of its backward; measured 12.0 bytes on Llama 3.2 1B/3B and 3.1 8B "
            "(docs/measurements/h200-2026-12-04-train-step.json)"
        )
    if layout.tensor_parallel > 1:
        why += "; TP splits the vocabulary (vocab-parallel output layer)"
    if layout.pipeline_parallel > 1:
        why += "; the last pipeline stage holds them, counted beside the first stage's activations: on the safe side"
    return f"{text}; {why}{split_words}"


def reserve_detail(gpu: GpuSpec, gpu_count: int) -> str:
    """memory.runtime_reserve_gb with its source, and how it is counted against the card (usable_gb)."""
    reserve = runtime_reserve_gb(gpu_count)
    if gpu_count > 1:
        why = (
            "CUDA context, cuBLAS workspaces and NCCL's communicator buffers, outside the job's tensors (CUDA context "
            "0.3-2 GiB: vram.asmirnov.xyz)"
        )
    else:
        why = (
            f"one GPU: no NCCL communicator; the CUDA context and cuBLAS/cuDNN workspaces held outside PyTorch's "
            f"allocator, {significant(SINGLE_GPU_RESERVE_GB)} GB in every training step measured on an H200 "
            "(docs/measurements/h200-2026-12-04-train-step.json, outside_allocator_gb)"
        )
    return (
        f"{significant(reserve)} GB; {why}; not in the need (the step peak): it comes off the card's allocator share, "
        f"{significant(gpu.memory_gb)} GB × {significant(eff.USABLE_HBM_SHARE)} = "
        f"{f(gpu.memory_gb * eff.USABLE_HBM_SHARE)} GB allocator share - {significant(reserve)} GB = "
        f"{f(usable_gb(gpu, gpu_count))} GB usable, the most the need may reach"
    )


def step_peak_detail(w: TrainingWorkload, breakdown: dict[str, float], peak: StepPeak) -> str:
    """step_peak.StepPeak in figures: the peak moment's parts, which moment it is and why, and the other moment."""
    states, live = f"{f(breakdown['model_states'])} GB model states", f"{f(breakdown['live_params'])} GB live params"
    freed = "" if peak.grads_persist else f" - {f(peak.gradients_gb)} GB gradients freed"
    start = (
        f"{states}{freed} + {live} + {f(breakdown['activations'])} GB activations + {f(breakdown['logits'])} GB logits"
    )
    step = f"{states} + {live} + {f(peak.optimizer_temporary_gb)} GB optimizer temporaries"
    if peak.update_gradients_gb is not None:
        step = (
            f"{states} - {f(peak.gradients_gb)} GB gradients + {f(peak.update_gradients_gb)} GB of one tensor's "
            f"gradient + {live}"
        )
    later = peak.at_optimizer_step(breakdown)
    first, other = (step, start) if later else (start, step)
    when = "the optimizer step" if later else "the start of the backward"
    other_when = "the start of the backward" if later else "the optimizer step"
    return (
        f"{first}; {when} is the step's fullest moment, {f(peak.needed_gb(breakdown))} GB, where {other_when} holds "
        f"{other} = {f(peak.optimizer_step_gb(breakdown) if not later else peak.backward_start_gb(breakdown))} GB; "
        "the parts are not all live at once: the backward frees activations layer by layer as gradients fill, and "
        f"the logits are gone by the optimizer step; {_grads_words(w, peak)}; {_temporary_words(w, peak)}"
    )


def _grads_words(w: TrainingWorkload, peak: StepPeak) -> str:
    """Why the gradients are or are not held at the backward's start (step_peak.grads_persist), and at the update
    where it runs inside the backward."""
    if peak.update_gradients_gb is not None:
        return (
            f"the optimizer step runs inside the backward ({w.framework}: torchtune's optimizer_in_bwd, torchtitan's "
            "early_step_in_backward): each parameter is updated as its gradient is ready and the gradient freed, so "
            "none is held at the backward's start and one tensor's at most (the largest: the embedding or LM head) "
            "at the update"
        )
    if w.optimizer_in_backward:
        return (
            "the gradients count at both moments: an optimizer step in the backward frees them only in a step of one "
            "micro-batch per replica on a stack that frees them between steps, and this layout adds several into "
            "them (accumulation, pipeline micro-batches) or keeps them in a DDP reducer's buckets"
        )
    if not peak.grads_persist:
        return (
            f"{w.framework} frees every gradient between steps (zero_grad(set_to_none=True), PyTorch's default since "
            "2.0; FSDP2 frees each unsharded gradient once reduce-scattered) and this layout adds one micro-batch into "
            "them per step, so none is held at the backward's start"
        )
    if w.framework not in GRADS_FREED_STACKS:
        return (
            f"{w.framework} keeps its gradients between steps (Megatron-LM's contiguous grad buffer, DeepSpeed's "
            "contiguous gradient partitions; LLM Foundry and auto on the safe side), so they count at both moments"
        )
    return (
        "the gradients count at both moments: a DDP reducer's buckets hold them for the model's life, or the step "
        "adds several micro-batches into them (accumulation, pipeline micro-batches)"
    )


def _temporary_words(w: TrainingWorkload, peak: StepPeak) -> str:
    """What the optimizer's update allocates beside its states (step_peak.FOREACH_TEMPORARY_BYTES)."""
    if w.offload != "none":
        return "the update runs on the host's CPUs: no optimizer temporaries on the GPU"
    if peak.update_gradients_gb is not None:
        return "the update runs one tensor at a time inside the backward: no group-wide optimizer temporaries"
    if w.framework in FUSED_OPTIMIZER_STACKS:
        return f"{w.framework}'s fused AdamW kernel allocates no gradient-sized temporaries"
    return (
        f"{w.framework}'s foreach AdamW (PyTorch's default on CUDA) holds one copy of the second moment while it "
        "updates (torch/optim/adamw.py, _foreach_sqrt of exp_avg_sq), sharded as the optimizer states; none under "
        "bitsandbytes' 8-bit AdamW, whose blockwise update is one kernel"
    )
