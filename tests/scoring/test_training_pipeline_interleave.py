"""The interleaved 1F1B schedule needs a multiple of PP micro-batches per replica (Narayanan et al. 2021 §2.2.2):
a pipeline with fewer, or a count that is no multiple, pays the plain 1F1B bubble, and the step's terms say why."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.step_time import pipeline_chunks
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def test_interleaving_needs_a_multiple_of_the_pipeline_degree():
    pp2, stated = Layout(pipeline_parallel=2), Layout(pipeline_parallel=4, pipeline_interleave=5)
    assert pipeline_chunks(E, pp2, 1) == 1.0  # one micro-batch: the stages run one after the other
    assert pipeline_chunks(E, pp2, 3) == 1.0
    assert pipeline_chunks(E, pp2, 4) == E.pp_interleave_default
    assert pipeline_chunks(E, stated, 6) == 1.0
    assert pipeline_chunks(E, stated, 8) == 5


def test_one_micro_batch_on_a_pipeline_waits_for_every_stage():
    """MLPerf's Llama 2 70B LoRA runs 8 sequences on 64 H100s: at TP4 PP2 each of the 8 replicas has one micro-batch,
    whose bubble was priced at 1/8 of the compute (8 default chunks) where its two stages run one after the other."""
    workload = TrainingWorkload(
        model="llama-2-70b", method="lora", precision="fp8", seq_len=8192, global_batch_seqs=8, framework="nemo"
    )
    layout = Layout(tensor_parallel=4, pipeline_parallel=2, recompute="none")
    est = estimate_training(GPUS["H100-SXM"], 64, MODELS["llama-2-70b"], workload, layout=layout)
    terms = {t.name: t for t in est.terms}
    bubble, compute = terms["pipeline bubble"], terms["compute"].value
    latency = E.step_latency_s_per_layer * MODELS["llama-2-70b"].layers / 2
    assert bubble.value - latency == pytest.approx(compute, rel=1e-9)  # (PP - 1) / (1 chunk × 1 micro-batch)
    assert "no multiple of PP2" in bubble.detail
