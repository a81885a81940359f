"""The training step terms' words at small counts and the TP term's title (found by qa29): Mixtral under EP8 read "a
GPU's own 1 routed experts go over the 8 ranks holding the same ones", Llama 4's top-1 routing "× 1 experts" and "its
top-1 experts' GPUs", and the TP term was titled "exposed TP all-reduce" where under sequence parallelism it runs an
all-gather and a reduce-scatter. The numbers are the same; only the words move."""

from __future__ import annotations

from dataclasses import replace

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.step_terms import _dense_layers_words, count_noun
from app.scoring.workload import TrainingWorkload

H100 = load_gpu_specs()["H100-SXM"]
MODELS = load_model_specs()
TP2_EP8 = Layout(zero_stage=1, tensor_parallel=2, pipeline_parallel=1, recompute="full", expert_parallel=8)


def _terms(model_id: str, count: int, layout: Layout) -> dict[str, str]:
    w = TrainingWorkload(model=model_id, method="full_ft", seq_len=4096, global_batch_seqs=64)
    est = estimate_training(H100, count, MODELS[model_id], w, layout=layout)
    return {t.name: t.detail for t in est.terms}


def test_one_routed_expert_per_gpu_reads_in_the_singular():
    """Mixtral 8x7B at EP8: each GPU holds one of the 8 experts."""
    words = _terms("mixtral-8x7b", 64, replace(TP2_EP8, tensor_parallel=1))["exposed DP/FSDP traffic"]
    assert "under EP8 a GPU's own routed expert goes over the 8 ranks holding the same one (DP / EP)" in words
    assert "1 routed experts" not in words


def test_top_1_routing_reads_in_the_singular():
    """Llama 4 Scout sends each token to one routed expert."""
    words = _terms("llama-4-scout", 64, replace(TP2_EP8, tensor_parallel=1))["exposed expert all-to-all"]
    assert " all-to-alls × 1 expert × " in words and "its top-1 expert's GPU (dispatch)" in words
    assert "1 experts" not in words
    qwen = _terms("qwen3-235b-a22b", 64, TP2_EP8)
    assert " all-to-alls × 8 experts × " in qwen["exposed expert all-to-all"]
    assert "top-8 experts' GPUs (dispatch)" in qwen["exposed expert all-to-all"]
    assert "a GPU's own 16 routed experts go over the 8 ranks holding the same ones" in qwen["exposed DP/FSDP traffic"]


def test_the_tp_term_is_titled_by_what_runs():
    terms = _terms("llama-3.1-70b", 64, replace(TP2_EP8, expert_parallel=None))
    name = (
        "exposed TP communication: all-reduce, or all-gather/reduce-scatter "
        "under Megatron sequence parallelism (within TP)"
    )
    assert name in terms and "exposed TP all-reduce" not in terms
    said = "under Megatron sequence parallelism (within TP) an all-gather and a reduce-scatter each, the same bytes"
    assert said in terms[name]


def test_counts_of_one_take_the_singular():
    assert count_noun(1, "micro-batch", "micro-batches") == "1 micro-batch"
    assert count_noun(4, "micro-batch", "micro-batches") == "4 micro-batches"
    assert (count_noun(1, "rank"), count_noun(16, "rank")) == ("1 rank", "16 ranks")
    assert _dense_layers_words(1) == "; its dense layer pays all of its"
    assert _dense_layers_words(3) == "; its 3 dense layers pay all of theirs"
