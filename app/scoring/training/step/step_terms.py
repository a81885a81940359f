"""The training step's parts beyond the compute, each written with the arithmetic of step_time.step_parts in its own
figures, and the step time as their sum (tests/scoring/test_terms_add_up.py evaluates each first clause)."""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.explain import Term, significant
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_data_parallel, expert_parallel
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import Layout, recomputed_layers, recomputed_share
from app.scoring.training.step.communication import (
    all_to_all_bandwidth_gbs,
    all_to_all_passes,
    attention_seconds_per_flop,
    collective_bandwidth_gbs,
    context_parallel_seconds,
    dp_bandwidth_gbs,
    dp_comm_bytes,
    dp_inside_one_domain,
    dp_rails_per_node,
    sequence_parallel_seconds,
    tensor_parallel_bytes_per_token,
    tp_traffic_layers,
    ulysses_bytes_per_token,
    ulysses_passes,
)
from app.scoring.training.step.context_parallel import ring_passes, ring_step, ring_step_latency_s, ring_step_link
from app.scoring.training.step.expert_gemms import (
    expert_gemm,
    expert_gemm_efficiency,
    expert_gemm_passes,
    expert_tensor_parallel,
)
from app.scoring.training.step.flops import recompute_flops_per_param
from app.scoring.training.step.frameworks import MEGATRON_SP, RING_CONTEXT_PARALLEL, ULYSSES_SP, split_stack
from app.scoring.training.step.hybrid_terms import hybrid_dp_words
from app.scoring.training.step.hybrid_traffic import dp_traffic_seconds
from app.scoring.training.step.step_time import StepTime, busiest_replica_factor, local_micro_batches, pipeline_chunks
from app.scoring.workload import TrainingWorkload

# The TP term's title names what runs: all-reduces, or under Megatron sequence parallelism (within TP) an all-gather
# and a reduce-scatter (the same bytes: communication.tensor_parallel_bytes_per_token), never Ulysses' SP.
TP_TERM_NAME = f"exposed TP communication: all-reduce, or all-gather/reduce-scatter under {MEGATRON_SP}"
ULYSSES_TERM_NAME = f"{ULYSSES_SP} all-to-all"


def count_noun(count: int, noun: str, nouns: str = "") -> str:
    """`1 expert`, `8 experts`, `1 micro-batch`, `4 micro-batches`: the plural only where the count is not 1."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def bubble_term(
    gpu_count: int, model: ModelSpec, w: TrainingWorkload, layout: Layout, st: StepTime, e: eff.TrainingEfficiency
) -> Term:
    """The fixed per-step latency of the layers one GPU runs, and with PP the 1F1B bubble."""
    pp = layout.pipeline_parallel
    text = f"{f(model.layers / pp)} layers × {f(e.step_latency_s_per_layer)} s"
    layers = f"{model.layers} over PP{pp}" if pp > 1 else f"all {model.layers}"
    why = (
        f"; the fixed per-step latency of the layers one GPU runs ({layers}: "
        "kernel launches, optimizer, norm and clip syncs; step_latency_s_per_layer), which shows when each GPU has "
        "little work per step"
    )
    if pp > 1:
        micro_batches = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
        chunks = pipeline_chunks(e, layout, micro_batches)
        text += f" + {f(st.compute_s)} s compute × ({pp} - 1) / ({f(chunks)} chunks × {f(micro_batches)} micro-batches)"
        if micro_batches % pp:
            chunk_words = (
                f" (one chunk: {f(micro_batches)} micro-batches are no multiple of PP{pp}, which interleaving needs)"
            )
        else:
            chunk_words = "" if layout.pipeline_interleave else " (chunks: the stack's default interleave)"
        why += (
            "; then the 1F1B pipeline's fill and drain: (PP - 1) / (virtual chunks × micro-batches per replica) of "
            "the compute" + chunk_words
        )
    return Term(bubble_name(pp), st.bubble_s, "s/step", text + why)


def bubble_name(pipeline_parallel: int) -> str:
    """A layout without pipeline stages has no bubble, only the layers' fixed latency: a stack that cannot run PP
    (frameworks.NO_MODEL_PARALLEL) read 'pipeline bubble ... over PP1'."""
    return "pipeline bubble" if pipeline_parallel > 1 else "per-step latency"


def tp_comm_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
    peak: float = 0.0,
    precision_class: str = "16",
) -> Term:
    """Tensor parallelism's exposed all-reduces (a MoE layer under EP pays its attention's alone unless the model has
    a shared expert: communication.tp_traffic_layers), and the sequence split's traffic: DeepSpeed-Ulysses
    all-to-alls (sequence_parallel_seconds) or what ring context parallelism leaves exposed
    (context_parallel_seconds)."""
    tp, sp = layout.tensor_parallel, layout.sequence_parallel
    busiest = busiest_replica_factor(w.global_batch_seqs, layout.replicas(gpu_count))
    tokens = w.global_batch_seqs * w.seq_len / gpu_count * busiest  # per GPU, the busiest replica's (step_parts)
    stack = split_stack(w.framework, w.method)
    ulysses = sequence_parallel_seconds(e, gpu, model, layout, tokens, stack)
    ring = sp > 1 and stack in RING_CONTEXT_PARALLEL
    parts, notes = [], []
    if tp > 1:
        ep = expert_parallel(layout, model)
        per_token = tensor_parallel_bytes_per_token(model, tp, ep)
        bandwidth = collective_bandwidth_gbs(e, gpu, tp)
        parts.append(
            f"{f(e.tp_comm_exposed)} exposed × {f(tokens)} tokens per GPU × {tp} TP ranks × {f(per_token / 1e6)} MB "
            f"per token / ({f(bandwidth)} GB/s × 10^3)"
        )
        notes.append(
            f"per token 4 all-reduces (2 forward, 2 backward; under {MEGATRON_SP} an all-gather and a "
            f"reduce-scatter each, the same bytes) × 2 bytes × hidden {model.hidden_size:,} × ring 2 × "
            f"(TP{tp} - 1) / TP{tp} × {_tp_layers_words(model, tp, ep)}, over the TP group at {f(bandwidth)} GB/s per "
            f"GPU; the exposed share, {f(e.tp_comm_exposed)}, is what compute does not hide (tp_comm_exposed, fitted, "
            "efficiency/training.py)" + _tp_expert_words(model, tp, ep)
        )
    if ulysses:
        q_dim, kv_dim = model.num_attention_heads * model.head_dim, model.num_kv_heads * model.head_dim
        per_token = ulysses_bytes_per_token(model, layout)
        bandwidth = collective_bandwidth_gbs(e, gpu, sp)
        passes = ulysses_passes(layout, model.layers)
        rerun = {"full": ", the recomputed forward", "partial": ", the recomputed forward on the layers recomputed"}
        parts.append(f"{f(tokens)} tokens per GPU × {f(per_token / 1e6)} MB per token / ({f(bandwidth)} GB/s × 10^3)")
        notes.append(
            f"SP{sp}, {ULYSSES_SP} by DeepSpeed-Ulysses: all-to-alls of q, k, v and the attention output, per token "
            f"{f(passes)} passes (forward, backward{rerun.get(layout.recompute, '')}) × 2 bytes × "
            f"(2 × {q_dim:,} + 2 × {kv_dim:,}) × "
            f"(SP{sp} - 1) / SP{sp} × {model.layers} layers at {f(bandwidth)} GB/s per GPU, none hidden"
            + ("; a recomputed layer runs its all-to-alls again with its forward" if layout.recompute in rerun else "")
        )
    if ring:
        part, note = _ring_part(gpu, gpu_count, model, w, layout, st, e, peak, precision_class)
        parts.append(part)
        notes.append(note)
    if not parts:
        parts, notes = ["0"], ["one GPU holds each layer whole (no tensor or sequence split): nothing to all-reduce"]
    split = "CP ring" if ring else ULYSSES_TERM_NAME
    name = " + ".join(n for n, on in ((TP_TERM_NAME, tp > 1), (split, sp > 1)) if on)
    name = name if tp > 1 else name.replace(split, f"exposed {split}")
    return Term(
        name or "exposed layer-split traffic", st.tp_comm_s, "s/step", " + ".join(parts) + "; " + "; ".join(notes)
    )


def _tp_layers_words(model: ModelSpec, tp: int, ep: int) -> str:
    """The layers tp_comm_term's per-token bytes count (communication.tp_traffic_layers), in its figures."""
    if tp_traffic_layers(model, tp, ep) == model.layers:
        return f"{model.layers} layers"
    return f"({model.layers} layers - {model.moe_layers} MoE layers / 2)"


def _tp_expert_words(model: ModelSpec, tp: int, ep: int) -> str:
    """Why a MoE layer under EP beside TP pays half its TP traffic, or all of it with a shared expert; empty
    otherwise."""
    if not model.is_moe or tp <= 1 or ep <= 1:
        return ""
    if model.num_shared_experts:
        return (
            f"; under EP{ep} the routed experts run whole (expert-TP 1) and get their tokens by the all-to-all, but "
            "the shared expert is split by TP as a dense MLP is and gathers and reduce-scatters the hidden states "
            "as one does, so every MoE layer still pays its MLP's pair too"
        )
    return (
        f"; under EP{ep} the routed experts run whole (expert-TP 1) and get their tokens by the all-to-all (its own "
        "term), so a MoE layer's MLP all-gather and reduce-scatter are not run and it pays its attention's half "
        "(Megatron-Core MoE Parallel Folding)"
        + (_dense_layers_words(model.dense_ffn_layers) if model.dense_ffn_layers else "")
    )


def _dense_layers_words(dense: int) -> str:
    """A MoE model's dense layers under EP beside TP pay their whole TP traffic: `its 3 dense layers pay all of
    theirs`, `its dense layer pays all of its` (Kimi K2's one)."""
    return "; its dense layer pays all of its" if dense == 1 else f"; its {dense} dense layers pay all of theirs"


def _ring_part(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
    peak: float,
    precision_class: str,
) -> tuple[str, str]:
    """The ring context parallelism's exposed seconds as micro-batches x layers x ring steps x exposed per step, and
    why: each pass's send against its block's attention (context_parallel.py)."""
    tp, pp, cp = layout.tensor_parallel, layout.pipeline_parallel, layout.sequence_parallel
    micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
    per_flop = attention_seconds_per_flop(e, gpu, w.framework, precision_class, peak, st.mfu_eff)
    exposed = context_parallel_seconds(e, gpu, model, layout, w.seq_len, micro, per_flop, w.framework)
    bandwidth = collective_bandwidth_gbs(e, gpu, tp * cp)
    step = ring_step(model, w.seq_len, tp, cp, layout.micro_batch_seqs)
    send_ms, attention_ms = step.send_bytes / (bandwidth * 1e9) * 1e3, step.attention_flops * per_flop * 1e3
    latency_ms = ring_step_latency_s(gpu, tp * cp) * 1e3
    passes = " + ".join(
        f"max(0, {f(latency_ms)} ms latency + {f(sends)} × {f(send_ms)} ms send - {f(flops)} × {f(attention_ms)} ms "
        "attention)"
        for sends, flops in ring_passes(layout.recompute)
    )
    layers, steps = model.layers / pp, micro * model.layers / pp * (cp - 1)
    part = (
        f"{count_noun(micro, 'micro-batch', 'micro-batches')} × {f(layers)} layers × ({cp} - 1) ring steps × "
        f"{f(exposed / steps * 1e3)} ms / 10^3"
    )
    note = (
        f"CP{cp} ring: per layer and pass {'the one step' if cp == 2 else f'each of {cp - 1} steps'} sends a K/V "
        f"block ({f(w.seq_len / cp)} tokens, "
        f"{f(step.send_bytes / 1e6)} MB over the TP{tp} × CP{cp} group at {f(bandwidth)} GB/s per GPU) while its "
        f"block's causal attention runs ({f(step.attention_flops / 1e9)} GFLOP), each send first paying its P2P launch "
        f"and handshake ({significant(latency_ms * 1e3)} us over {ring_step_link(gpu, tp * cp)} links); exposed per "
        f"step: {passes} (forward; backward sends dK/dV too and computes twice the forward"
        + ("; the recomputed forward" if layout.recompute == "full" else "")
        + (
            f"; the forward run again on {layout.partial_words(model.layers).removeprefix('recompute ')}"
            if layout.recompute == "partial"
            else ""
        )
        + ")"
    )
    return part, note


def dp_comm_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
    note: str = "",
) -> Term:
    """Data-parallel traffic (gradient reduce-scatter and all-gather, ZeRO-3's parameter gathers) past what the
    compute hides: max(0, bytes / bandwidth - dp_overlap x compute), step_time.step_parts."""
    dp = layout.data_parallel(gpu_count)
    micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
    adapters = lora_adapter_params(model, w.lora_rank)
    moved = dp_comm_bytes(model, w.method, layout, dp, adapters, micro)
    bandwidth = dp_bandwidth_gbs(e, gpu, gpu_count, layout)
    raw_s = dp_traffic_seconds(e, gpu, gpu_count, model, w.method, layout, dp, adapters, micro)
    hidden_s = e.dp_overlap * st.compute_s
    traffic = f"{f(moved / 1e9)} GB per GPU / {f(bandwidth)} GB/s per GPU"
    why = (
        f"{layout.shard_words()} over {dp}: bf16 gradients reduce-scattered and all-gathered "
        f"(ring 2 × (DP{dp} - 1) / DP{dp})"
        + (
            f", and the parameters gathered forward and backward in each of {micro} micro-batches"
            if layout.zero_stage >= 3
            else ""
        )
        + _expert_data_parallel_words(model, layout, dp)
        + _rails_words(gpu, gpu_count, layout)
        + f"; compute hides up to {f(e.dp_overlap)} × its own time (dp_overlap, fitted){note}"
    )
    if layout.shard_group and dp > 1:
        traffic, hybrid_why = hybrid_dp_words(e, gpu, gpu_count, model, w.method, layout, adapters, micro)
        why = hybrid_why + f"; compute hides up to {f(e.dp_overlap)} × its own time (dp_overlap, fitted){note}"
    if dp <= 1:
        return Term(
            "exposed DP/FSDP traffic", st.dp_comm_s, "s/step", f"0; one data-parallel replica: no traffic{note}"
        )
    if e.dp_last_micro_share and micro > 1:
        return _by_micro_batch_term(gpu, gpu_count, model, w, layout, dp, micro, raw_s, st, e, f"{traffic}; {why}")
    if raw_s <= hidden_s:
        return Term(
            "exposed DP/FSDP traffic",
            st.dp_comm_s,
            "s/step",
            f"0; {traffic} = {f(raw_s)} s, under the {f(hidden_s)} s the compute hides; {why}",
        )
    return Term(
        "exposed DP/FSDP traffic", st.dp_comm_s, "s/step", f"{traffic} - {f(e.dp_overlap)} × {f(st.compute_s)} s; {why}"
    )


def _rails_words(gpu: GpuSpec, gpu_count: int, layout: Layout) -> str:
    """Why a ring across nodes runs faster than one NIC (communication.dp_bandwidth_gbs), or nothing."""
    rails = dp_rails_per_node(gpu, gpu_count, layout)
    if rails <= 1:
        return ""
    if dp_inside_one_domain(gpu, gpu_count, layout):
        return f"; the {rails} DP ranks inside one node, the pipeline stages across nodes: NVLink"
    return (
        f"; {rails} DP ranks a node: the rings cross nodes once each, over {rails} NICs a node, "
        "up to the NVLink share the in-node hops reach"
    )


def _by_micro_batch_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    dp: int,
    micro: int,
    raw_s: float,
    st: StepTime,
    e: eff.TrainingEfficiency,
    words: str,
) -> Term:
    """The DP term micro-batch by micro-batch (step_time.exposed_by_micro_batch): ZeRO-3's gathers in every
    micro-batch, dp_last_micro_share of the gradient reduction held to the last one's backward."""
    adapters = lora_adapter_params(model, w.lora_rank)
    more = dp_traffic_seconds(e, gpu, gpu_count, model, w.method, layout, dp, adapters, micro + 1)
    gathers = more - raw_s
    once = max(0.0, raw_s - micro * gathers)
    share = e.dp_last_micro_share
    hidden = e.dp_overlap * (st.compute_s + st.expert_gemm_s) / micro
    spread = gathers + once * (1.0 - share) / micro
    each = max(0.0, spread - hidden)
    last = max(0.0, spread + share * once - hidden)
    detail = (
        f"({micro} - 1) × {f(each)} s + {f(last)} s; {words}. Micro-batch by micro-batch: each of {micro} hides "
        f"{f(e.dp_overlap)} × its own compute ({f(hidden)} s) of the traffic it runs: "
        + (f"its parameter gathers ({f(gathers)} s) and " if gathers > 0 else "")
        + f"an even part of the gradient reduction's {f(once)} s ({f(spread)} s in all, {f(each)} s past it), and the "
        f"last also the {f(share)} of the reduction held to its backward pass (dp_last_micro_share): "
        f"{f(spread)} + {f(share)} × {f(once)} s, {f(last)} s past what it hides"
    )
    return Term("exposed DP/FSDP traffic", st.dp_comm_s, "s/step", detail)


def _expert_data_parallel_words(model: ModelSpec, layout: Layout, dp: int) -> str:
    """Under expert parallelism, where the experts' share of the traffic goes; empty without EP."""
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return ""
    tp = layout.tensor_parallel
    edp = expert_data_parallel(dp, ep, tp)
    ranks = "DP / EP" if tp <= 1 else f"TP{tp} × DP / EP"
    own = model.num_experts // ep
    experts = "routed expert goes" if own == 1 else f"{own} routed experts go"
    return (
        f"; under EP{ep} a GPU's own {experts} over the {count_noun(edp, 'rank')} holding the "
        f"same {'one' if own == 1 else 'ones'} ({ranks}), the other weights over all"
    )


def ep_comm_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    e: eff.TrainingEfficiency,
    capacity_factor: float = 1.0,
) -> Term | None:
    """Expert parallelism's all-to-all (communication.expert_all_to_all_seconds) in its figures; None without EP."""
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return None
    busiest = busiest_replica_factor(w.global_batch_seqs, layout.replicas(gpu_count))
    tokens = w.global_batch_seqs * w.seq_len / gpu_count * busiest
    passes = all_to_all_passes(layout, model.layers)
    bandwidth = all_to_all_bandwidth_gbs(e, gpu, ep)
    padded = f" × {f(capacity_factor)} capacity" if capacity_factor > 1 else ""
    recomputed = recomputed_layers(layout, model.layers)
    partial = 0 < recomputed < model.layers
    rounds = f"(4 + 2 × {recomputed} / {model.layers} layers recomputed)" if partial else f(passes)
    whose = "layers' " if partial else ""
    text = (
        f"{f(e.ep_a2a_exposed)} exposed × {f(tokens)} tokens per GPU × {model.moe_layers} MoE layers × {rounds} "
        f"all-to-alls × {count_noun(model.experts_per_token, 'expert')} × {model.hidden_size:,} hidden × 2 bytes × "
        f"({ep} - 1) / {ep}"
        f"{padded} / ({f(bandwidth)} GB/s × 10^9)"
    )
    why = (
        f"; EP{ep}: each GPU holds {model.num_experts // ep if model.num_experts >= ep else 1} of the "
        f"{model.num_experts} routed experts and sends each token's hidden state to its top-{model.experts_per_token} "
        + ("expert's GPU" if model.experts_per_token == 1 else "experts' GPUs")
        + " (dispatch) and takes the results back (combine), forward and again for the gradients backward"
        + (f", and once more for the recomputed {whose}forward" if passes > 4 else "")
        + (
            f"; beside TP{layout.tensor_parallel} attention the experts run whole (expert-TP 1), the EP ranks folded "
            f"over the TP × DP ranks, each GPU routing its share of the tokens under {MEGATRON_SP}"
            if layout.tensor_parallel > 1
            else ""
        )
        + f", over the EP group's {_ep_link(gpu, ep)} at {f(bandwidth)} GB/s per GPU"
        + ("; a token-dropping path sends its expert buffers padded to capacity" if capacity_factor > 1 else "")
        + "; the expert GEMM waits for its tokens, so none of it hides behind compute (ep_a2a_exposed)"
    )
    return Term("exposed expert all-to-all", st.ep_comm_s, "s/step", text + why)


def _ep_link(gpu: GpuSpec, ep: int) -> str:
    """The link an EP group's all-to-all crosses (step_time's collective bandwidth picks the same)."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        return "scale-up link" if ep <= gpu.scaleup_domain_gpus else "scale-out fabric (EP beyond the scale-up domain)"
    return "PCIe"


def layer_split_label(layout: Layout, framework: str) -> str:
    """The splits whose traffic tp_comm_term prices, as the step-time sum names them: TP, and the sequence split as CP
    (ring context parallelism) or Ulysses SP (DeepSpeed-Ulysses) by the stack."""
    split = "CP" if framework in RING_CONTEXT_PARALLEL else "Ulysses SP"
    names = [name for name, on in (("TP", layout.tensor_parallel > 1), (split, layout.sequence_parallel > 1)) if on]
    return "exposed " + (" and ".join(names) or "TP")


def step_time_term(st: StepTime, layout: Layout, framework: str) -> Term:
    """The step as its parts in sequence (StepTime.total_s)."""
    parts = [
        (st.compute_s, "compute"),
        (st.bubble_s, bubble_name(layout.pipeline_parallel)),
        (st.tp_comm_s, layer_split_label(layout, framework)),
        (st.dp_comm_s, "exposed DP/FSDP"),
        (st.offload_s, "CPU offload"),
        (st.ep_comm_s, "exposed expert all-to-all"),
        (st.expert_gemm_s, EXPERT_GEMM_TERM_NAME),
    ]
    text = " + ".join(f"{f(value)} s {label}" for value, label in parts if value or label == "compute")
    return Term("step time", st.total_s, "s/step", text + "; the parts above, one after another")


EXPERT_GEMM_TERM_NAME = "memory-bound expert GEMMs"


def expert_gemm_term(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    st: StepTime,
    peak: float,
    precision_class: str,
    e: eff.TrainingEfficiency,
    capacity_factor: float = 1.0,
) -> Term | None:
    """What the routed experts' GEMMs add where they are memory-bound (expert_gemms.expert_gemm_floor_seconds), in
    its figures; None for a dense model."""
    if not model.is_moe or model.num_experts <= 0 or model.moe_layers <= 0:
        return None
    gemm = expert_gemm(model, layout, w.seq_len, precision_class, capacity_factor)
    bandwidth = gpu.memory_bandwidth_tbs
    memory_us = gemm.bytes / (bandwidth * 1e12) * 1e6 if bandwidth > 0 else 0.0
    efficiency, saturation = expert_gemm_efficiency(e, model, gemm, gpu, st.mfu_eff)
    compute_us = gemm.flops / (peak * 1e12 * efficiency) * 1e6 if peak > 0 and efficiency > 0 else 0.0
    ridge = peak * efficiency / bandwidth if bandwidth > 0 else 0.0
    ep, etp = expert_parallel(layout, model), expert_tensor_parallel(model, layout)
    split = f" / SP{layout.sequence_parallel}" if layout.sequence_parallel > 1 else ""
    split += f" / TP{layout.tensor_parallel} × EP{ep}" if ep > 1 else ""
    slice_words = f"its 1/{etp} slice, {f(gemm.width)} wide" if etp > 1 else f"the whole expert, {f(gemm.width)} wide"
    held = max(1, model.num_experts // ep)
    shape = (
        f"; each expert is fed {f(gemm.tokens)} tokens a micro-batch (micro-batch {layout.micro_batch_seqs} × "
        f"{w.seq_len:,} tokens{split} × top-{model.experts_per_token} / {model.num_experts} experts"
        + (f" × {f(capacity_factor)} capacity" if capacity_factor > 1 else "")
        + f") against {slice_words} × hidden {model.hidden_size:,}: {f(gemm.flops / 1e9)} GFLOP over "
        f"{f(gemm.bytes / 1e6)} MB of weights and activations a pass, {f(gemm.flops_per_byte)} FLOP per byte against "
        f"the ridge at the compute phase's matmul efficiency, {f(peak)} TFLOPS × {f(efficiency)} / {f(bandwidth)} "
        f"TB/s = {f(ridge)}"
    )
    if st.expert_gemm_s <= 0:
        return Term(
            EXPERT_GEMM_TERM_NAME,
            st.expert_gemm_s,
            "s/step",
            "0" + shape + ": compute-bound, the compute phase times them",
        )
    micro = local_micro_batches(w.global_batch_seqs, layout.replicas(gpu_count), layout.micro_batch_seqs)
    extra = recompute_flops_per_param(e, model, layout.recompute, w.framework, recomputed_share(layout, model.layers))
    passes = expert_gemm_passes(extra)
    count = (
        f"{count_noun(micro, 'micro-batch', 'micro-batches')} × {f(model.moe_layers / layout.pipeline_parallel)} MoE "
        f"layers × {count_noun(held, 'expert')} × {f(passes)} passes × "
    )
    if saturation < 1:
        return _saturated_expert_gemm_term(st, count, shape, compute_us, memory_us, saturation)
    text = count + f"({f(memory_us, 6)} us - {f(compute_us, 6)} us) / 10^6"
    why = (
        shape + ": memory-bound, so each pass streams at HBM speed, "
        f"{f(gemm.bytes / 1e6)} MB / {f(bandwidth)} TB/s, where the compute phase timed its FLOPs at "
        f"{f(gemm.flops / 1e9)} GFLOP / ({f(peak)} TFLOPS × {f(efficiency)}); passes: forward, input and weight "
        "gradients" + (", and the recomputed forward" if extra > 0 else "") + f", over the {model.moe_layers} MoE "
        f"layers / PP{layout.pipeline_parallel} and the {count_noun(held, 'routed expert')} a GPU holds"
        + (f" (of {model.num_experts}, EP{ep})" if ep > 1 else "")
        + "; the roofline (max of compute and memory time per GEMM) at the datasheet's bandwidth, a floor: PyTorch's "
        "bf16 grouped GEMM took 1.5-2.5 × it on an H200 (docs/measurements/h200-2026-12-04-moe.json)"
    )
    return Term(EXPERT_GEMM_TERM_NAME, st.expert_gemm_s, "s/step", text + why)


def _saturated_expert_gemm_term(
    st: StepTime, count: str, shape: str, compute_us: float, memory_us: float, saturation: float
) -> Term:
    """The expert GEMM term where the shape's saturation is on (efficiency.training.expert_half_hidden_share > 0):
    each pass at its FLOPs' time over the saturation or, where slower, its bytes at HBM speed, less the compute
    phase's time for its FLOPs."""
    saturated = compute_us / saturation >= memory_us
    slower = f"{f(compute_us, 6)} us / {f(saturation)}" if saturated else f"{f(memory_us, 6)} us"
    text = count + f"({slower} - {f(compute_us, 6)} us) / 10^6"
    why = (
        shape + f": the shape's saturation {f(saturation)} (the dense width factor's form at the GEMM's FLOPs per "
        "byte, relative to its value at the hidden size: expert_gemms.expert_gemm_saturation) "
        + ("sets each pass's time, slower than its bytes at HBM speed" if saturated else "")
        + ("; its bytes at HBM speed set each pass's time, slower still" if not saturated else "")
    )
    return Term(EXPERT_GEMM_TERM_NAME, st.expert_gemm_s, "s/step", text + why)
