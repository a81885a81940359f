"""Partial activation recompute (Megatron-LM --recompute-method block --recompute-num-layers N, NeMo
activations_checkpoint_num_layers, torchtitan's every-k-th-layer AC): where no recompute stops fitting, the layout
search recomputes the fewest layers that fit instead of all of them, and both layout searches agree."""

import random

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout
from app.scoring.training.layouts.fit_search import first_fit, layout_fits
from app.scoring.training.layouts.memory import (
    Layout,
    activation_bytes,
    fewest_fitting,
    partial_recompute_counts,
    recomputed_share,
)
from app.scoring.training.layouts.search_space import recompute_levels
from app.scoring.training.step.flops import executed_flops_per_token
from app.scoring.workload import TrainingWorkload
from app.service.rank.plain import plain
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates

GPUS = load_gpu_specs()
MODELS = load_model_specs()
MODEL_70B = MODELS["llama-3.1-70b"]
H100 = GPUS["H100-SXM"]


def lora_70b(seq_len: int, framework: str = "nemo") -> TrainingWorkload:
    return TrainingWorkload(
        model="llama-3.1-70b", method="lora", framework=framework, seq_len=seq_len, global_batch_seqs=64
    )


def ms_per_token(seq_len: int, framework: str = "nemo") -> float:
    est = estimate_training(H100, 8, MODEL_70B, lora_70b(seq_len, framework))
    assert est.feasible
    return est.step_time_s / seq_len * 1e3


def test_70b_lora_on_nemo_has_no_cliff_between_16k_and_24k():
    """Was 5.70 ms per token at 16K (TP8, no recompute) and 8.13 at 20K (FSDP, full recompute): +42 % for 25 % more
    tokens, as no recompute stopped fitting and full recompute paid for all 80 layers."""
    per_token = [ms_per_token(s) for s in (16_384, 20_480, 24_576)]
    assert per_token[1] / per_token[0] < 1.2 and per_token[2] / per_token[1] < 1.2
    est = estimate_training(H100, 8, MODEL_70B, lora_70b(20_480))
    assert est.layout is not None and est.layout.recompute == "partial"
    n = est.layout.recompute_layers
    assert n is not None and 0 < n < MODEL_70B.layers // est.layout.pipeline_parallel
    assert f"recompute {n} of" in est.layout_text and "layers" in est.layout_text


def test_fewest_recomputed_layers_that_fit_and_memory_between_none_and_full():
    w = lora_70b(20_480)
    found = first_fit(H100, 8, MODEL_70B, w, 8, 1, E)
    assert found is not None and found.recompute == "partial" and found.recompute_layers
    n = found.recompute_layers
    assert not layout_fits(H100, 8, MODEL_70B, w, Layout(0, 8, 1, "none"), E)[0]
    assert not layout_fits(H100, 8, MODEL_70B, w, Layout(0, 8, 1, "partial", recompute_layers=n - 1), E)[0]
    acts = [
        activation_bytes(MODEL_70B, w.seq_len, Layout(0, 8, 1, "partial", recompute_layers=k), E) for k in (1, n, 79)
    ]
    none, full = (activation_bytes(MODEL_70B, w.seq_len, Layout(0, 8, 1, r), E) for r in ("none", "full"))
    assert none > acts[1] > full and acts[0] > acts[1] > acts[2] > full
    assert found.describe(8, "nemo", MODEL_70B.layers).endswith(f"recompute {n} of 80 layers")


def test_partial_recompute_costs_its_share_of_full_recompute():
    partial = Layout(0, 8, 2, "partial", recompute_layers=10)  # 10 of each stage's 40 layers
    share = recomputed_share(partial, MODEL_70B.layers)
    assert share == pytest.approx(0.25)
    none, part, full = (
        executed_flops_per_token(E, MODEL_70B, "lora", 8192, r, framework="nemo", recomputed_share=share)
        for r in ("none", "partial", "full")
    )
    for i in (0, 1):  # matmuls and attention alike
        assert part[i] - none[i] == pytest.approx(share * (full[i] - none[i]))
    assert partial.describe(16, "nemo", 80).endswith("recompute 10 of 40 layers per stage")


def test_stacks_without_partial_recompute_are_unchanged():
    """HF Trainer checkpoints all layers or none: no partial level, and its 20K layout recomputes them all."""
    assert partial_recompute_counts("hf", 80, 1) == () and "partial" not in recompute_levels(lora_70b(20_480, "hf"))
    est = estimate_training(H100, 8, MODEL_70B, lora_70b(20_480, "hf"))
    assert est.layout is not None and est.layout.recompute != "partial" and est.layout.recompute_layers is None
    assert "recompute_layers" not in plain(est.layout)


def test_torchtitan_recomputes_every_kth_layer():
    counts = partial_recompute_counts("torchtitan", 80, 1)
    assert counts[-1] == 40 and 26 in counts and 27 not in counts  # k = 2, 3
    assert partial_recompute_counts("nemo", 80, 4) == tuple(range(1, 20))


def test_layout_json_names_recompute_layers_only_when_set():
    assert "recompute_layers" not in plain(Layout(0, 8, 1, "full"))
    assert plain(Layout(0, 8, 1, "partial", recompute_layers=18))["recompute_layers"] == 18


def test_bisection_finds_the_fewest_that_fit():
    rng = random.Random(5)
    for _ in range(200):
        counts = tuple(sorted(rng.sample(range(1, 100), rng.randint(1, 20))))
        limit = rng.randint(0, 100)
        expect = next((c for c in counts if c >= limit), None)
        assert fewest_fitting(counts, lambda c, limit=limit: c >= limit) == expect


@pytest.mark.parametrize(
    "w",
    [
        lora_70b(20_480),
        lora_70b(32_768, "megatron"),
        TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework="megatron", seq_len=8192),
        lora_70b(131_072, "torchtitan"),  # CP32 FSDP ×32 on 32 H100s recomputes every second layer
        TrainingWorkload(model="llama-3.1-8b", method="full_ft", framework="auto", seq_len=8192),
    ],
    ids=["lora-nemo-20k", "lora-megatron-32k", "full-ft-megatron-8k", "lora-torchtitan-128k", "full-ft-auto-8k"],
)
def test_sweep_matches_single_estimate_with_partial_recompute(w):
    """On a grid where the partial level is the answer for some (GPU, count): the same layouts, bit-identical."""
    gpus = [GPUS[g] for g in ("H100-SXM", "H200", "A100-SXM-80GB", "B200")]
    counts = (1, 2, 4, 8, 16, 32, 64)
    chosen = [choose_layout(gpu, n, MODELS[w.model], w) for gpu in gpus for n in counts]
    assert any(layout is not None and layout.recompute == "partial" for layout in chosen)
    assert_sweep_matches_single_estimates(MODELS[w.model], w, gpus, counts)


def test_validation_cases_are_searched_without_partial_recompute():
    """No validation row recomputed some layers only: their base layout keeps the whole-model levels."""
    w = lora_70b(20_480)
    held = estimate_training(H100, 8, MODEL_70B, w, partial_recompute=False)
    assert held.layout is not None and held.layout.recompute != "partial"
    assert held.step_time_s > estimate_training(H100, 8, MODEL_70B, w).step_time_s


def test_auto_stack_recomputes_some_layers_like_the_stacks_it_stands_for():
    """auto (priced as Megatron/torchtitan would run the job, ring CP included) jumped from no recompute to full
    recompute: llama-3.1-8b full fine-tuning on one B200 cost +42 % per token from 4K to 8K tokens (found by smooth6).
    It now recomputes the fewest layers that fit, by Megatron's block method."""
    b200, model = GPUS["B200"], MODELS["llama-3.1-8b"]

    def per_token(seq_len: int, framework: str = "auto") -> float:
        w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", framework=framework, seq_len=seq_len)
        est = estimate_training(b200, 1, model, w)
        assert est.feasible
        return est.step_time_s / seq_len

    assert per_token(8192) / per_token(4096) < 1.25
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", framework="auto", seq_len=8192)
    layout = estimate_training(b200, 1, model, w).layout
    assert layout is not None and layout.recompute == "partial" and 0 < (layout.recompute_layers or 0) < 32
    assert partial_recompute_counts("auto", 32, 1) == partial_recompute_counts("megatron", 32, 1)


def test_torchtitan_times_partial_recompute_beside_op_level_selective():
    """torchtitan's selective recompute is op-level SAC (about 37% of a block's matmuls run again), so a partial
    recompute of fewer layers costs less; the search stopped at selective, the first level that fit, and never timed
    it. 70B full FT at 8k on 8 B200s: TP8 recomputing 20 of 80 layers is faster than TP8 with SAC (found by
    leftovers7); where the rival is slower the SAC layout stays."""
    from dataclasses import replace

    from app.scoring.training.estimate import step_seconds
    from app.scoring.training.layouts.fit_search import sac_rival

    b200 = GPUS["B200"]
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework="torchtitan", seq_len=8192)
    chosen = choose_layout(b200, 8, MODEL_70B, w)
    assert chosen is not None and chosen.recompute == "partial" and chosen.recompute_layers == 20
    sac = replace(chosen, recompute="selective", recompute_layers=None)
    assert layout_fits(b200, 8, MODEL_70B, w, sac, E)[0]
    assert step_seconds(b200, 8, MODEL_70B, w, chosen) < step_seconds(b200, 8, MODEL_70B, w, sac)
    qwen = TrainingWorkload(model="qwen2.5-72b", method="full_ft", framework="torchtitan", seq_len=8192)
    kept = choose_layout(b200, 8, MODELS["qwen2.5-72b"], qwen)  # its rival recomputes 40 layers: 4.7% slower
    assert kept is not None and kept.recompute == "selective"
    megatron = w.model_copy(update={"framework": "megatron"})  # its selective (~0.2 N) has no partial rival
    assert sac_rival(b200, 8, MODEL_70B, megatron, E, sac) is None
    assert sac_rival(b200, 8, MODEL_70B, w, E, sac, partial=False) is None  # nor a validation case's search


@pytest.mark.parametrize("model", ["llama-3.1-70b", "qwen2.5-72b", "llama-3.1-405b"])
def test_sweep_matches_single_estimate_with_torchtitan_sac_rivals(model):
    """Both layout searches time the SAC layout's partial rival alike: the same layouts, bit-identical."""
    w = TrainingWorkload(model=model, method="full_ft", framework="torchtitan", seq_len=8192)
    gpus = [GPUS[g] for g in ("H100-SXM", "H200", "B200")]
    assert_sweep_matches_single_estimates(MODELS[model], w, gpus, (8, 16, 24, 64, 256))


def test_the_flops_term_gives_the_recomputed_share_as_a_percent():
    """It read "0.2375 of full recompute's extra FLOPs" for 19 of 80 layers (found by leftovers8)."""
    est = estimate_training(H100, 8, MODEL_70B, lora_70b(20_480))
    assert est.layout is not None and est.layout.recompute == "partial"
    share = recomputed_share(est.layout, MODEL_70B.layers)
    detail = next(t.detail for t in est.terms if "of full recompute's extra FLOPs" in t.detail)
    assert f", {100 * share:.1f}% of full recompute's extra FLOPs" in detail
