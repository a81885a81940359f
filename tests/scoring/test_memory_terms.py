"""Every training memory line shows its working (found by memterms): "memory: live params", "activations", "logits" and
"runtime reserve" carried an empty detail, and "model states" only its bytes per parameter. Each now opens with the
arithmetic of its GB per GPU, which these tests read back over a spread of layouts, and says why a zero is zero."""

from __future__ import annotations

import re

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY, LOGITS_BYTES_FUSED, LOGITS_BYTES_UNFUSED
from app.scoring.explain import Term
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout, memory_breakdown_gb, usable_gb
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LINES = (
    "memory: model states",
    "memory: live params",
    "memory: activations",
    "memory: logits",
    "memory: runtime reserve",
    "memory: step peak",
)

# id: (GPU, count, workload fields, pinned layout)
CASES = {
    "DDP on one GPU": ("H200", 1, {"model": "llama-3.2-1b", "method": "full_ft"}, Layout(0)),
    "eager torchtune on one GPU": (
        "H200",
        1,
        {"model": "llama-3.2-3b", "method": "full_ft", "framework": "pytorch", "optimizer": "adamw_bf16"},
        Layout(0, micro_batch_seqs=2),
    ),
    "DDP over 8": ("H100-SXM", 8, {"model": "llama-3.2-1b", "method": "full_ft"}, Layout(0, micro_batch_seqs=4)),
    "FSDP on one GPU": ("H200", 1, {"model": "llama-3.2-1b", "method": "full_ft"}, Layout(3)),
    "FSDP, selective": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft"},
        Layout(3, recompute="selective"),
    ),
    "TP with Megatron SP": (
        "H100-SXM",
        16,
        {"model": "llama-3.1-70b", "method": "full_ft", "framework": "megatron"},
        Layout(1, tensor_parallel=8, recompute="selective"),
    ),
    "TP, PP, partial recompute": (
        "L40S",
        32,
        {"model": "llama-3.1-70b", "method": "full_ft"},
        Layout(1, 8, 4, "partial", recompute_layers=11),
    ),
    "ring CP, full recompute": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 131072, "framework": "megatron"},
        Layout(3, recompute="full", sequence_parallel=8),
    ),
    "Ulysses SP": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 131072, "framework": "hf"},
        Layout(3, recompute="full", sequence_parallel=8),
    ),
    "EP under FSDP": (
        "H100-SXM",
        8,
        {"model": "qwen3-30b-a3b", "method": "full_ft", "framework": "torchtitan"},
        Layout(3, recompute="full", expert_parallel=8),
    ),
    "EP beside TP and PP": (
        "B200",
        512,
        {"model": "qwen3-235b-a22b", "method": "full_ft", "global_batch_seqs": 64},
        Layout(1, 8, 2, "none", expert_parallel=128),
    ),
    "MoE with dense layers": (
        "H200",
        256,
        {"model": "deepseek-v3", "method": "pretrain", "framework": "megatron"},
        Layout(3, 8, 16, "full"),
    ),
    "torchtitan op-level SAC": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "framework": "torchtitan"},
        Layout(3, recompute="selective"),
    ),
    "LoRA under FSDP": ("H100-SXM", 8, {"model": "llama-3.1-70b", "method": "lora"}, Layout(3, recompute="full")),
    "QLoRA on one GPU": (
        "A100-SXM-80GB",
        1,
        {"model": "llama-3.1-70b", "method": "qlora", "global_batch_seqs": 16},
        Layout(0, recompute="full"),
    ),
    "QLoRA under FSDP": (
        "A100-SXM-80GB",
        2,
        {"model": "llama-3.1-70b", "method": "qlora", "global_batch_seqs": 16},
        Layout(3, recompute="partial", recompute_layers=51),
    ),
    "ZeRO-2, bf16 AdamW": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "optimizer": "adamw_bf16"},
        Layout(2, recompute="selective"),
    ),
    "LoRA on a MoE under EP": (
        "H100-SXM",
        8,
        {"model": "qwen3-30b-a3b", "method": "lora", "framework": "torchtitan"},
        Layout(3, recompute="full", expert_parallel=8),
    ),
    "offloaded beside ZeRO-1": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "offload": "cpu"},
        Layout(1, recompute="full"),
    ),
    "optimizer offloaded to the CPU": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "offload": "cpu"},
        Layout(3, recompute="none"),
    ),
}


def _case(case: str) -> tuple[dict[str, Term], TrainingWorkload, Layout, int]:
    gpu, count, fields, layout = CASES[case]
    w = TrainingWorkload(**{"seq_len": 4096, "global_batch_seqs": 256, **fields})
    est = estimate_training(GPUS[gpu], count, MODELS[w.model], w, layout)
    assert est.layout == layout
    return {t.name: t for t in est.terms}, w, layout, count


@pytest.mark.parametrize("case", list(CASES))
def test_each_memory_line_opens_with_the_arithmetic_of_its_value(case: str) -> None:
    terms, _, _, _ = _case(case)
    for name in LINES:
        term = terms[name]
        assert "; " in term.detail, (name, term.detail)  # the arithmetic, then where its figures come from
        assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4), (name, term.detail)


@pytest.mark.parametrize("case", list(CASES))
def test_the_lines_are_the_breakdown_the_fit_was_judged_on(case: str) -> None:
    """The detail is text only: the values stay memory_breakdown_gb's, which the fit and the goldens use."""
    terms, w, layout, count = _case(case)
    breakdown = memory_breakdown_gb(
        MODELS[w.model],
        w.method,
        w.seq_len,
        layout,
        count,
        w.lora_rank,
        DEFAULT_TRAINING_EFFICIENCY,
        w.framework,
        state_recipe(w),
    )
    assert {k: terms[f"memory: {k.replace('_', ' ')}"].value for k in breakdown} == breakdown


@pytest.mark.parametrize("case", ["DDP on one GPU", "DDP over 8", "FSDP on one GPU", "TP, PP, partial recompute"])
def test_live_params_say_why_they_are_zero(case: str) -> None:
    terms, _, layout, _ = _case(case)
    live = terms["memory: live params"]
    assert live.value == 0
    assert live.detail.startswith("0 GB; ")
    why = "no FSDP (ZeRO-3) gathers" if layout.zero_stage < 3 else "FSDP over one data-parallel rank gathers nothing"
    assert why in live.detail
    assert "weights are whole in model states" in live.detail


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][3].zero_stage == 3 and CASES[c][1] > 1])
def test_fsdp_live_params_count_the_gathered_layers(case: str) -> None:
    terms, w, _, _ = _case(case)
    detail = terms["memory: live params"].detail
    assert detail.startswith("2 layers × ")
    assert "stage3_max_live_parameters" in detail
    assert ("QLoRA's largest Linear" in detail) == (w.method == "qlora")


def test_qlora_without_fsdp_holds_only_the_dequantised_linear() -> None:
    live = _case("QLoRA on one GPU")[0]["memory: live params"]
    assert live.value > 0
    assert live.detail.startswith("0.2349B params × 2 bytes/param bf16; no FSDP (ZeRO-3) gathers")


@pytest.mark.parametrize("case", list(CASES))
def test_activations_and_logits_name_the_splits_they_are_divided_by(case: str) -> None:
    terms, w, layout, _ = _case(case)
    activations, logits = terms["memory: activations"].detail, terms["memory: logits"].detail
    tp = f"/ {layout.tensor_parallel} TP ranks"
    assert (tp in activations, tp in logits) == (layout.tensor_parallel > 1,) * 2
    split = "CP" if w.framework in ("megatron", "torchtitan", "nemo", "auto") else "SP"
    sequence = f"{w.seq_len:,} tokens / {layout.sequence_parallel} {split} ranks"
    assert (sequence in activations, sequence in logits) == (layout.sequence_parallel > 1,) * 2
    pipeline = f"under PP{layout.pipeline_parallel} the first stage holds"
    assert (pipeline in activations) == (layout.pipeline_parallel > 1)
    assert f" × {layout.micro_batch_seqs} sequences" in activations
    assert "theoretical_memory_usage.py" in activations


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("FSDP, selective", "selective recompute drops only the attention scores"),
        ("torchtitan op-level SAC", "op-level SAC, keeping 0.6 of them"),
        ("DDP on one GPU", "no recompute: every layer keeps all its activations"),
        ("Ulysses SP", "full recompute: each layer keeps only its bf16 input"),
        ("TP, PP, partial recompute", "recompute 11 of 20 layers per stage × PP4 micro-batches in flight = 44"),
    ],
)
def test_activations_say_what_their_recompute_keeps(case: str, words: str) -> None:
    assert words in _case(case)[0]["memory: activations"].detail


def test_a_moe_shows_its_ffn_width_averaged_over_dense_layers() -> None:
    detail = _case("MoE with dense layers")[0]["memory: activations"].detail
    model = MODELS["deepseek-v3"]
    assert f"on the {model.dense_ffn_layers} dense ones, averaged over the {model.layers} layers" in detail


@pytest.mark.parametrize("case", list(CASES))
def test_logits_state_the_bytes_per_logit_of_the_stacks_loss(case: str) -> None:
    terms, w, _, _ = _case(case)
    detail = terms["memory: logits"].detail
    fused = w.framework in ("megatron", "nemo", "llm-foundry", "pytorch")
    per_logit = LOGITS_BYTES_FUSED if fused else LOGITS_BYTES_UNFUSED
    assert f"vocabulary × {per_logit:g} bytes" in detail
    assert ("fused or chunked loss holds" in detail) == fused
    assert "docs/measurements/h200-2026-12-04-train-step.json" in detail


@pytest.mark.parametrize("case", list(CASES))
def test_the_reserve_names_its_source_and_what_it_leaves_usable(case: str) -> None:
    terms, _, _, count = _case(case)
    detail = terms["memory: runtime reserve"].detail
    assert ("outside_allocator_gb" in detail) == (count == 1)
    assert ("NCCL's communicator buffers" in detail) == (count > 1)
    usable = re.search(r"= ([\d,.]+) GB usable", detail)
    assert usable is not None
    gpu = GPUS[CASES[case][0]]
    assert float(usable[1].replace(",", "")) == pytest.approx(usable_gb(gpu, count), rel=5e-4)


@pytest.mark.parametrize(
    ("case", "clause"),
    [
        ("TP with Megatron SP", "70.55B params / 8 TP ranks × (2 + 2 + 12 / 2 DP ranks) bytes/param"),
        ("ZeRO-2, bf16 AdamW", "8.030B params × (2 + (2 + 4) / 8 DP ranks) bytes/param"),
        (
            "QLoRA under FSDP",
            "68.45B params / 2 DP ranks × 0.55 bytes/param NF4 + 2.101B params / 2 DP ranks × 2 bytes/param bf16 "
            "embedding and LM head + 0.2071B params × 16 bytes/param / 2 DP ranks",
        ),
        ("optimizer offloaded to the CPU", "8.030B params × 2 bytes/param bf16 weights / 8 DP ranks"),
        ("FSDP on one GPU", "1.240B params × 16 bytes/param"),
    ],
)
def test_model_states_split_their_bytes_by_zero_stage(case: str, clause: str) -> None:
    """What ZeRO shards (optimizer.gpu_state_bytes_per_param) reads in the figures: ZeRO-1 the optimizer's bytes,
    ZeRO-2 the gradients too, FSDP all; offloaded, only the bf16 weights stay; one rank shards nothing."""
    assert _case(case)[0]["memory: model states"].detail.split("; ")[0] == clause


def test_model_states_under_ep_hold_their_experts_apart() -> None:
    clause = _case("EP beside TP and PP")[0]["memory: model states"].detail.split("; ")[0]
    dense, experts = clause.split(" + 227.1B params")
    assert dense.endswith("/ 8 TP ranks / 2 PP stages × (2 + 2 + 12 / 32 DP ranks) bytes/param")
    assert experts == " / 2 PP stages / 128 EP ranks × (2 + 2 + 12 / 2 DP ranks) bytes/param"
