"""A mixture of experts' estimate says what it rests on: the MoE factor in the matmul efficiency, and an assumption."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def matmul_term(est):
    return next(t for t in est.terms if t.name == "matmul efficiency (compute phase)")


@pytest.mark.parametrize(
    ("model", "gpu", "count", "fields"),
    [
        ("deepseek-v3", "H100-SXM", 256, {"method": "pretrain", "global_batch_seqs": 512}),
        ("mixtral-8x7b", "H200", 16, {"method": "full_ft", "precision": "fp8"}),
        ("llama-3.1-8b", "A100-SXM-80GB", 8, {"method": "lora"}),
    ],
)
def test_the_matmul_efficiency_term_multiplies_out_to_its_value(model, gpu, count, fields):
    w = TrainingWorkload(model=model, max_gpus=count, **fields)
    term = matmul_term(estimate_training(GPUS[gpu], count, MODELS[model], w))
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3)


def test_a_moe_names_its_factor_and_its_assumption():
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=512, max_gpus=256)
    est = estimate_training(GPUS["H100-SXM"], 256, MODELS["deepseek-v3"], w)
    detail = matmul_term(est).detail
    assert "MoE 0.6000;" in detail and "all-to-all" in detail  # 1 - (1 - 0.5793) x 58/61: the 3 dense layers at 1
    assert "0.5793 on the MoE layers, 58 of 61, the 3 dense at 1: 1 - (1 - 0.5793) × 58/61" in detail
    [note] = [a for a in est.assumptions if a.startswith("MoE: ")]
    assert "at 0.579 of a dense" in note and "on its 58 MoE layers of 61 and at 1 on the 3 dense ones: 0.6 over" in note
    dense = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], TrainingWorkload(method="pretrain"))
    assert "MoE 1;" in matmul_term(dense).detail and not any(a.startswith("MoE") for a in dense.assumptions)


def test_mla_attention_multiplies_values_at_their_own_width():
    """DeepSeek-V3's query/key heads are 192 wide (128 nope + 64 rope), its value heads 128 (v_head_dim)."""
    from app.scoring.training.step.flops import attention_flops_per_token, value_head_dim

    deepseek, llama = MODELS["deepseek-v3"], MODELS["llama-3.1-8b"]
    assert (deepseek.head_dim, value_head_dim(deepseek)) == (192, 128)
    assert attention_flops_per_token(deepseek, 4096) == 6 * 61 * 128 * (192 + 128) * 4096
    assert attention_flops_per_token(llama, 4096) == 12 * 32 * 32 * 128 * 4096  # equal widths: the PaLM form
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=512, max_gpus=256)
    flops = estimate_training(GPUS["H100-SXM"], 256, MODELS["deepseek-v3"], w).terms[0]
    assert "6 × 61 layers × 128 heads × (192 + 128) × 4,096 tokens" in flops.detail
    assert flops.value == pytest.approx(6 * 37e9 + 6 * 61 * 128 * (192 + 128) * 4096)
