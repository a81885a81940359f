"""Micro-batches as a user sets them: the layout search raises the micro-batch where memory allows, and ZeRO-3/FSDP
pays its parameter gathers (and QLoRA its NF4 dequantisation) once per micro-batch, not once per step."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.hardware.machines import Machine
from app.scoring.training.configurations import machine_efficiency
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.layouts.search_space import larger_micro_batches
from app.scoring.training.step.communication import dp_comm_bytes
from app.scoring.training.step.step_time import local_micro_batches
from app.scoring.workload import TrainingWorkload
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates

GPUS = load_gpu_specs()
MODELS = load_model_specs()
FULL_70B = TrainingWorkload(
    model="llama-3.1-70b", method="full_ft", seq_len=4096, framework="hf", global_batch_seqs=256
)


def test_fsdp_gathers_the_weights_in_every_micro_batch():
    model, fsdp = MODELS["llama-3.1-70b"], Layout(zero_stage=3)
    one, eight = (dp_comm_bytes(model, "full_ft", fsdp, 32, 0.0, m) for m in (1, 8))
    weights = 2 * model.params_b * 1e9 * 31 / 32  # one bf16 gather of the weights, ring share
    assert eight - one == pytest.approx(2 * 7 * weights)  # 7 more micro-batches, each gathering forward and backward
    assert dp_comm_bytes(model, "full_ft", Layout(zero_stage=1), 32, 0.0, 8) == dp_comm_bytes(
        model, "full_ft", Layout(zero_stage=1), 32, 0.0, 1
    )  # ZeRO-1 keeps whole weights: its gradient reduction is once per step
    assert local_micro_batches(256, 32, 1) == 8 and local_micro_batches(256, 32, 4) == 2


def test_70b_full_fine_tune_on_32_b200_pays_for_its_micro_batches():
    """Was 17.3 s/step with 410 GB of FSDP traffic hidden under 17.1 s of compute: the 8 micro-batches of one
    sequence each gather the weights twice (about 2.2 TB). Raising the micro-batch to 4 under full recompute halves
    what is gathered four times over, and is the fastest layout that fits. On a 50 Gb/s-a-GPU fabric (EFA): its
    FSDP ring runs at 8 NICs' 5.625 GB/s a node, 45 GB/s a GPU (communication.dp_bandwidth_gbs); on 400 Gb/s
    InfiniBand the same ring runs at 360 GB/s and hides under the compute at any micro-batch."""
    efa = Machine(gpus_per_node=8, link="nvlink", fabric="efa", fabric_gbps_per_gpu=50, max_nodes=None)
    e = machine_efficiency(efa, DEFAULT_TRAINING_EFFICIENCY)
    est = estimate_training(GPUS["B200"], 32, MODELS["llama-3.1-70b"], FULL_70B, e=e)
    assert est.feasible and est.layout is not None
    assert est.layout.micro_batch_seqs > 1 and "micro-batch" in est.layout_text
    one = Layout(3, 1, 1, "none", 1)
    mb1 = estimate_training(GPUS["B200"], 32, MODELS["llama-3.1-70b"], FULL_70B, layout=one, e=e)
    assert mb1.step_time_s > 40  # 2.2 TB at 45 GB/s per GPU, 17 s of it hidden
    assert est.step_time_s < mb1.step_time_s
    dp = next(t for t in est.terms if t.name == "exposed DP/FSDP traffic")
    assert "in each of 2 micro-batches" in dp.detail


def test_qlora_raises_the_micro_batch_where_it_fits():
    """70B QLoRA on one H100 read 1,016 tok/s at seq 512 and 1,245 at 1,024: the NF4 dequantisation was paid for
    64 micro-batches of 512 tokens though micro-batch 2 fits."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    short, long = (
        estimate_training(gpu, 1, model, TrainingWorkload(model="llama-3.1-70b", method="qlora", seq_len=s))
        for s in (512, 1024)
    )
    assert short.layout is not None and short.layout.micro_batch_seqs >= 2
    assert short.tokens_per_s_per_gpu >= 0.95 * long.tokens_per_s_per_gpu


def test_micro_batches_tried_are_powers_of_two_up_to_the_local_batch():
    assert larger_micro_batches(FULL_70B, 32, 1, 1) == (2, 4, 8)  # 256 sequences over 32 replicas
    assert larger_micro_batches(FULL_70B, 32, 4, 4) == ()  # a pipeline wants many micro-batches
    assert larger_micro_batches(FULL_70B, 1, 1, 1) == ()  # one GPU, full FT: no gathers to save


@pytest.mark.parametrize(
    "w",
    [FULL_70B, TrainingWorkload(model="llama-3.1-70b", method="qlora", seq_len=512, global_batch_seqs=64)],
    ids=["full-70b-hf", "qlora-70b"],
)
def test_sweep_matches_single_estimate_with_micro_batches(w):
    gpus = [GPUS[g] for g in ("H100-SXM", "B200", "A100-SXM-80GB", "L40S")]
    assert_sweep_matches_single_estimates(MODELS[w.model], w, gpus, (1, 2, 4, 8, 16, 32, 64))
