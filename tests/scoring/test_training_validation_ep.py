"""The validator searches a MoE row's layouts as the product searches them, expert parallelism included (moepath).

ROCm MaxText's MI355X rows state "FSDP=8" on 64 GPUs and leave the expert axis unstated; MaxText shards experts over
its expert_parallelism mesh axes, and the product's "auto" stack (what a maxtext column runs as) searches EP layouts.
At the committed constants no row picks EP (the predictions did not move); with the expert GEMM shape on, the MaxText
row below is timed at EP8 rather than at a split whose TP2 slices feed each expert ~128 tokens."""

from __future__ import annotations

from dataclasses import replace

from app.calibration.training.validate_training import predict_estimate
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training

GPUS, MODELS = load_gpu_specs(), load_model_specs()
# moeshape's candidate: the dense half-point, and the MoE factor that keeps DeepSeek-V3's EP64 H800 shape at 0.579.
SHAPED = replace(E, expert_half_hidden_share=1.0, moe_factor=0.6831)
MAXTEXT_ROW = {
    "case_id": "m",
    "source": "s",
    "framework": "maxtext",
    "gpu": "MI355X",
    "gpu_count": "64",
    "model": "deepseek-v3",
    "method": "pretrain",
    "precision": "bf16",
    "seq_len": "4096",
    "global_batch_seqs": "256",
    "metric": "tokens_s_per_gpu",
    "value": "961.1",
    "notes": "8 nodes x 8 MI355X, FSDP=8 (as published), remat full; per-device batch 4",
}


def test_a_moe_row_without_a_stated_expert_axis_is_searched_with_the_products_ep_layouts():
    est, gpu, model, w = predict_estimate(MAXTEXT_ROW, GPUS, MODELS, SHAPED)
    assert w.framework == "auto"
    assert est.layout.expert_parallel == 8 and est.layout.recompute == "full"  # "remat full" as stated
    without_ep = estimate_training(gpu, 64, model, w, e=SHAPED, partial_recompute=False, expert_split=False)
    assert not without_ep.layout.expert_parallel
    assert est.tokens_per_s_per_gpu > without_ep.tokens_per_s_per_gpu


def test_at_the_committed_constants_the_row_keeps_its_split_without_ep():
    est = predict_estimate(MAXTEXT_ROW, GPUS, MODELS)[0]
    assert not est.layout.expert_parallel
