"""The step-time sum names the layer-split traffic it adds by the split that sends it: DeepSpeed-Ulysses' SP on HF, the
CP ring on the ring-CP stacks, TP beside either (found by qa15: HF's SP8 read 'exposed SP/CP', and TP2 CP32's ring was
summed as 'exposed TP')."""

import re

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.workload import TrainingWorkload

H100 = load_gpu_specs()["H100-SXM"]
MODEL_8B = load_model_specs()["llama-3.1-8b"]


def step_time_detail(framework: str, seq_len: int, gpu_count: int, layout: Layout) -> str:
    w = TrainingWorkload(
        model="llama-3.1-8b", method="full_ft", seq_len=seq_len, global_batch_seqs=64, framework=framework
    )
    est = estimate_training(H100, gpu_count, MODEL_8B, w, layout)
    return next(t.detail for t in est.terms if t.name == "step time")


@pytest.mark.parametrize(
    ("framework", "tp", "split", "label"),
    [
        ("hf", 1, 8, "s exposed Ulysses SP"),
        ("megatron", 1, 64, "s exposed CP"),
        ("megatron", 2, 32, "s exposed TP and CP"),
    ],
)
def test_the_step_time_names_the_split_it_adds(framework, tp, split, label):
    seq_len = 131_072 if framework == "hf" else 16_384  # short ring blocks across nodes leave the ring exposed
    gpu_count = 8 if framework == "hf" else 64
    detail = step_time_detail(framework, seq_len, gpu_count, Layout(3, tp, 1, "full", 1, sequence_parallel=split))
    assert re.search(re.escape(label) + r"( \+ |;)", detail)
    assert "SP/CP" not in detail
