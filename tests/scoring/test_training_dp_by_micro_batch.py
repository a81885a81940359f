"""The data-parallel term micro-batch by micro-batch (exposecomm): each micro-batch hides dp_overlap x its own
compute; ZeRO-3's parameter gathers run in every one, and dp_last_micro_share of the once-per-step gradient reduction
in the last one's backward only (DDP no_sync, Megatron-Core overlap_grad_reduce). At share 0 it is the whole-step
max(0, traffic - dp_overlap x compute)."""

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.step_time import exposed_by_micro_batch
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
# Llama 3.1 8B, ZeRO-1 over 64 H100s across nodes, 8 micro-batches of one sequence per replica, on a 50 Gb/s-a-GPU
# fabric: the ring's 8 NICs a node give 45 GB/s a GPU (communication.dp_bandwidth_gbs), where 400 Gb/s hides it all
WORKLOAD = TrainingWorkload(model="llama-3.1-8b", method="full_ft", global_batch_seqs=512, framework="megatron")
ZERO1 = Layout(zero_stage=1, tensor_parallel=1, pipeline_parallel=1, recompute="none", micro_batch_seqs=1)
FSDP = replace(ZERO1, zero_stage=3)


def _dp(share: float, layout: Layout):
    e = replace(DEFAULT_TRAINING_EFFICIENCY, dp_last_micro_share=share, scaleout_gbs_per_gpu=45.0 / 8)
    est = estimate_training(GPUS["H100-SXM"], 64, MODELS["llama-3.1-8b"], WORKLOAD, layout=layout, e=e)
    return {t.name: t for t in est.terms}["exposed DP/FSDP traffic"], est


def test_at_share_zero_every_micro_batch_split_is_the_whole_step_form():
    for micro in (1, 2, 8):
        gathers, once, hidden = 0.3, 1.2, 0.25
        whole = max(0.0, micro * gathers + once - micro * hidden)
        assert exposed_by_micro_batch(gathers, once, 0.0, micro, hidden) == pytest.approx(whole)


def test_a_reduction_held_to_the_last_micro_batch_is_hidden_by_that_one_alone():
    # 1.2 s of gradient reduction against 8 micro-batches of 0.25 s: 2 s of compute would hide it, one hides 0.25
    assert exposed_by_micro_batch(0.0, 1.2, 1.0, 8, 0.25) == pytest.approx(0.95)
    assert exposed_by_micro_batch(0.0, 1.2, 0.0, 8, 0.25) == 0.0
    assert exposed_by_micro_batch(0.0, 1.2, 0.5, 8, 0.25) == pytest.approx(0.6 + 0.6 / 8 - 0.25)


def test_zero1_gradient_reduction_is_exposed_past_the_last_micro_batch_and_the_term_says_so():
    whole, base = _dp(0.0, ZERO1)
    held, est = _dp(1.0, ZERO1)
    assert held.value > whole.value and est.step_time_s > base.step_time_s
    assert stated_value(held.detail) == pytest.approx(held.value, rel=5e-3, abs=5e-4)
    assert "micro-batch by micro-batch" in held.detail.lower() and "dp_last_micro_share" in held.detail
    assert "parameter gathers" not in held.detail  # ZeRO-1 gathers no weights per micro-batch


def test_fsdp_gathers_stay_with_their_own_micro_batch():
    held, _ = _dp(1.0, FSDP)
    assert "parameter gathers" in held.detail
    assert stated_value(held.detail) == pytest.approx(held.value, rel=5e-3, abs=5e-4)
