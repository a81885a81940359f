"""Eager activations counted as an eager PyTorch layer stores them (found by peak2): a plain eager loop on an H200
stored ~1.2x Korthikanti's fused count, which the estimator applied to every stack; the stacks that run eager by
default (pytorch = torchtune, hf) now count their layers' own saved tensors (layouts/eager_activations.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.catalog.spec_files import load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.layouts.eager_activations import (
    HF_LAYER,
    PLAIN_LOOP_LAYER,
    TORCHTUNE_LAYER,
    fp32_residual,
    stack_layer,
)
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import DEFAULT_RECIPE, Layout, activation_bytes
from app.scoring.training.layouts.optimizer import StateRecipe

MODELS = load_model_specs()
RUN = Path(__file__).parents[2] / "docs/measurements/h200-2026-12-04-train-step.json"
ROWS = [r for r in json.loads(RUN.read_text())["rows"] if r["kind"] == "train_step" and r["recompute"] == "none"]


def _stored_activations(row: dict) -> float:
    """What the loop's forward left for its backward beyond its states: the allocated growth over the forward, less
    the loss's fp32 log-probabilities (4 B a logit) and autocast's bf16 copies of the fp32 trained weights (2 B a
    parameter; model_states' bf16 weights stand for them in the estimate)."""
    model, phases = MODELS[row["model"]], row["memory_by_phase_gb"]
    trained = model.params_b * 1e9 if row["method"] == "full_ft" else lora_adapter_params(model, row["lora_rank"])
    return (phases["forward_end_gb"] - phases["start_gb"]) * 1e9 - 4 * row["logit_elements"] - 2 * trained


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['model']}-{r['method']}-{r['seq_len']}-{r['loss_chunks']}")
def test_the_plain_loop_layer_is_what_the_h200_run_stored(row: dict) -> None:
    model = MODELS[row["model"]]
    layout = Layout(0, micro_batch_seqs=row["batch_seqs"])
    counted = activation_bytes(model, row["seq_len"], layout, E, "pytorch", PLAIN_LOOP_LAYER, row["method"])
    fused = activation_bytes(model, row["seq_len"], layout, E, "pytorch")
    stored = _stored_activations(row)
    assert counted == pytest.approx(stored, rel=0.01)  # the final norm and LM head's input are not counted: < 1 %
    assert stored / fused > 1.01  # the fused count fell 2-17 % short


def test_eager_stacks_count_their_layers_and_fused_stacks_keep_the_count() -> None:
    assert (stack_layer("pytorch"), stack_layer("hf")) == (TORCHTUNE_LAYER, HF_LAYER)
    assert all(stack_layer(f) is None for f in ("torchtitan", "megatron", "nemo", "llm-foundry", "auto"))
    # QLoRA under auto runs HF Trainer + PEFT (frameworks.split_stack): its split holds HF's layer (found by peak3)
    assert (stack_layer("auto", "qlora"), stack_layer("auto", "lora")) == (HF_LAYER, None)
    model, layout = MODELS["llama-3.2-3b"], Layout(0, micro_batch_seqs=2)
    fused = activation_bytes(model, 4096, layout, E, "pytorch")
    bf16 = StateRecipe("adamw_bf16")
    torchtune = activation_bytes(model, 4096, layout, E, "pytorch", TORCHTUNE_LAYER, "full_ft", bf16)
    loop = activation_bytes(model, 4096, layout, E, "pytorch", PLAIN_LOOP_LAYER, "full_ft", bf16)
    # torchtune's README: the eager "+ Packed Dataset" row peaks 9 GiB above its "+ Compile" row
    assert fused < loop < torchtune
    assert (torchtune - fused) / 2**30 == pytest.approx(7.5, abs=0.5)


def test_the_residual_stream_is_fp32_only_under_amp_on_fp32_weights() -> None:
    assert fp32_residual("full_ft", DEFAULT_RECIPE, 0)
    assert not fp32_residual("full_ft", DEFAULT_RECIPE, 3)  # FSDP computes in bf16 weights
    assert not fp32_residual("full_ft", StateRecipe("adamw_bf16"), 0)
    assert not fp32_residual("lora", DEFAULT_RECIPE, 0)
    assert not fp32_residual("full_ft", StateRecipe("adamw", "cpu"), 0)


def test_eager_layer_share_weighs_the_eager_count_against_the_fused_one() -> None:
    """TrainingEfficiency.eager_layer_share: 1 (the product) counts the stack's eager layer, 0 (a compiled row, or
    XTuner's fused kernels, in the validator) the fused count, between them a weighted mix (found by peak3)."""
    model, layout = MODELS["llama-3.1-8b"], Layout(3, micro_batch_seqs=1)
    at = {
        share: activation_bytes(
            model, 8192, layout, replace(E, eager_layer_share=share), "hf", HF_LAYER, "full_ft", DEFAULT_RECIPE
        )
        for share in (0.0, 0.5, 1.0)
    }
    assert at[0.0] == activation_bytes(model, 8192, layout, E, "hf")
    assert at[1.0] == activation_bytes(model, 8192, layout, E, "hf", HF_LAYER, "full_ft", DEFAULT_RECIPE) > at[0.0]
    assert at[0.5] == pytest.approx((at[0.0] + at[1.0]) / 2)
