"""A catalog GPU without a figure the estimator needs borrows it from its architecture's GPUs, once, where the catalog
is read, so inference and training price it alike and say so."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.gpu_gaps import fill_catalog_gaps, fill_missing_peaks
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
HBM2E = "H100-SXM-HBM2E-96GB"  # torchtitan's 500 W H100: peaks not published (the reference leaves them empty)


def test_a_gpu_without_published_peaks_is_served_at_its_architectures_median_peak() -> None:
    gpu = GPUS[HBM2E]
    hopper = sorted(g.bf16_tflops for g in GPUS.values() if g.architecture == gpu.architecture and g.id != HBM2E)
    assert gpu.bf16_tflops == hopper[(len(hopper) - 1) // 2] and gpu.fp8_tflops
    assert gpu.int8_tops == gpu.fp8_tflops  # INT8 W8A8's peak too (Hopper's INT8 and FP8 peaks are equal)
    assert gpu.gap_note.startswith("peaks unknown: median of")
    workload = InferenceWorkload(model="llama-3.1-8b")
    borrowed = estimate_inference(gpu, 1, MODELS["llama-3.1-8b"], workload)
    h100 = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], workload)
    # it had run at 1 TFLOPS: prefill 1,000x slow, ~20 output tokens/s where an H100 SXM gives thousands
    assert 0.5 < borrowed.output_tokens_per_s_per_gpu / h100.output_tokens_per_s_per_gpu < 1.2
    assert any("peaks unknown" in a for a in borrowed.assumptions)


def test_filling_is_idempotent_and_uses_only_published_figures() -> None:
    again = fill_catalog_gaps(GPUS)
    assert again == GPUS
    gpu, note = fill_missing_peaks(GPUS[HBM2E], GPUS)
    assert gpu is GPUS[HBM2E] and note == GPUS[HBM2E].gap_note
    assert not GPUS["H100-SXM"].gap_note and not GPUS["RTX-4090"].gap_note


def test_a_board_without_a_published_link_borrows_its_architectures_scale_up_bandwidth() -> None:
    mi350x = GPUS["MI350X"]
    assert mi350x.scaleup_domain_gpus > 1 and mi350x.interconnect_gbs == GPUS["MI355X"].interconnect_gbs
    assert "scale-up bandwidth unknown" in mi350x.gap_note
