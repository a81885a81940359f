"""Training memory against published peaks: the notes reader, the prediction for a row, and the validator's report."""

import csv
from dataclasses import asdict

import pytest

from app.calibration.training.published_memory import published_peak
from app.calibration.training.training_notes import era_efficiency
from app.calibration.training.validate_training import predict_estimate, predict_training_case
from app.calibration.validation.memory_summary import memory_fields
from app.calibration.validation.validate import validate_file
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.cli.accuracy.memory_section import memory_section
from app.scoring.efficiency import training as eff
from app.scoring.training.layouts.memory import memory_breakdown_gb, memory_needed_gb, runtime_reserve_gb
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.step_peak import workload_peak

GIB_IN_GB = 2**30 / 1e9

TORCHTITAN_ROW = {
    "case_id": "nt-90001-1",
    "source": "torchao-float8-readme",
    "framework": "torchtitan",
    "gpu": "H100-SXM",
    "gpu_count": "8",
    "model": "llama-3-8b",
    "method": "pretrain",
    "precision": "bf16",
    "seq_len": "8192",
    "global_batch_seqs": "8",
    "metric": "tokens_s_per_gpu",
    "value": "6150",
    "notes": "median tokens/second; framework: torchtitan, FSDP2, torch.compile, per-op SAC, local bs 1; "
    "recipe: none (bfloat16); peak mem 47.65 GB; model 'Llama3-8b'",
}
TORCHTUNE_ROW = {
    **TORCHTITAN_ROW,
    "case_id": "nt-90002-1",
    "source": "torchtune-readme",
    "framework": "pytorch",
    "gpu": "A100-SXM-80GB",
    "gpu_count": "1",
    "model": "llama-3.2-3b",
    "method": "full_ft",
    "seq_len": "4096",
    "global_batch_seqs": "2",
    "value": "7210",
    "notes": "Tokens Per Second as published; framework: torchtune single device; batch 2, max seq 4096, bf16, "
    "activation checkpointing True; peak active mem 24.9 GiB",
}


def test_torchtitan_peaks_are_its_logged_reserved_gib_whatever_the_heading():
    peak = published_peak(TORCHTITAN_ROW)
    assert peak is not None and peak.quantity == "reserved" and peak.as_written == "47.65 GB"
    assert peak.gb == pytest.approx(47.65 * GIB_IN_GB)


def test_torchtune_peaks_keep_their_unit_and_say_which_peak():
    active = published_peak(TORCHTUNE_ROW)
    assert active is not None and active.quantity == "active" and active.gb == pytest.approx(24.9 * GIB_IN_GB)
    per_gpu = published_peak({"framework": "pytorch", "notes": "torch.compile; peak mem/GPU 18.9 GiB; bf16"})
    assert per_gpu is not None and per_gpu.quantity == "unstated" and per_gpu.gb == pytest.approx(18.9 * GIB_IN_GB)
    decimal = published_peak({"framework": "pytorch", "notes": "peak mem/GPU 44.8 GB; precision bf16"})
    assert decimal is not None and decimal.gb == pytest.approx(44.8) and decimal.as_written == "44.8 GB"


def test_notes_about_memory_without_a_peak_publish_none():
    for notes in ("per-device batch 7 (fits only with reduced memory fraction)", "2048 A100 GPU with 80GB of RAM", ""):
        assert published_peak({"framework": "maxtext", "notes": notes}) is None


@pytest.mark.parametrize("row", [TORCHTITAN_ROW, TORCHTUNE_ROW], ids=["torchtitan", "torchtune"])
def test_the_prediction_is_the_step_peak_of_the_rows_layout_without_the_reserve(row):
    gpus, models = load_gpu_specs(), load_model_specs()
    case = predict_training_case(row, gpus, models)
    est, gpu, model, w = predict_estimate(row, gpus, models)
    assert case.covered and case.memory is not None and est.layout is not None
    n = int(row["gpu_count"])
    e = era_efficiency(row, eff.DEFAULT_TRAINING_EFFICIENCY)
    parts = memory_breakdown_gb(model, w.method, w.seq_len, est.layout, n, w.lora_rank, e, w.framework, state_recipe(w))
    need = memory_needed_gb(parts, workload_peak(model, w, est.layout, n))  # the step's peak, not the sum
    assert need < sum(parts.values()) - runtime_reserve_gb(n)  # both free their gradients between steps
    assert case.memory.predicted_gb == pytest.approx(need, rel=1e-12)
    assert case.memory.predicted_gb == pytest.approx(est.memory_per_gpu_gb - runtime_reserve_gb(n), rel=1e-12)
    assert case.memory.layout == est.layout_text
    assert case.memory.measured_gb == published_peak(row).gb


def test_a_row_without_a_peak_carries_no_memory():
    gpus, models = load_gpu_specs(), load_model_specs()
    row = dict(TORCHTITAN_ROW, notes="framework: torchtitan, FSDP2, per-op SAC, local bs 1")
    case = predict_training_case(row, gpus, models)
    assert case.covered and case.memory is None


def test_validate_reports_memory_per_covered_row_and_summarises_each_run_once(tmp_path):
    rows = [
        TORCHTITAN_ROW,
        dict(TORCHTITAN_ROW, case_id="nt-90001-2", metric="step_time_s", value="1.332"),
        TORCHTUNE_ROW,
        dict(TORCHTUNE_ROW, case_id="nt-90003-1", notes="framework: torchtune single device; batch 2"),
    ]
    path = tmp_path / "training_cases.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(TORCHTITAN_ROW))
        writer.writeheader()
        writer.writerows(rows)
    result = validate_file(path, load_gpu_specs(), load_model_specs(), loso=False)
    cases = {c["case_id"]: c for c in result["cases"]}
    with_peak = [c for c in result["cases"] if "memory_measured_gb" in c]
    assert [c["case_id"] for c in with_peak] == ["nt-90001-1", "nt-90001-2", "nt-90002-1"]
    assert "memory_predicted_gb" not in cases["nt-90003-1"]
    memory = result["summary"]["memory"]
    assert memory["rows"] == 2  # the torchtitan run's two rows share one peak
    errors = sorted(
        (c["memory_predicted_gb"] - c["memory_measured_gb"]) / c["memory_measured_gb"] * 100
        for c in (cases["nt-90001-1"], cases["nt-90002-1"])
    )
    assert memory["median_abs_pct_error"] == pytest.approx(sum(abs(e) for e in errors) / 2)
    assert memory["signed_median_pct_error"] == pytest.approx(sum(errors) / 2)
    assert set(memory["fields"]) >= {"memory_measured_gb", "memory_predicted_gb"}
    section = memory_section(memory, result["cases"])
    assert "## Training memory against published peaks" in section
    assert section.count("| nt-90001 |") == 1 and section.count("| nt-90002 |") == 1
    assert "47.65 GB" in section and "24.9 GiB" in section


def test_the_torchtune_ladder_is_sized_at_the_batch_it_states_per_device():
    """ "batch 2" on one GPU with a global batch of 2: sized at micro-batch 2 (no accumulation), not the micro-batch 1
    x 2 accumulation a layout search picks, and without checkpointing above the table's "+ Activation Checkpointing"
    row. At micro-batch 1 the "+ Packed Dataset" row read 40.8 GB against its 60.0 GiB active peak."""
    gpus, models = load_gpu_specs(), load_model_specs()
    row = dict(
        TORCHTUNE_ROW,
        notes="framework: torchtune single device; Optimization-flags table, cumulative technique '+ Packed Dataset'; "
        "batch 2, max seq 4096, bf16; peak active mem 60.0 GiB; techniques above it in the cumulative table: Baseline",
    )
    est = predict_estimate(row, gpus, models)[0]
    assert est.layout is not None and (est.layout.micro_batch_seqs, est.layout.recompute) == (2, "none")
    memory = predict_training_case(row, gpus, models).memory
    assert memory is not None and 0.8 * memory.measured_gb < memory.predicted_gb < memory.measured_gb


FSDP_OFFLOAD_ROW = {
    **TORCHTUNE_ROW,
    "case_id": "nt-90004-1",
    "gpu_count": "8",
    "model": "llama-3.1-70b",
    "seq_len": "2048",
    "global_batch_seqs": "",
    "value": "196",
    "notes": "framework: torchtune; batch size 2 without grad accumulation, torch.compile; "
    "peak mem/GPU 13.9 GiB (CPU offload with fused optimizer)",
}


@pytest.mark.parametrize(
    ("row", "fsdp"),
    [
        (FSDP_OFFLOAD_ROW, True),  # torchtune's CPU offload is FSDP's: the sharded weights go to host memory too
        ({**FSDP_OFFLOAD_ROW, "framework": "hf", "notes": FSDP_OFFLOAD_ROW["notes"].replace("torchtune", "HF")}, False),
    ],
)
def test_fsdp_cpu_offload_sizes_the_weights_in_host_memory(row, fsdp):
    """qamem said torchtune's CPU offload (fsdp_cpu_offload: FSDP's CPUOffloadPolicy) was not modelled (nt-00044
    +108 %); trainmem sizes its memory with offload cpu_weights: the FSDP shards of the weights leave the GPU, only the
    gathered layers stay. DeepSpeed's offload_optimizer (hf) is the product's offload cpu and keeps its weights."""
    gpus, models = load_gpu_specs(), load_model_specs()
    case = predict_training_case(row, gpus, models)
    assert case.covered and case.memory is not None and case.memory.unmodelled == ""
    est = predict_estimate(row, gpus, models)[0]
    weights_gb = est.memory_breakdown_gb["model_states"]  # offload cpu: the bf16 weight shard stays
    kept_gb = est.memory_per_gpu_gb - runtime_reserve_gb(est.gpu_count)
    assert case.memory.predicted_gb == pytest.approx(kept_gb - weights_gb if fsdp else kept_gb)
    assert ("memory sized as FSDP's CPU offload of the weights" in case.reason) is fsdp
    flat = {"case_id": case.case_id, "source": case.source, "gpu": case.gpu, **memory_fields(asdict(case.memory))}
    summary = {"rows": 1, "median_abs_pct_error": 1.0, "signed_median_pct_error": 1.0, "within_15pct_share": 0.0}
    line = next(x for x in memory_section(summary, [flat]).splitlines() if x.startswith("| nt-90004 |"))
    assert line.endswith("|  |")
