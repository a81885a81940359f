"""A catalog GPU with a gap the estimator needs (no published compute peak, or a scale-up board without a published
link bandwidth) borrows the figure from GPUs of its own architecture, once, where the catalog is read.

Both estimators run on the filled spec, and its `gap_note` says what was borrowed: the H100 SXM 96GB HBM2e of
torchtitan's notes (peaks "between H100 SXM and H100 NVL", not published) had been priced at 1 TFLOPS by inference
while training borrowed its siblings' peaks. Pure functions.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import replace

from app.scoring.specs import GpuSpec

PEAKS_BORROWED = "peaks unknown"  # how a note of borrowed peaks opens (borrowed_peaks reads it back)


def borrowed_peaks(gpu: GpuSpec) -> str:
    """The part of the GPU's gap note that says its peaks were borrowed ("" when they are its own)."""
    first = gpu.gap_note.split("; ")[0]
    return first if first.startswith(PEAKS_BORROWED) else ""


def fill_catalog_gaps(gpus: dict[str, GpuSpec]) -> dict[str, GpuSpec]:
    """Every GPU of the catalog with its gaps filled from the others as published (never from a filled one)."""
    return {gpu_id: fill_missing_peaks(gpu, gpus)[0] for gpu_id, gpu in gpus.items()}


def fill_missing_peaks(gpu: GpuSpec, gpus: dict[str, GpuSpec]) -> tuple[GpuSpec, str]:
    """A GPU without published peaks borrows the median peaks of GPUs of the same architecture; one with a
    scale-up domain (NVLink/xGMI board) but no published link bandwidth borrows the median bandwidth of the
    same-architecture GPUs that have a scale-up domain (else its collectives would be priced at PCIe speed).
    A spec filled already comes back as it is, with its note."""
    if gpu.gap_note:
        return gpu, gpu.gap_note
    gpu, link_note = _fill_missing_link(gpu, gpus)
    peak_note = ""
    if not (gpu.bf16_tflops or gpu.fp16_tflops or gpu.fp32_tflops):
        siblings = [g for g in gpus.values() if g.architecture == gpu.architecture and g.bf16_tflops]
        if siblings:
            gpu = replace(
                gpu,
                fp32_tflops=_median_peak(siblings, lambda g: g.fp32_tflops),
                tf32_tflops=_median_peak(siblings, lambda g: g.tf32_tflops),
                bf16_tflops=_median_peak(siblings, lambda g: g.bf16_tflops),
                fp16_tflops=_median_peak(siblings, lambda g: g.fp16_tflops),
                fp8_tflops=_median_peak(siblings, lambda g: g.fp8_tflops),
                int8_tops=_median_peak(siblings, lambda g: g.int8_tops),  # INT8 W8A8's peak
            )
            peak_note = f"{PEAKS_BORROWED}: median of {len(siblings)} {gpu.architecture} GPUs used"
    note = "; ".join(n for n in (peak_note, link_note) if n)
    return (replace(gpu, gap_note=note) if note else gpu), note


def _fill_missing_link(gpu: GpuSpec, gpus: dict[str, GpuSpec]) -> tuple[GpuSpec, str]:
    if gpu.scaleup_domain_gpus <= 1 or gpu.interconnect_gbs:
        return gpu, ""
    siblings = [
        g
        for g in gpus.values()
        if g.architecture == gpu.architecture and g.scaleup_domain_gpus > 1 and g.interconnect_gbs
    ]
    if not siblings:
        return gpu, ""
    link = _median_peak(siblings, lambda g: g.interconnect_gbs)
    note = f"scale-up bandwidth unknown: median of {len(siblings)} {gpu.architecture} boards used"
    return replace(gpu, interconnect_gbs=link), note


def _median_peak(siblings: list[GpuSpec], peak: Callable[[GpuSpec], float | None]) -> float | None:
    """Lower median of one peak over the siblings (unknown counted as 0); None when that median is 0."""
    return statistics.median_low([peak(g) or 0.0 for g in siblings]) or None
