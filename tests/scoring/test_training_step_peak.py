"""Training memory peaks by phase (found by peak): the need was model states + activations + logits summed, as if the
gradients, every stored activation and the loss's logits were live at one moment. It is now the larger of the
backward's start (gradients held only where the stack keeps them between steps) and the optimizer step (every
gradient, no activations, the update's temporaries)."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout, memory_breakdown_gb, memory_needed_gb, runtime_reserve_gb
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.step_peak import StepPeak, workload_peak
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
PARTS = ("model_states", "live_params", "activations", "logits")


def _parts(w: TrainingWorkload, layout: Layout, gpu_count: int) -> dict[str, float]:
    model = MODELS[w.model]
    return memory_breakdown_gb(
        model, w.method, w.seq_len, layout, gpu_count, w.lora_rank, framework=w.framework, recipe=state_recipe(w)
    )


def _need(w: TrainingWorkload, layout: Layout, gpu_count: int) -> float:
    return memory_needed_gb(_parts(w, layout, gpu_count), workload_peak(MODELS[w.model], w, layout, gpu_count))


def _sum(w: TrainingWorkload, layout: Layout, gpu_count: int) -> float:
    parts = _parts(w, layout, gpu_count)
    return sum(parts[k] for k in PARTS)


def _w(**fields) -> TrainingWorkload:
    return TrainingWorkload(**{"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 8192, **fields})


def test_fsdp2_without_accumulation_holds_no_gradients_at_the_backward_start() -> None:
    """torchtitan FSDP2 over 8, one micro-batch per replica a step: the peak is the sum less the 2 B/param gradients."""
    w, layout = _w(framework="torchtitan", global_batch_seqs=8), Layout(3, recompute="selective")
    grads_gb = MODELS[w.model].params_b * 2 / 8
    assert _need(w, layout, 8) == pytest.approx(_sum(w, layout, 8) - grads_gb, rel=1e-9)


@pytest.mark.parametrize(
    ("why", "fields", "layout"),
    [
        ("accumulation adds micro-batches into them", {"framework": "torchtitan", "global_batch_seqs": 64}, Layout(3)),
        ("a DDP reducer's buckets hold them", {"framework": "pytorch", "global_batch_seqs": 8}, Layout(0)),
        ("Megatron's contiguous grad buffer", {"framework": "megatron", "global_batch_seqs": 8}, Layout(3)),
        ("auto on the safe side", {"framework": "auto", "global_batch_seqs": 8}, Layout(3)),
    ],
)
def test_gradients_that_persist_leave_the_backward_start_the_old_sum(why: str, fields: dict, layout: Layout) -> None:
    w = _w(model="llama-3.2-1b", seq_len=4096, **fields)
    peak = workload_peak(MODELS[w.model], w, layout, 8)
    assert peak.grads_persist, why
    assert peak.backward_start_gb(_parts(w, layout, 8)) == _sum(w, layout, 8)


def test_the_optimizer_step_peaks_where_the_update_outweighs_activations_and_logits() -> None:
    """LLM Foundry's foreach AdamW on one GPU, short sequences: states + one fp32 second moment (4 B/param) beat the
    start."""
    w = _w(model="llama-3.2-1b", seq_len=128, global_batch_seqs=1, framework="llm-foundry")
    layout = Layout(0, recompute="full")
    model, parts = MODELS[w.model], _parts(w, layout, 1)
    peak = workload_peak(model, w, layout, 1)
    assert peak.at_optimizer_step(parts)
    assert peak.optimizer_temporary_gb == pytest.approx(model.params_b * 4)
    assert _need(w, layout, 1) == pytest.approx(parts["model_states"] + parts["live_params"] + model.params_b * 4)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"framework": "megatron"}, "fused AdamW kernel"),
        ({"framework": "pytorch"}, "torchtune's configs: fused=True"),
        ({"framework": "hf"}, "HF Trainer's default adamw_torch_fused"),
        ({"framework": "llm-foundry", "optimizer": "adamw_8bit"}, "8-bit blockwise update"),
        ({"framework": "llm-foundry", "offload": "cpu"}, "the update runs on the CPU"),
    ],
)
def test_fused_8bit_and_offloaded_updates_allocate_no_temporaries(fields: dict, why: str) -> None:
    w = _w(global_batch_seqs=8, **fields)
    assert workload_peak(MODELS[w.model], w, Layout(0), 1).optimizer_temporary_gb == 0, why


def test_foreach_temporaries_are_sharded_as_the_optimizer_states() -> None:
    w, model = _w(framework="llm-foundry", global_batch_seqs=64), MODELS["llama-3.1-8b"]
    ddp, zero1 = (workload_peak(model, w, Layout(stage), 8).optimizer_temporary_gb for stage in (0, 1))
    assert ddp == pytest.approx(model.params_b * 4) and zero1 == pytest.approx(ddp / 8)


def test_the_estimate_and_its_step_peak_line_report_the_need_the_fit_judged() -> None:
    w = _w(framework="torchtitan", global_batch_seqs=8)
    layout = Layout(3, recompute="selective")
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS[w.model], w, layout)
    line = next(t for t in est.terms if t.name == "memory: step peak")
    assert est.memory_per_gpu_gb - runtime_reserve_gb(8) == pytest.approx(_need(w, layout, 8), rel=1e-12)
    assert line.value == pytest.approx(_need(w, layout, 8), rel=1e-12)
    assert line.detail.split(";")[1].strip().startswith("the start of the backward is the step's fullest moment")
    assert "gradients freed" in line.detail and "frees every gradient between steps" in line.detail


@pytest.mark.parametrize(
    ("peak", "moment"),
    [
        (StepPeak(gradients_gb=16.0, grads_persist=False, optimizer_temporary_gb=0.0), "backward"),
        (StepPeak(gradients_gb=16.0, grads_persist=True, optimizer_temporary_gb=32.0), "optimizer"),
    ],
)
def test_the_parts_at_the_peak_sum_to_the_need_plus_the_reserve(peak: StepPeak, moment: str) -> None:
    """qa34: a memory chart stacked the parts at their largest, not the moment the need is."""
    breakdown = {"model_states": 128.0, "live_params": 1.0, "activations": 20.0, "logits": 6.0, "runtime_reserve": 0.8}
    parts = peak.parts_gb(breakdown)
    assert sum(parts.values()) == pytest.approx(peak.needed_gb(breakdown) + 0.8)
    if moment == "backward":  # the freed gradients are not yet back; no update runs
        assert parts["model_states"] == 112.0 and parts["optimizer_temporaries"] == 0.0 and parts["logits"] == 6.0
    else:  # activations and logits are gone by the update
        assert parts["model_states"] == 128.0 and parts["optimizer_temporaries"] == 32.0
        assert parts["activations"] == parts["logits"] == 0.0


def test_a_no_fit_reason_names_the_optimizer_step_and_its_foreach_temporary() -> None:
    """qa34: 70B full FT with foreach AdamW on 8×B200 needs 180 GB at its optimizer step (141 GB model states + 35 GB of
    the temporary), which no split of activations shrinks: LLM Foundry's foreach AdamW (its stack's default) says so."""
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework="llm-foundry")
    reason = estimate_training(GPUS["B200"], 8, MODELS["llama-3.1-70b"], w).reason
    assert "needs 180 GB per GPU at its optimizer step (35 GB of it foreach AdamW's temporary)" in reason
    titan = w.model_copy(update={"model": "llama-3.1-8b", "framework": "torchtitan"})
    fused = estimate_training(GPUS["H200"], 1, MODELS["llama-3.1-8b"], titan).reason
    assert "at its optimizer step" not in fused and "needs 137 GB per GPU but gives 129 GB usable" in fused


@pytest.mark.parametrize("framework", ["pytorch", "hf"])
def test_stacks_whose_default_adamw_is_fused_fit_70b_full_ft_on_8_b200(framework: str) -> None:
    """qamem: torchtune's configs set fused=True and HF Trainer defaults to adamw_torch_fused (torch 2.8+); charged
    foreach AdamW's 35 GB temporary, 70B full FT on 8×B200 took 16 GPUs for both. Fused, FSDP ×8 fits."""
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework=framework)
    est = estimate_training(GPUS["B200"], 8, MODELS["llama-3.1-70b"], w)
    assert est.fits and est.layout is not None and est.layout.zero_stage == 3
    assert est.memory_at_peak_gb["optimizer_temporaries"] == 0.0
