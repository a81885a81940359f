"""Activation offloading and the optimizer step in the backward as training options (trainmem): torchtune's
optimization-flags table states both, and the estimator sized those runs as if every activation and gradient stayed
on the GPU."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.calibration.training.memory_features import PADDED_BATCHES, unmodelled_memory_features
from app.calibration.training.validate_training import predict_training_case, read_row
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import training as eff
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.activation_offload import activation_offload_seconds
from app.scoring.training.layouts.memory import GB, Layout
from app.scoring.training.layouts.optimizer import host_link_gbs
from app.scoring.workload import TrainingWorkload
from tests.scoring.test_training_memory_features import ROW, _notes

GPUS, MODELS = load_gpu_specs(), load_model_specs()
A100, MODEL = GPUS["A100-SXM-80GB"], MODELS["llama-3.2-3b"]
RUN = {
    "model": "llama-3.2-3b",
    "method": "full_ft",
    "seq_len": 4096,
    "global_batch_seqs": 2,
    "total_tokens": 1e8,
    "framework": "pytorch",
    "optimizer": "adamw_bf16",
    "max_gpus": 1,
}


def _estimate(layout: Layout, **options: object):  # type: ignore[no-untyped-def]
    return estimate_training(A100, 1, MODEL, TrainingWorkload(**{**RUN, **options}), layout=layout)


def test_offloading_keeps_two_layer_inputs_and_the_recomputed_layer_on_the_gpu() -> None:
    """Full recompute stores each layer's bf16 input: offloaded, 26 of Llama 3.2 3B's 28 leave the GPU (1.31 GB at
    batch 2 × 4,096; torchtune's table: 23.1 → 21.8 GiB), and the need falls by that."""
    layout = Layout(0, 1, 1, "full", 2)
    kept, offloaded = _estimate(layout), _estimate(layout, activation_offload=True)
    layer_input_gb = 4096 * 2 * MODEL.hidden_size * eff.BYTES_BF16 / GB
    moved = kept.memory_breakdown_gb["activations"] - offloaded.memory_breakdown_gb["activations"]
    assert moved == pytest.approx((MODEL.layers - 2) * layer_input_gb)
    assert kept.memory_per_gpu_gb - offloaded.memory_per_gpu_gb == pytest.approx(moved)
    assert offloaded.memory_breakdown_gb["logits"] == kept.memory_breakdown_gb["logits"]  # the loss's stay


def test_offloading_without_recompute_keeps_two_whole_layers() -> None:
    layout = Layout(0, 1, 1, "none", 1)
    kept, offloaded = _estimate(layout), _estimate(layout, activation_offload=True)
    assert offloaded.memory_breakdown_gb["activations"] == pytest.approx(
        kept.memory_breakdown_gb["activations"] * 2 / MODEL.layers
    )


def test_offloading_copies_cost_time_only_beyond_the_compute_they_overlap() -> None:
    layout = Layout(0, 1, 1, "full", 2)
    kept, offloaded = _estimate(layout), _estimate(layout, activation_offload=True)
    assert offloaded.step_time_s == kept.step_time_s  # 0.1 s of copies under 1.3 s of compute
    term = next(t for t in offloaded.terms if t.name == "host memory copies")
    assert term.value == 0.0 and "GB/s PCIe" in term.detail
    moved_bytes = 10e9
    copies_s = 2 * moved_bytes / (host_link_gbs(A100) * 1e9)
    assert activation_offload_seconds(A100, moved_bytes, 1, 0.1) == pytest.approx(copies_s - 0.1)
    assert activation_offload_seconds(A100, moved_bytes, 1, 10.0) == 0.0


def test_the_optimizer_step_in_the_backward_holds_one_tensors_gradient_at_the_update() -> None:
    """At a short sequence the update (states and every gradient) is the step's fullest moment; stepping in the
    backward frees each gradient as it goes: the need falls by the gradients less the embedding's."""
    layout = Layout(0, 1, 1, "full", 2)
    short = {"seq_len": 256}
    whole, fused = _estimate(layout, **short), _estimate(layout, optimizer_in_backward=True, **short)
    grads_gb = MODEL.params_b * 1e9 * eff.BYTES_BF16 / GB
    embedding_gb = MODEL.vocab_size * MODEL.hidden_size * eff.BYTES_BF16 / GB
    breakdown = whole.memory_breakdown_gb
    at_update = breakdown["model_states"] + breakdown["live_params"]
    assert whole.memory_per_gpu_gb - breakdown["runtime_reserve"] == pytest.approx(at_update)
    backward_start = at_update - grads_gb + breakdown["activations"] + breakdown["logits"]
    expected = max(at_update - grads_gb + embedding_gb, backward_start)
    assert fused.memory_per_gpu_gb - breakdown["runtime_reserve"] == pytest.approx(expected)
    assert fused.memory_per_gpu_gb < whole.memory_per_gpu_gb - 4
    assert fused.step_time_s == whole.step_time_s
    peak = next(t for t in fused.terms if t.name == "memory: step peak")
    assert "optimizer step runs inside the backward" in peak.detail


def test_accumulating_micro_batches_keep_their_gradients_whatever_the_option() -> None:
    layout = Layout(0, 1, 1, "full", 1)  # a global batch of 2 in two micro-batches: accumulation
    whole, fused = _estimate(layout, seq_len=256), _estimate(layout, seq_len=256, optimizer_in_backward=True)
    assert fused.memory_per_gpu_gb == whole.memory_per_gpu_gb
    peak = next(t for t in fused.terms if t.name == "memory: step peak")
    assert "adds several into them" in peak.detail


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"framework": "megatron"}, "megatron does not step the optimizer in the backward"),
        ({"framework": "pytorch", "offload": "cpu"}, "choose one"),
    ],
)
def test_the_optimizer_step_in_the_backward_is_refused_where_it_cannot_run(fields: dict, said: str) -> None:
    with pytest.raises(ValidationError) as error:
        TrainingWorkload(**{**RUN, **fields, "optimizer_in_backward": True})
    assert said in str(error.value) and "optimizer_in_backward" in str(error.value)


@pytest.mark.parametrize(
    ("own", "method", "options"),
    [
        ("+ Activation Checkpointing", "full_ft", (False, False)),
        ("+ Fuse optimizer step into backward", "full_ft", (False, True)),
        ("+ Activation Offloading", "full_ft", (True, True)),
        ("LoRA", "lora", (True, False)),  # the LoRA rows ran "without optimizer_in_bwd"
    ],
)
def test_the_validator_runs_the_options_a_row_states(own: str, method: str, options: tuple[bool, bool]) -> None:
    row = {**ROW, "method": method, "notes": _notes(own)}
    w = read_row(row)[0]
    assert (w.activation_offload, w.optimizer_in_backward) == options
    case = predict_training_case(row, GPUS, MODELS)
    assert case.memory is not None and case.memory.unmodelled == ""
    assert ("stated: sized with them" in case.reason) is any(options)


def test_fsdps_cpu_offload_moves_the_weight_shard_and_copies_it_beside_the_compute() -> None:
    """offload cpu_weights: on FSDP the shard of the weights leaves the GPU (ZeRO-Offload's cpu keeps it), the
    updated weights are not copied back after the step, and the copies up before each all-gather are hidden under
    the compute where they take less."""
    model, w = MODELS["llama-3.1-70b"], {**RUN, "model": "llama-3.1-70b", "seq_len": 2048, "global_batch_seqs": 16}
    fsdp = Layout(3, 1, 1, "full", 2)
    cpu = estimate_training(A100, 8, model, TrainingWorkload(**w, offload="cpu"), layout=fsdp)
    weights = estimate_training(A100, 8, model, TrainingWorkload(**w, offload="cpu_weights"), layout=fsdp)
    shard_gb = model.params_b * 1e9 * eff.BYTES_BF16 / 8 / GB
    assert cpu.memory_breakdown_gb["model_states"] == pytest.approx(shard_gb)
    assert weights.memory_breakdown_gb["model_states"] == 0.0
    assert cpu.memory_per_gpu_gb - weights.memory_per_gpu_gb == pytest.approx(shard_gb)
    weights_up_s = shard_gb / host_link_gbs(A100)  # ZeRO-Offload's copy of the updated weights, gone
    assert cpu.step_time_s - weights.step_time_s == pytest.approx(weights_up_s)
    copies = next(t for t in weights.terms if t.name == "host memory copies")
    assert copies.value == 0.0 and "weight shard" in copies.detail
    one_gpu = {**w, "model": "llama-3.2-3b", "max_gpus": 1}
    kept = [
        estimate_training(A100, 1, MODEL, TrainingWorkload(**one_gpu, offload=o), layout=Layout(0, 1, 1, "full", 2))
        for o in ("cpu", "cpu_weights")
    ]
    assert kept[0].memory_per_gpu_gb == kept[1].memory_per_gpu_gb  # nothing sharded: the weights stay


def test_a_row_of_padded_batches_says_its_memory_is_sized_at_the_cap() -> None:
    """torchtune's unpacked 'Baseline' pads each batch to its longest sample: seq_len is the cap, not the length run
    (nt-00047, +133 %), and the table says so rather than blame a term."""
    notes = _notes("Baseline") + "; NOT packed: padded batches, tokens counted by torchtune may exclude padding"
    assert unmodelled_memory_features(notes, "full_ft", eager_counted=True) == [PADDED_BATCHES]
    assert PADDED_BATCHES not in unmodelled_memory_features(_notes("+ Packed Dataset"), "full_ft", eager_counted=True)
