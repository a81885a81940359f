"""Per-GPU training memory for a parallel layout: model states, activations, logits, reserve.

Formulas: shared/research/training_estimators.md §1.2-1.3 and §6.3 (ZeRO paper, TM101,
Korthikanti et al. 2022). Pure functions over spec dataclasses; sizes in bytes unless named _gb.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from app.scoring.efficiency import training as eff
from app.scoring.hf_config.param_count import shape_param_count
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.activation_offload import offloaded_activation_bytes
from app.scoring.training.layouts.eager_activations import (
    EagerLayer,
    eager_coefficients,
    fp32_residual,
    stack_layer,
)
from app.scoring.training.layouts.experts import all_expert_params, expert_data_parallel, expert_parallel, held_params
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.optimizer import DEFAULT_RECIPE, StateRecipe, gpu_state_bytes_per_param
from app.scoring.training.step.frameworks import RING_CONTEXT_PARALLEL

if TYPE_CHECKING:
    from app.scoring.training.layouts.step_peak import StepPeak

GB = 1e9
Recompute = str  # "none" | "selective" | "partial" | "full"

# Stacks that recompute whole layers for only some of a stage's layers, the others keeping every activation (what
# "none" keeps): Megatron-LM `--recompute-granularity full --recompute-method block --recompute-num-layers N` (the
# first N layers of each pipeline stage; Megatron-LM arguments.py, "recompute-num-layers"), NeMo
# `activations_checkpoint_granularity: full`, `activations_checkpoint_method: block`,
# `activations_checkpoint_num_layers: N` (NeMo Framework docs, "Activation Recomputation"), and torchtitan
# `activation_checkpoint.mode = "selective"` with an integer `selective_ac_option` k, which checkpoints every k-th
# block (torchtitan docs/config, `_apply_ac_to_transformer_block`): floor(stage layers / k) of them. "auto", the tuned
# open stack priced as one of these stacks would run the job (it gets their TP/PP and ring CP too), recomputes by
# Megatron's block method: without it, auto jumped to full recompute where the stacks it stands for did not.
PARTIAL_RECOMPUTE_STACKS = frozenset({"megatron", "megatron-lm", "nemo", "torchtitan", "auto"})
EVERY_KTH_LAYER_STACKS = frozenset({"torchtitan"})  # recomputed-layer counts of the form floor(layers / k), k ≥ 2


@dataclass(frozen=True, slots=True)
class Layout:
    """How one job is split: sharding stage over data parallel, TP, PP, recompute, micro-batch."""

    zero_stage: int = 3  # 0 = plain DDP, 1 = optimizer sharded, 2 = +grads, 3 = FSDP FULL_SHARD
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    recompute: Recompute = "none"
    micro_batch_seqs: int = 1
    pipeline_interleave: int | None = None  # virtual stages per GPU; None = stack default
    # GPUs that split each sequence (DeepSpeed-Ulysses / ring context parallel): activations and logits are divided
    # by it; ZeRO still shards over every data-parallel rank (the SP/CP ranks included), as DeepSpeed-Ulysses does and
    # as Megatron's distributed optimizer does over its data-parallel-with-CP group (the weights themselves are whole
    # on every CP rank: CP splits tokens, not layers).
    sequence_parallel: int = 1
    # Layers each pipeline stage recomputes under "partial" recompute (PARTIAL_RECOMPUTE_STACKS); None otherwise, and
    # then left out of the layout's JSON (plain.OMITTED_WHEN_NONE), so layouts without it read as they always did.
    recompute_layers: int | None = None
    # GPUs that split a MoE's routed experts (expert parallelism, layouts/experts.py): each holds num_experts / EP of
    # them whole and trades tokens with the others by all-to-all (communication.expert_all_to_all_seconds); EP ranks are
    # data-parallel ranks too (they run different tokens). None where a layout does not split experts, left out of
    # the JSON.
    expert_parallel: int | None = None
    # Hybrid sharding (HSDP: PyTorch FSDP HYBRID_SHARD, torchtitan data_parallel_shard_degree ×
    # data_parallel_replicate_degree): the data-parallel ranks that shard the model state under ZeRO-3, a group inside
    # one node (or 2, 4 ... nodes where one node's cannot hold the state), replicated across the groups
    # (layouts/hybrid_shard.py). None: ZeRO shards over every data-parallel rank; left out of the JSON.
    shard_group: int | None = None
    OMITTED_WHEN_NONE: ClassVar[tuple[str, ...]] = ("recompute_layers", "expert_parallel", "shard_group")

    def data_parallel(self, gpu_count: int) -> int:
        return max(1, gpu_count // (self.tensor_parallel * self.pipeline_parallel))

    def shard_ranks(self, gpu_count: int) -> int:
        """Data-parallel ranks the model state is sharded over: the HSDP shard group, else every one."""
        return self.shard_group or self.data_parallel(gpu_count)

    def replicas(self, gpu_count: int) -> int:
        """Data-parallel replicas that split the global batch (sequence-parallel ranks share their sequences)."""
        return max(1, self.data_parallel(gpu_count) // self.sequence_parallel)

    def shard_name(self) -> str:
        """The sharding as the layout column names it: DDP, ZeRO-1, ZeRO-2, or FSDP for ZeRO-3."""
        if self.shard_group:
            return "HSDP"
        return {0: "DDP", 1: "ZeRO-1", 2: "ZeRO-2", 3: "FSDP"}[self.zero_stage]

    def shard_words(self) -> str:
        """The sharding in a term's words, under the layout column's name: "FSDP (ZeRO-3)" where they differ."""
        if self.shard_group:
            return f"HSDP (FSDP HYBRID_SHARD, ZeRO-3 within groups of {self.shard_group})"
        return "FSDP (ZeRO-3)" if self.zero_stage == 3 else self.shard_name()

    def describe(self, gpu_count: int, framework: str = "auto", layers: int | None = None) -> str:
        """The split in words: "TP8 CP4 ZeRO-1 ×32 (DP8 × CP4), full recompute", "one GPU, no recompute" (the shard
        count is the GPUs over TP × PP, the sequence-split ranks among them); partial recompute as "recompute 18 of
        80 layers" (per stage under PP, of the model's `layers`). A sequence split reads CP (ring context parallelism)
        on the stacks that run it, SP (DeepSpeed-Ulysses) on the data-parallel-only ones."""
        dp = self.data_parallel(gpu_count)
        parts = []
        if self.tensor_parallel > 1:
            parts.append(f"TP{self.tensor_parallel}")
        if self.pipeline_parallel > 1:
            parts.append(f"PP{self.pipeline_parallel}")
        if self.sequence_parallel > 1:
            split = "CP" if framework in RING_CONTEXT_PARALLEL else "SP"
            parts.append(f"{split}{self.sequence_parallel}")
        if self.expert_parallel and self.expert_parallel > 1:
            parts.append(f"EP{self.expert_parallel}")
        if self.shard_group and dp > self.shard_group:  # "HSDP 8×4": shard group × replicas
            parts.append(f"HSDP {self.shard_group}×{dp // self.shard_group}")
        elif dp > 1:
            parts.append(f"{self.shard_name()} ×{dp}" + self._shard_split(dp, framework))
        elif not parts:  # one GPU: no data parallelism to name ("DDP ×1" read as a DDP run: found by qa39)
            parts.append("one GPU" if self.zero_stage == 0 else f"{self.shard_name()} on one GPU")
        recompute = {"none": "no recompute", "selective": "selective recompute", "full": "full recompute"}
        micro = f", micro-batch {self.micro_batch_seqs}" if self.micro_batch_seqs > 1 else ""
        said = recompute.get(self.recompute) or self.partial_words(layers)
        return " ".join(parts) + f", {said}{micro}"

    def _shard_split(self, dp: int, framework: str) -> str:
        """Where sequence-split ranks share the sharding, its group in degrees that multiply out: ZeRO-1 ×256 over
        CP2 reads "(DP128 × CP2)", so TP8 CP2 ZeRO-1 ×256 is 8 × 256 = 2,048 GPUs, not 8 × 2 × 256 (found by qa32)."""
        if self.sequence_parallel <= 1:
            return ""
        replicas = max(1, dp // self.sequence_parallel)
        split = "CP" if framework in RING_CONTEXT_PARALLEL else "SP"
        return f" (DP{replicas} × {split}{self.sequence_parallel})"

    def partial_words(self, layers: int | None) -> str:
        """Partial recompute in words: "recompute 18 of 80 layers", "recompute 5 of 20 layers per stage" under PP."""
        stage = "" if self.pipeline_parallel <= 1 else " per stage"
        if layers is None:
            return f"recompute {self.recompute_layers} layers{stage}"
        return f"recompute {self.recompute_layers} of {stage_layers(layers, self.pipeline_parallel)} layers{stage}"


def stage_layers(layers: int, pipeline_parallel: int) -> int:
    """Layers one pipeline stage runs (the first stages take the remainder where PP does not divide them)."""
    return -(-layers // max(1, pipeline_parallel))


def recomputed_layers(layout: Layout, layers: int) -> int:
    """Layers a GPU's pipeline holds recomputed: every layer under full recompute, the stage's count × PP under
    partial (the first stage holds PP micro-batches in flight, about the model's layers in all), none otherwise."""
    if layout.recompute == "full":
        return layers
    if layout.recompute != "partial" or not layout.recompute_layers:
        return 0
    return min(layers, layout.recompute_layers * layout.pipeline_parallel)


def recomputed_share(layout: Layout, layers: int) -> float:
    """Share of the layers whose forward runs again in the backward (partial recompute's cost scales with it)."""
    return recomputed_layers(layout, layers) / max(1, layers)


@cache
def partial_recompute_counts(framework: str, layers: int, pipeline_parallel: int) -> tuple[int, ...]:
    """Layers per stage a partial recompute may take, ascending, each below the stage's layers (all of them is full
    recompute): any count on Megatron-LM and NeMo, floor(stage layers / k) for k ≥ 2 on torchtitan; none on the other
    stacks (PARTIAL_RECOMPUTE_STACKS)."""
    if framework not in PARTIAL_RECOMPUTE_STACKS:
        return ()
    stage = stage_layers(layers, pipeline_parallel)
    if framework in EVERY_KTH_LAYER_STACKS:
        return tuple(sorted({stage // k for k in range(2, stage + 1)} - {0}))
    return tuple(range(1, stage))


def fewest_fitting(counts: tuple[int, ...], fits: Callable[[int], bool], guess: int = -1) -> int | None:
    """The smallest of ascending `counts` that fits, or None where the largest does not. Memory never rises as more
    layers are recomputed (each layer kept whole holds more than its input, and rounding a sum is monotone), so the
    answer is the one count that fits where the one below does not: a `guess` (an index into counts) checked that way
    is taken, else it is bisected. Both layout searches call it with the same test, so they agree."""
    if not counts or not fits(counts[-1]):
        return None
    if 0 <= guess < len(counts) and fits(counts[guess]) and (guess == 0 or not fits(counts[guess - 1])):
        return counts[guess]
    lo, hi = 0, len(counts) - 1  # counts[hi] fits
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(counts[mid]):
            hi = mid
        else:
            lo = mid + 1
    return counts[hi]


def model_state_bytes(
    model: ModelSpec,
    method: str,
    layout: Layout,
    gpu_count: int,
    lora_rank: int,
    recipe: StateRecipe = DEFAULT_RECIPE,
) -> float:
    """Weights, gradients and optimizer states held by one GPU (the trained weights' by the optimizer recipe)."""
    if layout.expert_parallel and expert_parallel(layout, model) > 1:  # no call for a layout without EP
        return expert_split_state_bytes(model, method, layout, gpu_count, lora_rank, recipe)
    n_total = model.params_b * 1e9
    split = layout.tensor_parallel * layout.pipeline_parallel
    dp = layout.shard_ranks(gpu_count)
    if method in ("pretrain", "full_ft"):
        return n_total / split * gpu_state_bytes_per_param(recipe, layout.zero_stage, dp)
    adapters = lora_adapter_params(model, lora_rank)
    base = frozen_base_bytes(model, n_total, method) / split
    if layout.zero_stage >= 3:  # FSDP shards the frozen base, NF4 too (bitsandbytes 0.43, Answer.AI FSDP+QLoRA)
        base = 0.0 if recipe.weights_leave(layout.zero_stage) else base / dp
    return base + adapters / split * gpu_state_bytes_per_param(recipe, layout.zero_stage, dp)


def expert_split_state_bytes(
    model: ModelSpec, method: str, layout: Layout, gpu_count: int, lora_rank: int, recipe: StateRecipe
) -> float:
    """model_state_bytes under expert parallelism: the routed experts' weights, gradients and optimizer states over
    PP × EP (whole experts: no TP inside one, expert-TP 1), sharded by ZeRO over the TP × DP / EP ranks holding the
    same experts (DP / EP at TP 1); the rest as without EP, over TP × PP and ZeRO over DP (Megatron-Core MoE docs:
    expert-data-parallel group, "MoE Parallel Folding"; DeepSpeed-MoE §4; torchtitan's FSDP of experts over
    dp_shard / EP). LoRA's adapters stay over TP × PP × DP, as without EP."""
    experts = all_expert_params(model)
    dense, split, pp = (
        model.params_b * 1e9 - experts,
        layout.tensor_parallel * layout.pipeline_parallel,
        layout.pipeline_parallel,
    )
    dp = layout.data_parallel(gpu_count)
    ep = expert_parallel(layout, model)
    edp = expert_data_parallel(dp, ep, layout.tensor_parallel)
    stage = layout.zero_stage
    if method in ("pretrain", "full_ft"):
        return dense / split * gpu_state_bytes_per_param(recipe, stage, dp) + experts / (
            pp * ep
        ) * gpu_state_bytes_per_param(recipe, stage, edp)
    per_param = frozen_base_bytes_per_param(method)
    base = frozen_base_bytes(model, dense, method) / split / (dp if stage >= 3 else 1)
    base += experts * per_param / (pp * ep) / (edp if stage >= 3 else 1)
    if recipe.weights_leave(stage):  # FSDP's CPU offload: the frozen base's shards in host memory too
        base = 0.0
    return base + lora_adapter_params(model, lora_rank) / split * gpu_state_bytes_per_param(recipe, stage, dp)


def frozen_base_bytes_per_param(method: str) -> float:
    """Bytes a frozen LoRA base weight takes: NF4 with double-quant constants for QLoRA, else bf16."""
    return eff.BYTES_QLORA_BASE if method == "qlora" else eff.BYTES_BF16


@cache
def unquantised_params(model: ModelSpec) -> float:
    """Weights QLoRA keeps in bf16: the token embedding and the LM head, which are no decoder layer's nn.Linear.
    bitsandbytes' Linear4bit replaces nn.Linear modules only (an nn.Embedding is none), transformers leaves the output
    embedding unconverted (integrations/bitsandbytes.py, get_keys_to_not_convert), and torchtune quantises its layers'
    projections (FrozenNF4Linear) but not tok_embeddings or output_proj ("quantize_base is not applied to final
    output_proj currently": models/llama3_1/_component_builders.py, torchtune 0.3.0). The head is the embedding's own
    matrix where the model ties them: its parameter count is an untied shape's (hf_config.shape_param_count) less
    about one vocab × hidden matrix (Llama 3.2 1B/3B, Gemma)."""
    matrix = float(model.vocab_size * model.hidden_size)
    untied_surplus = (shape_param_count(model) - model.params_b * 1e9) / matrix
    return matrix if abs(untied_surplus - 1.0) <= TIED_SURPLUS_TOLERANCE else 2 * matrix


# How far from one vocab × hidden matrix an untied shape's surplus over the model's count may fall and still read as
# tied embeddings: the catalog's tied models sit within 0.02 of one, the untied ones within 0.35 of none (a gated
# shape over a non-gated model, GPT-3, MPT, over-counts by many matrices and reads untied: the larger need).
TIED_SURPLUS_TOLERANCE = 0.25


def frozen_base_bytes(model: ModelSpec, params: float, method: str) -> float:
    """Bytes `params` frozen LoRA base weights take (a model's, or its dense part's under EP): bf16, or NF4 for QLoRA
    but for the embedding and LM head it keeps in bf16 (unquantised_params)."""
    per_param = frozen_base_bytes_per_param(method)
    if method != "qlora":
        return params * per_param
    kept = min(params, unquantised_params(model))
    return (params - kept) * per_param + kept * eff.BYTES_BF16


def _layer_params(model: ModelSpec, layout: Layout) -> float:
    """One layer's weights a data-parallel rank holds, TP-split by the caller (under EP, its own experts only, whole
    beside attention TP: experts.held_params)."""
    return held_params(model, layout) / max(1, model.layers)


def largest_linear_params(model: ModelSpec) -> float:
    """The largest weight matrix of a decoder layer: a (gated) MLP projection, one routed expert's, or an attention
    projection (the embedding and LM head are not quantised in QLoRA, so never dequantised)."""
    h = model.hidden_size
    ffn = max(model.intermediate_size if model.dense_ffn_layers else 0, model.moe_intermediate_size)
    return float(h * max(ffn, model.num_attention_heads * model.head_dim))


def live_param_bytes(model: ModelSpec, method: str, layout: Layout, gpu_count: int) -> float:
    """Unsharded layers held during ZeRO-3 gathers (bf16; NF4 for QLoRA), plus QLoRA's dequantised weight: bitsandbytes'
    Linear4bit dequantises its own NF4 weight to bf16 for the matmul and frees it after, one Linear at a time, in the
    forward and again in the backward (bitsandbytes `matmul_4bit` / `dequantize_4bit`), so the transient is the largest
    Linear's, not a whole layer's (Llama-3.1-70B: 0.47 GB, where a layer is 1.76 GB)."""
    gathered = 0.0
    if layout.zero_stage >= 3 and layout.data_parallel(gpu_count) > 1:
        stored = _layer_params(model, layout) * frozen_base_bytes_per_param(method) / layout.tensor_parallel
        gathered = eff.LIVE_PARAM_LAYERS * stored
    if method != "qlora":
        return gathered
    return gathered + largest_linear_params(model) * eff.BYTES_BF16 / layout.tensor_parallel


# Stacks whose "selective" recompute is op-level selective activation checkpointing (torchtitan's SAC: every second
# matmul's output dropped and run again), which stores less than the flash-attention count; step_time's FRAMEWORK_CLASS
# (not imported here: step_time imports this module) names the same stack.
OP_LEVEL_SAC_STACKS = frozenset({"torchtitan"})


def selective_share(e: eff.TrainingEfficiency, recompute: str, framework: str) -> float:
    """Share of the flash-attention activation count a layout stores. Megatron-class selective recompute drops the
    attention scores (the 5as/h term of Korthikanti et al. 2022), which flash attention never stores: the count
    already leaves them out (shared/research/training_estimators.md §1.3, "FlashAttention has the same effect"), so
    only torchtitan's op-level SAC keeps less (selective_activation_share)."""
    if recompute == "selective" and framework in OP_LEVEL_SAC_STACKS:
        return e.selective_activation_share
    return 1.0


def moe_ffn_width(model: ModelSpec) -> int:
    """FFN activations' width on a MoE layer: each token's routed and shared experts (top-k + shared × expert width)."""
    if model.is_moe and model.moe_intermediate_size:
        return model.moe_intermediate_size * max(1, model.experts_per_token + model.num_shared_experts)
    return model.intermediate_size


def layer_mean_ffn_width(model: ModelSpec, moe_width: float) -> float:
    """An FFN width averaged over the layers: `moe_width` on the MoE layers, intermediate_size on the dense ones
    (DeepSeek-V3: 58 and 3 of 61; a dense model: intermediate_size)."""
    if not model.is_moe:
        return float(model.intermediate_size)
    moe, dense = model.moe_layers, model.dense_ffn_layers
    return (moe * moe_width + dense * model.intermediate_size) / max(1, model.layers)


def layer_bytes_per_token(
    model: ModelSpec,
    layout: Layout,
    eager: EagerLayer | None = None,
    method: str = "full_ft",
    recipe: StateRecipe = DEFAULT_RECIPE,
    eager_share: float = 1.0,
) -> float:
    """Bytes one layer stores per token: Korthikanti's fused count (flash attention, + the gated MLP's extra tensor),
    or what an `eager` layer saves (eager_activations), whose residual stream's dtype the method and recipe set, on
    `eager_share` of the layers (TrainingEfficiency.eager_layer_share), the fused count on the rest."""
    ffn = layer_mean_ffn_width(model, moe_ffn_width(model))
    fused = model.hidden_size * 18 + 4 * ffn + 2 * ffn
    if eager is None or eager_share == 0:
        return fused
    fp32_stream = fp32_residual(method, recipe, layout.zero_stage)
    coefficients = eager_coefficients(eager, fp32_stream, method in ("pretrain", "full_ft"))
    return fused + eager_share * (coefficients.bytes_per_token(model, ffn) - fused)


def activation_bytes(
    model: ModelSpec,
    seq_len: int,
    layout: Layout,
    e: eff.TrainingEfficiency,
    framework: str = "auto",
    eager: EagerLayer | None = None,
    method: str = "full_ft",
    recipe: StateRecipe = DEFAULT_RECIPE,
) -> float:
    """Stored activations of one GPU (Korthikanti per-layer formulas with flash attention; an `eager` layer's own
    tensors where the stack runs uncompiled: eager_activations)."""
    s, b, h, t = seq_len / layout.sequence_parallel, layout.micro_batch_seqs, model.hidden_size, layout.tensor_parallel
    full_layer = s * b * layer_bytes_per_token(model, layout, eager, method, recipe, e.eager_layer_share) / t
    layer_input = s * b * h * eff.BYTES_BF16 / t
    if layout.recompute == "full":
        kept = layer_input * model.layers + full_layer
        stored, working = layer_input, full_layer
    elif layout.recompute == "partial":  # recomputed layers keep their input, the others all (as "none"), plus one
        recomputed = recomputed_layers(layout, model.layers)  # layer's worth while it is recomputed
        kept = layer_input * recomputed + full_layer * (model.layers - recomputed) + full_layer
        stored, working = full_layer, full_layer
    else:
        share = selective_share(e, layout.recompute, framework)
        # 1F1B: the first stage holds PP micro-batches of L/PP layers, about L layers in total.
        kept = full_layer * model.layers * share
        stored, working = full_layer * share, 0.0
    if not recipe.activations_offloaded:
        return kept
    return offloaded_activation_bytes(stored, working, model.layers, kept)


def offloaded_away_bytes(
    model: ModelSpec,
    seq_len: int,
    layout: Layout,
    e: eff.TrainingEfficiency,
    framework: str,
    method: str,
    recipe: StateRecipe,
) -> float:
    """Stored activations a micro-batch copies to host memory under activation offloading: what the GPU would keep
    less what it keeps (activation_offload.offloaded_activation_bytes); 0 without offloading."""
    if not recipe.activations_offloaded:
        return 0.0
    eager = stack_layer(framework, method)
    kept = activation_bytes(
        model, seq_len, layout, e, framework, eager, method, replace(recipe, activations_offloaded=False)
    )
    return kept - activation_bytes(model, seq_len, layout, e, framework, eager, method, recipe)


def logits_bytes_per_element(framework: str) -> float:
    """Peak bytes per logit: a fused or chunked loss (Megatron-class stacks, LLM Foundry, torchtune) or an unfused one
    (HF, torchtitan, and "auto": the side that never promises a fit an HF-style loop would miss)."""
    return eff.LOGITS_BYTES_FUSED if framework in eff.FUSED_LOSS_FRAMEWORKS else eff.LOGITS_BYTES_UNFUSED


def logits_bytes(model: ModelSpec, seq_len: int, layout: Layout, framework: str = "auto") -> float:
    split = layout.tensor_parallel * layout.sequence_parallel
    per_element = logits_bytes_per_element(framework)
    return seq_len * layout.micro_batch_seqs * model.vocab_size * per_element / split


# What a one-GPU job's process holds outside PyTorch's allocator (CUDA context, cuBLAS/cuDNN workspaces): 0.80 GB in
# every training step measured on an H200 (docs/measurements/h200-2026-12-04-train-step.json, outside_allocator_gb).
# A job of several GPUs also holds NCCL's communicator buffers: eff.RUNTIME_RESERVE_GB (1.5 GB) covers both.
SINGLE_GPU_RESERVE_GB = 0.8


def runtime_reserve_gb(gpu_count: int) -> float:
    """Card memory the runtime holds outside the job's tensors: no NCCL communicator on a single GPU."""
    return eff.RUNTIME_RESERVE_GB if gpu_count > 1 else SINGLE_GPU_RESERVE_GB


def usable_gb(gpu: GpuSpec, gpu_count: int) -> float:
    """HBM left for the job after allocator reserve and runtime context."""
    return gpu.memory_gb * eff.USABLE_HBM_SHARE - runtime_reserve_gb(gpu_count)


def memory_breakdown_gb(
    model: ModelSpec,
    method: str,
    seq_len: int,
    layout: Layout,
    gpu_count: int,
    lora_rank: int,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
    framework: str = "auto",
    recipe: StateRecipe = DEFAULT_RECIPE,
) -> dict[str, float]:
    """GB per GPU by component (the reserve is counted against capacity in usable_gb)."""
    eager = stack_layer(framework, method)
    return {
        "model_states": model_state_bytes(model, method, layout, gpu_count, lora_rank, recipe) / GB,
        "live_params": live_param_bytes(model, method, layout, gpu_count) / GB,
        "activations": activation_bytes(model, seq_len, layout, e, framework, eager, method, recipe) / GB,
        "logits": logits_bytes(model, seq_len, layout, framework) / GB,
        "runtime_reserve": runtime_reserve_gb(gpu_count),
    }


def memory_needed_gb(breakdown: dict[str, float], peak: StepPeak) -> float:
    """GB per GPU at the step's fullest moment (step_peak.StepPeak: the backward's start or the optimizer step), not
    the breakdown's sum: its gradients, activations and logits are not all live at once."""
    return peak.needed_gb(breakdown)
