"""The decode step's explanation lines: each term's first clause (before any ';') is its own arithmetic, written with
the figures it shows, so a reader (and tests/scoring/test_term_arithmetic.py) reproduces its value from them."""

from __future__ import annotations

from collections.abc import Sequence

from app.scoring.efficiency.constant_evidence import INFERENCE_EVIDENCE
from app.scoring.efficiency.inference import LINK_EFFICIENCY, InferenceEfficiency
from app.scoring.explain import Term, batch_words, fixed, significant
from app.scoring.explain import figure as f
from app.scoring.hardware.dtypes import peak_unit
from app.scoring.inference.explanation.software_era import old_builds_words
from app.scoring.inference.step.communication import allreduce_call_ms, gathered_tokens, stage_send_ms
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.efficiency_factors import (
    attention_mfu,
    factor_text,
    mbu,
    mbu_cap_text,
    mbu_constants,
    mbu_factors,
    mfu,
    mfu_constants,
    mfu_factors,
)
from app.scoring.inference.step.host_overheads import moe_prefill_ms, per_sequence_overhead_ms
from app.scoring.inference.step.steps import StepDetail, StepParts, roofline_ms

SOURCE = "efficiency/inference.py (fitted by calibrate_inference on the public validation cases)"
# What stands behind the ROCm factors, said wherever they apply.
ROCM_EVIDENCE = (
    "ROCm factors fitted on the two AMD inference publications, argonne's 2024 vLLM 0.6.1 ROCm runs and AMD's tuned "
    "MLPerf v4.1 submission, which disagree 2-5× at large batches: a compromise with a wide band (docs/ACCURACY.md)"
)


def evidence_words(names: Sequence[str]) -> str:
    """'decode_mbu on 2,240 rows of 14 publications, ...': what each named fitted constant rests on (constant_evidence,
    written by `make accuracy`: the figures /methodology's Evidence column shows), a thin one (two publications or
    fewer) said so; '' for names it does not hold."""
    return ", ".join(
        f"{name} on {rows:,} rows of {publications} publication{'s' if publications != 1 else ''}"
        + (" (thin)" if thin else "")
        for name in dict.fromkeys(names)
        if name in INFERENCE_EVIDENCE
        for rows, publications, thin in [INFERENCE_EVIDENCE[name]]
    )


def fitted_source(names: Sequence[str]) -> str:
    """SOURCE with what each named constant rests on: '... on the public validation cases: decode_mbu on 2,240 rows
    of 14 publications, ...)'."""
    words = evidence_words(names)
    return f"{SOURCE[:-1]}: {words})" if words else SOURCE


def _detail(step: StepParts) -> StepDetail:
    detail = step.breakdown
    if detail is None:  # every StepParts from forward_parts carries one
        raise ValueError("a decode step without its breakdown")
    return detail


def _roofline_text(pair: tuple[float, float], p: float) -> str:
    memory, compute = pair
    return f"({f(memory)}^{f(p)} + {f(compute)}^{f(p)})^(1/{f(p)})"


def _weight_term(ctx: InferenceContext, step: StepParts) -> Term:
    d = _detail(step)
    dense = f"{f(ctx.dense_weight_bytes_per_gpu / 1e9)} GB"
    if not ctx.moe:
        whole = "; attention weights whole on every GPU (data-parallel attention)" if ctx.attention_dp > 1 else ""
        return Term(
            "decode weight read",
            step.weight_bytes / 1e9,
            "GB/GPU/step",
            f"{dense} per GPU at TP{ctx.tensor_parallel}{whole}",
        )
    busiest = f", the busiest of EP{ctx.expert_parallel}'s GPUs" if ctx.expert_parallel > 1 else ""
    detail = (
        f"{dense} dense + {f(ctx.expert_weight_bytes_per_gpu / 1e9)} GB routed experts × {f(d.expert_coverage)} "
        f"touched; {fixed(d.tokens, 0)} tokens per step touch that share of this GPU's experts: 1 - (1 - k/E)^tokens, "
        f"k/E = {significant(ctx.experts_active_share, 3)}{busiest}"
    )
    return Term("decode weight read", step.weight_bytes / 1e9, "GB/GPU/step", detail)


def _kv_term(ctx: InferenceContext, step: StepParts, beam_width: int) -> Term:
    d = _detail(step)
    per_token = ctx.kv_bytes_per_token_per_gpu
    beams = f"; {beam_width} beams a request, each with its own KV" if beam_width > 1 else ""
    detail = (
        f"{f(d.attending_seqs)} sequences × {f(per_token * d.attended_tokens / 1e9)} GB each{beams}; "
        f"{fixed(d.attended_tokens, 0)} tokens at mean context × {f(per_token / 1e3)} kB per token per GPU"
    )
    return Term("decode KV read", step.kv_bytes / 1e9, "GB/GPU/step", detail)


def memory_constants(ctx: InferenceContext, experts: bool, kv: bool) -> list[str]:
    """The fitted constants a memory time reads: the MBU's factors, the routed experts' and the KV cache's shares."""
    return mbu_constants(ctx) + (["moe_mbu_factor"] if experts else []) + (["kv_mbu_factor"] if kv else [])


def memory_term(ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts, name: str) -> Term:
    """A pass's memory time: its weights (dense, touched experts) and KV cache at their streaming efficiencies."""
    d, bw = _detail(step), f(ctx.bandwidth_tbs)
    dense_mbu, kv_bytes = f(mbu(ctx, eff)), step.kv_bytes
    whole = ctx.whole_weight_bytes_per_gpu
    parts = [f"{f((ctx.dense_weight_bytes_per_gpu - whole) / 1e9)} GB weights / ({bw} TB/s × MBU {dense_mbu})"]
    if whole:
        whole_mbu = f(mbu(ctx, eff, tp_penalty=False))
        parts.append(f"{f(whole / 1e9)} GB attention weights whole on this GPU / ({bw} TB/s × MBU {whole_mbu})")
    if d.experts[0]:
        expert_bytes = step.weight_bytes - ctx.dense_weight_bytes_per_gpu
        expert_mbu = f(mbu(ctx, eff, tp_penalty=False))
        parts.append(
            f"{f(expert_bytes / 1e9)} GB experts / ({bw} TB/s × MBU {expert_mbu} × {f(eff.moe_mbu_factor)} MoE)"
        )
    if kv_bytes:
        kv_mbu = f(mbu(ctx, eff, tp_penalty=False)) if ctx.attention_dp > 1 else dense_mbu
        parts.append(f"{f(kv_bytes / 1e9)} GB KV / ({bw} TB/s × MBU {kv_mbu} × {f(eff.kv_mbu_factor)} KV)")
    names = memory_constants(ctx, bool(d.experts[0]), bool(kv_bytes))
    old = old_builds_words(names)
    detail = (
        " + ".join(parts)
        + f"; MBU = {factor_text(mbu_factors(ctx, eff))}{mbu_cap_text(ctx, eff)}"
        + ("; the routed experts' MBU has no TP factor (one grouped-GEMM launch streams them)" if d.experts[0] else "")
        + (
            "; the attention weights' and KV cache's MBU has no TP factor either: data-parallel attention keeps the "
            "weights whole, the matrices TP1 streams, and each GPU reads its own requests' whole KV, not 1/TP shards"
            if whole
            else ""
        )
        + f"; {fitted_source(names)}"
        + (f"; {ROCM_EVIDENCE}" if ctx.amd else "")
        + (f"; {old}" if old else "")
    )
    return Term(name, step.memory_ms, "ms", detail)


def compute_term(
    ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts, name: str, work: str | None = None
) -> Term:
    """A pass's compute time: its matmul and attention FLOPs at the matmul efficiency. `work` says what the pass
    carries (a prefill pass: its prompt tokens); by default a decode step's batch and the prompt tokens it carries."""
    d = _detail(step)
    if work is None:
        work = (
            f"the batch's decode plus {fixed(step.prefill_tokens, 0)} prompt tokens prefilled per step"
            if step.prefill_tokens >= 0.5
            else ""
        )
    detail = (
        _compute_arithmetic(ctx, eff, d)
        + (f"; {work}" if work else "")
        + f"; MFU = {factor_text(mfu_factors(ctx, eff))}"
    )
    if ctx.attention_peak_tflops:
        detail += f"; attention's MFU = {factor_text(mfu_factors(ctx, eff, attention=True))}"
    names = mfu_constants(ctx)
    old = old_builds_words(names)
    return Term(name, step.compute_ms, "ms", f"{detail}; {fitted_source(names)}" + (f"; {old}" if old else ""))


def _compute_arithmetic(ctx: InferenceContext, eff: InferenceEfficiency, d: StepDetail) -> str:
    """The compute time's figures: matmuls and attention on one peak, or (INT8 W8A8) each on its own."""
    gemm, attention = f"{f(d.gemm_flops / 1e9)} GFLOP matmuls", f"{f(d.attention_flops / 1e9)} GFLOP attention"
    matmul_peak = f"{f(ctx.peak_tflops)} {peak_unit(ctx.compute_dtype)} {ctx.compute_dtype} × MFU {f(mfu(ctx, eff))}"
    if not ctx.attention_peak_tflops:
        return f"({gemm} + {attention}) / ({matmul_peak})"
    attention_peak = f"{f(ctx.attention_peak_tflops)} TFLOPS bf16 × MFU {f(attention_mfu(ctx, eff))}"
    return f"{gemm} / ({matmul_peak}) + {attention} / ({attention_peak})"


def pass_parts(step: StepParts, eff: InferenceEfficiency) -> list[tuple[float, str]]:
    """One stage's pass as (ms, label) parts that add up to its time: each kernel class at its soft roofline, the
    communication, the host overheads (tpot_text's parts, before the stages and the tokens per step)."""
    d, p = _detail(step), eff.overlap_power
    parts = [
        (roofline_ms(*d.dense, p), "dense GEMMs"),
        (step.expert_busy_ms, "routed-expert GEMMs"),
        (roofline_ms(*d.attention, p), "attention"),
        (step.comm_ms, "all-reduce"),
        (d.host_ms, "overheads"),
        (d.moe_host_ms, "MoE prefill host"),
        (step.draft_ms, "draft passes"),
    ]
    return [(value, label) for value, label in parts if value or label == "dense GEMMs"]


def prefill_pass_term(ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts, name: str) -> Term:
    """A prefill pass's time, one pipeline stage's, as the sum of its parts; each kernel class's roofline shown."""
    d, p = _detail(step), eff.overlap_power
    rooflines = [f"dense GEMMs {_roofline_text(d.dense, p)}"]
    if step.expert_busy_ms:
        rooflines.append(f"routed-expert GEMMs {_roofline_text(d.experts, p)}")
    rooflines.append(f"attention {_roofline_text(d.attention, p)}")
    stage = (
        f"; one of {ctx.pipeline_parallel} stages: its {f(ctx.layers_per_stage)} layers over the whole prompt"
        if ctx.pipeline_parallel > 1
        else ""
    )
    detail = (
        " + ".join(f"{f(value)} ms {label}" for value, label in pass_parts(step, eff))
        + "; each kernel class the soft roofline of its memory and compute times (ms), overlap power "
        f"{significant(p)}: " + ", ".join(rooflines) + stage
    )
    return Term(name, step.total_ms / step.pipeline_stages, "ms", detail)


def _kernel_terms(ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts) -> list[Term]:
    """Each kernel class's time: the soft roofline of its memory and compute times (steps.roofline_ms)."""
    d, p = _detail(step), eff.overlap_power
    how = (
        f"; soft roofline of its memory and compute times, overlap power {significant(p)} "
        f"({fitted_source(['overlap_power'])})"
    )
    terms = [
        Term(
            "decode dense GEMMs",
            roofline_ms(*d.dense, p),
            "ms",
            _roofline_text(d.dense, p) + how + f"; {f(ctx.dense_weight_bytes_per_gpu / 1e9)} GB read, "
            f"{f((d.gemm_flops - d.expert_flops) / 1e9)} GFLOP",
        )
    ]
    if ctx.moe:
        terms.append(
            Term(
                "decode routed-expert GEMMs",
                step.expert_busy_ms,
                "ms",
                _roofline_text(d.experts, p)
                + f"; each expert multiplies only k/E = {significant(ctx.experts_active_share, 3)} "
                "of the step's tokens, so its grouped GEMM stays memory-bound at batches where the dense GEMMs are "
                "compute-bound: timed at its own roofline, in sequence with them",
            )
        )
    terms.append(
        Term(
            "decode attention",
            roofline_ms(*d.attention, p),
            "ms",
            _roofline_text(d.attention, p) + f"; KV reads and QK^T/AV FLOPs{how}",
        )
    )
    return terms


def _allreduce_term(ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts) -> Term:
    d, tp = _detail(step), ctx.tensor_parallel
    parts, notes = [], []
    seqs = d.host_sequences - (1.0 if step.prefill_tokens else 0.0)  # a pass without prompts: its decoding sequences
    gathered = gathered_tokens(ctx, d.attending_seqs, d.tokens / seqs if seqs > 0 else 1.0, step.prefill_tokens)
    if tp > 1:
        where = f"{ctx.link_name} {significant(ctx.link_gbs)} GB/s one way × {significant(LINK_EFFICIENCY)}"
        if ctx.tp_nodes > 1:
            where += f", then across {ctx.tp_nodes} nodes at {significant(ctx.tp_fabric_gbs)} GB/s per GPU"
        alphas = ["allreduce_alpha_nvlink_ms" if ctx.nvlink else "allreduce_alpha_pcie_ms"]
        alphas += ["allreduce_alpha_fabric_ms"] if ctx.tp_nodes > 1 else []
        if gathered is not None:
            latency, transfer = allreduce_call_ms(ctx, eff, gathered)
            parts.append(f"{f(ctx.layers_per_stage)} layers × (2 × {f(latency)} ms + {f(transfer)} ms)")
            notes.append(
                f"data-parallel attention (SGLang): per layer an all-gather of {fixed(gathered, 0)} tokens' hidden "
                "states (each GPU's padded to the busiest one's) before the MLP and a reduce-scatter after, none for "
                f"the attention: two calls' latency, each moving (TP{tp} - 1) / TP{tp} of {fixed(gathered, 0)} tokens "
                f"× {ctx.hidden_size:,} hidden × 2 bytes (one all-reduce's bytes together) over {where}; "
                f"the latency: {fitted_source(alphas)}"
            )
        else:
            latency, transfer = allreduce_call_ms(ctx, eff, d.tokens)
            parts.append(f"2 per layer × {f(ctx.layers_per_stage)} layers × ({f(latency)} ms + {f(transfer)} ms)")
            notes.append(
                f"each call: latency, then 2 × (TP{tp} - 1) / TP{tp} of {fixed(d.tokens, 0)} tokens × "
                f"{ctx.hidden_size:,} hidden × 2 bytes over {where}; the latency: {fitted_source(alphas)}"
            )
    else:
        parts.append("0")
        notes.append("TP1: no all-reduce")
    send = stage_send_ms(ctx, d.tokens)
    if send:
        parts.append(f"{f(send)} ms pipeline send")
        notes.append(f"activations to the next stage's node at {significant(ctx.fabric_gbs)} GB/s per GPU")
    return Term("TP all-reduce", step.comm_ms, "ms", " + ".join(parts) + "; " + "; ".join(notes))


def _host_terms(ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts) -> list[Term]:
    d = _detail(step)
    running = d.host_sequences - (1.0 if step.prefill_tokens else 0.0)
    who = f"{f(running)} running" + (" + the prompts prefilled, as one" if step.prefill_tokens else "")
    detail = (
        f"{f(eff.step_overhead_ms)} ms per step + {f(ctx.layers_per_stage)} layers × {f(eff.layer_overhead_ms)} ms + "
        f"{f(d.host_sequences)} sequences × {f(per_sequence_overhead_ms(ctx, eff))} ms; sequences: {who}"
        + ("; vLLM's Python scheduler, sampler and detokeniser included" if ctx.engine == "vllm" else "")
        + f"; {fitted_source(['step_overhead_ms', 'layer_overhead_ms', 'seq_overhead_ms'])}"
    )
    terms = [Term("launch and host overheads", d.host_ms, "ms", detail)]
    if d.moe_host_ms > 0:
        pass_ms = moe_prefill_ms(ctx, eff)
        terms.append(
            Term(
                "MoE prefill host time per step",
                d.moe_host_ms,
                "ms",
                f"{f(d.moe_host_ms / pass_ms)} prefill passes per step × {f(pass_ms)} ms; the steps carry the "
                "arriving prompts (batch / output length of them per step, at most one pass), and each eager "
                f"prefill pass pays {moe_layers_text(ctx)} × {f(eff.moe_prefill_layer_ms)} ms "
                f"of host time (no CUDA graph){dense_layers_note(ctx)}; {fitted_source(['moe_prefill_layer_ms'])}",
            )
        )
    return terms


def moe_layers_text(ctx: InferenceContext) -> str:
    """'58 MoE layers' (of one stage under pipeline parallelism): the layers a per-MoE-layer cost is paid on."""
    return f"{f(ctx.moe_layers_per_stage)} MoE layers"


def dense_layers_note(ctx: InferenceContext) -> str:
    """'; the other 3 of the 61 layers are dense (no experts)' for a MoE model with dense layers, else ''."""
    dense = ctx.layers_per_stage - ctx.moe_layers_per_stage
    if not ctx.moe or dense <= 0:
        return ""
    where = "of the stage's" if ctx.pipeline_parallel > 1 else "of the"
    return f"; the other {f(dense)} {where} {f(ctx.layers_per_stage)} layers are dense (no experts)"


def tpot_text(step: StepParts, eff: InferenceEfficiency) -> str:
    """TPOT as the sum of the step's terms, times the pipeline stages, over the tokens a step yields."""
    text = "(" + " + ".join(f"{f(v)} ms {label}" for v, label in pass_parts(step, eff)) + ")"
    if step.pipeline_stages > 1:
        text += f" × {step.pipeline_stages} stages"
    if step.tokens_per_step != 1:
        text += f" / {f(step.tokens_per_step)} tokens per step"
    return text + "; mean: one decode step incl. piggybacked prefill work"


def decode_step_terms(
    ctx: InferenceContext, eff: InferenceEfficiency, step: StepParts, batch: float, beam_width: int = 1
) -> list[Term]:
    """The decode step's terms, each reproducible from the figures it shows."""
    return [
        _weight_term(ctx, step),
        _kv_term(ctx, step, beam_width),
        memory_term(ctx, eff, step, "decode memory time"),
        compute_term(ctx, eff, step, "decode compute time"),
        *_kernel_terms(ctx, eff, step),
        _allreduce_term(ctx, eff, step),
        *_host_terms(ctx, eff, step),
        Term(
            "decode memory / compute",
            step.memory_ms / max(step.compute_ms, 1e-9),
            "x",
            f"{f(step.memory_ms)} ms / {f(step.compute_ms)} ms; {step.bound}-bound at {batch_words(batch)}: the step's "
            "reads take this multiple of its matmuls' time (above 1: memory-bound)",
        ),
    ]
