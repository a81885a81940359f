"""A run that fits nowhere because its sequence cannot be split further says why, naming the field: ring CP needs
seq_len in 2 x CP equal chunks, DeepSpeed-Ulysses needs SP to divide the attention heads (found by qa15)."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.workload import TrainingWorkload

H100 = load_gpu_specs()["H100-SXM"]
MODELS = load_model_specs()


def seventy_b(seq_len: int) -> TrainingWorkload:
    return TrainingWorkload(
        model="llama-3.1-70b", method="full_ft", seq_len=seq_len, global_batch_seqs=16, framework="megatron"
    )


def test_a_sequence_that_splits_into_no_ring_chunks_names_seq_len_and_the_padding_that_fits():
    """70B full fine-tuning on Megatron, 64 H100s: 262,144 tokens fit with CP, 262,145 found no CP degree and the
    reason only said TP8 PP8 needs 96 GB a GPU; the shortest padding that fits is named."""
    model = MODELS["llama-3.1-70b"]
    assert estimate_training(H100, 64, model, seventy_b(262_144)).fits
    est = estimate_training(H100, 64, model, seventy_b(262_145))
    assert not est.fits
    assert "ring context parallelism cuts each sequence into 2 × CP equal chunks" in est.reason
    assert "seq_len 262,145 takes no CP degree; padded to 262,148 tokens (a multiple of 2 × CP2) it fits" in est.reason
    assert estimate_training(H100, 64, model, seventy_b(262_148)).fits


def test_a_ring_split_too_small_even_when_padded_adds_no_padding_advice():
    est = estimate_training(H100, 8, MODELS["llama-3.1-70b"], seventy_b(262_145))
    assert not est.fits and "padded" not in est.reason


def test_ulysses_capped_by_the_attention_heads_says_so():
    """Qwen2.5 7B has 28 heads: DeepSpeed-Ulysses splits it at most 4 ways, whatever the GPU count; the reason named
    SP4 on 64 GPUs without saying why not SP8 or more."""
    w = TrainingWorkload(model="qwen2.5-7b", method="full_ft", seq_len=131_072, global_batch_seqs=16, framework="hf")
    est = estimate_training(H100, 64, MODELS["qwen2.5-7b"], w)
    assert not est.fits
    said = "(SP, DeepSpeed-Ulysses) splits each sequence at most 4 ways: SP must divide the 28 attention heads"
    assert said in est.reason


def test_ulysses_capped_by_the_gpu_count_alone_adds_nothing():
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=524_288, global_batch_seqs=16, framework="hf")
    est = estimate_training(H100, 8, MODELS["llama-3.1-8b"], w)
    assert not est.fits and "SP must divide" not in est.reason
