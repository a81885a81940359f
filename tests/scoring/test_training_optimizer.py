"""The optimizer state recipe a user chooses: bytes per trained parameter, CPU offload's memory and its step time."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.training.layouts.optimizer import HOST_ADAM_GBS, StateRecipe, gpu_state_bytes_per_param
from app.scoring.workload import TrainingWorkload
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates
from tests.scoring.term_arithmetic import stated_value

GPUS = load_gpu_specs()
MODELS = load_model_specs()
N_8B = MODELS["llama-3.1-8b"].params_b * 1e9


def full_ft(**kw):
    base = dict(model="llama-3.1-8b", method="full_ft", seq_len=2048, global_batch_seqs=2, framework="pytorch")
    return TrainingWorkload(**{**base, **kw})


@pytest.mark.parametrize(("optimizer", "per_param"), [("adamw", 16), ("adamw_bf16", 8), ("adamw_8bit", 6)])
def test_state_bytes_per_trained_parameter_by_recipe_and_zero_stage(optimizer, per_param):
    model, recipe = MODELS["llama-3.1-8b"], StateRecipe(optimizer)
    assert model_state_bytes(model, "full_ft", Layout(zero_stage=0), 1, 16, recipe) == pytest.approx(N_8B * per_param)
    assert model_state_bytes(model, "full_ft", Layout(zero_stage=3), 8, 16, recipe) == pytest.approx(
        N_8B * per_param / 8
    )
    # ZeRO-1 shards only the optimizer's own bytes: the bf16 weights and gradients (2 + 2 B) stay whole
    zero1 = model_state_bytes(model, "full_ft", Layout(zero_stage=1), 8, 16, recipe)
    assert zero1 == pytest.approx(N_8B * (4 + (per_param - 4) / 8))


def test_offloaded_states_leave_only_the_bf16_weights_on_the_gpu():
    for optimizer in ("adamw", "adamw_bf16", "adamw_8bit"):
        offloaded = StateRecipe(optimizer, "cpu")
        assert gpu_state_bytes_per_param(offloaded, 0, 1) == 2.0
        assert gpu_state_bytes_per_param(offloaded, 3, 8) == 2.0 / 8


def test_default_recipe_is_mixed_precision_adamw():
    w = TrainingWorkload()
    assert (w.optimizer, w.offload) == ("adamw", "none")
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], TrainingWorkload(method="full_ft"))
    assert "mixed-precision AdamW (16 bytes/param) for trained weights" in est.assumptions[0]


def test_8b_full_fine_tune_fits_one_4090_only_with_8bit_states_offloaded():
    """torchtune ran it at 18.9 GiB (PagedAdamW8bit; shared/validation nt-00039): 16 B/param needs 128 GB."""
    gpu, model = GPUS["RTX-4090"], MODELS["llama-3.1-8b"]
    refused = estimate_training(gpu, 1, model, full_ft())
    assert not refused.feasible and "needs 128 GB of model states" in refused.reason
    assert not estimate_training(gpu, 1, model, full_ft(optimizer="adamw_8bit")).feasible  # 48 GB of states
    fits = estimate_training(gpu, 1, model, full_ft(optimizer="adamw_8bit", offload="cpu"))
    assert fits.feasible and fits.memory_breakdown_gb["model_states"] == pytest.approx(N_8B * 2 / 1e9)
    assert any("offloaded to the CPU" in a for a in fits.assumptions)


def test_70b_full_fine_tune_on_8_a100s_fits_with_cpu_offload_and_pays_for_it():
    """torchtune ran it with FSDP CPU offload (nt-00044); mixed-precision AdamW on the GPUs needs 142 GB per GPU."""
    gpu, model = GPUS["A100-SXM-80GB"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=2048, global_batch_seqs=16)
    assert not estimate_training(gpu, 8, model, w).feasible
    offloaded = w.model_copy(update={"optimizer": "adamw_bf16", "offload": "cpu"})
    est = estimate_training(gpu, 8, model, offloaded)
    assert est.feasible
    terms = {t.name: t for t in est.terms}
    offload = terms["optimizer offloaded to CPU"]
    assert stated_value(offload.detail) == pytest.approx(offload.value, rel=5e-3)
    # one host's CPUs step all 70.6 B parameters (8 GPUs a host), 14 B of traffic each at ZeRO-Offload's rate
    assert offload.value > model.params_b * 1e9 * 14 / (HOST_ADAM_GBS * 1e9)
    # the same layout without offload differs by exactly that term
    pinned = estimate_training(gpu, 8, model, w.model_copy(update={"optimizer": "adamw_bf16"}), layout=est.layout)
    assert est.step_time_s - pinned.step_time_s == pytest.approx(offload.value, rel=1e-9)
    assert "adamw_bf16: 8 bytes per trained parameter" in terms["memory: model states"].detail


def test_pure_bf16_states_say_their_accuracy_caveat():
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], full_ft(optimizer="adamw_bf16"))
    assert "round away" in est.assumptions[0]


@pytest.mark.parametrize(
    ("optimizer", "offload"), [("adamw_bf16", "none"), ("adamw_8bit", "none"), ("adamw", "cpu"), ("adamw_8bit", "cpu")]
)
def test_the_ranking_sweep_honours_the_recipe(optimizer, offload):
    w = TrainingWorkload(
        model="llama-3.1-70b",
        method="full_ft",
        seq_len=4096,
        global_batch_seqs=64,
        optimizer=optimizer,
        offload=offload,
    )
    gpus = [GPUS[g] for g in ("H100-SXM", "A100-SXM-80GB", "RTX-4090", "B200")]
    assert_sweep_matches_single_estimates(MODELS["llama-3.1-70b"], w, gpus, (1, 2, 4, 8, 16, 32))
