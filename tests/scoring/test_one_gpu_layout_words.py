"""A single GPU's training layout reads "one GPU", not "DDP ×1" (found by qa39: no data parallelism runs there)."""

from __future__ import annotations

from app.scoring.training.layouts.memory import Layout


def test_one_gpu_layout_says_one_gpu_not_ddp_times_one() -> None:
    assert Layout(0).describe(1) == "one GPU, no recompute"
    assert Layout(3).describe(1) == "FSDP on one GPU, no recompute"
    assert Layout(0).describe(8) == "DDP ×8, no recompute"  # data parallel over several GPUs keeps its name
    assert Layout(1, 2, 1, "none").describe(2) == "TP2, no recompute"
