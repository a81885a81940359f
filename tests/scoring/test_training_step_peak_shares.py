"""step_peak prices one GPU's trained weights once per layout (trained_shares) at the gradients' and the update's bytes
per parameter, and skips a size of zero bytes: the same figures as each part split and priced on its own."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.experts import all_expert_params
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import GB, Layout, memory_breakdown_gb, memory_needed_gb, runtime_reserve_gb
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.step_peak import workload_peak
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_an_expert_split_prices_dense_and_expert_weights_over_their_own_ranks() -> None:
    """Qwen3-30B-A3B, ZeRO-2 over 16 at EP 4, foreach AdamW (llm-foundry): the dense part sharded over 16 data-parallel
    ranks, the experts (a quarter each) over their 4 expert-data-parallel ranks, both for gradients (2 B) and the
    update's temporary (4 B)."""
    w = TrainingWorkload(model="qwen3-30b-a3b", method="full_ft", framework="llm-foundry", global_batch_seqs=64)
    model, layout = MODELS[w.model], Layout(2, expert_parallel=4)
    peak = workload_peak(model, w, layout, 16)
    experts = all_expert_params(model)
    dense, expert_share = (model.params_b * 1e9 - experts) / 1, experts / 4
    assert 0 < experts < model.params_b * 1e9
    assert peak.gradients_gb == pytest.approx((dense * 2 / 16 + expert_share * 2 / 4) / GB, rel=1e-12)
    assert peak.optimizer_temporary_gb == pytest.approx((dense * 4 / 16 + expert_share * 4 / 4) / GB, rel=1e-12)


def test_lora_prices_only_its_adapters_split_over_tensor_and_pipeline_ranks() -> None:
    w = TrainingWorkload(
        model="llama-3.1-8b", method="lora", framework="llm-foundry", global_batch_seqs=8, lora_rank=16
    )
    model, layout = MODELS[w.model], Layout(0, tensor_parallel=2, pipeline_parallel=2)
    peak = workload_peak(model, w, layout, 8)
    adapters = lora_adapter_params(model, 16) / 4
    assert peak.gradients_gb == pytest.approx(adapters * state_recipe(w).state_bytes.grads / GB, rel=1e-12)
    assert peak.optimizer_temporary_gb == pytest.approx(adapters * 4 / GB, rel=1e-12)


def test_offloaded_states_leave_no_gradients_and_no_temporaries_on_the_gpu() -> None:
    w = TrainingWorkload(
        model="llama-3.1-8b", method="full_ft", framework="llm-foundry", offload="cpu", global_batch_seqs=8
    )
    peak = workload_peak(MODELS[w.model], w, Layout(2), 8)
    assert peak.gradients_gb == 0.0 and peak.optimizer_temporary_gb == 0.0


def test_an_estimate_peaked_at_the_update_reports_and_judges_that_need() -> None:
    """Foreach AdamW on one GPU, short sequences: the optimizer step is the need the estimate's fit and GB state."""
    w = TrainingWorkload(
        model="llama-3.2-1b", method="full_ft", seq_len=128, global_batch_seqs=1, framework="llm-foundry"
    )
    model, layout, gpu = MODELS[w.model], Layout(0, recompute="full"), GPUS["H100-SXM"]
    parts = memory_breakdown_gb(
        model, w.method, w.seq_len, layout, 1, w.lora_rank, framework=w.framework, recipe=state_recipe(w)
    )
    peak = workload_peak(model, w, layout, 1)
    assert peak.at_optimizer_step(parts)
    est = estimate_training(gpu, 1, model, w, layout)
    assert est.memory_per_gpu_gb == memory_needed_gb(parts, peak) + runtime_reserve_gb(1)
    assert est.memory_at_peak_gb["optimizer_temporaries"] == peak.optimizer_temporary_gb > 0
