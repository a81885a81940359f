"""docs/ACCURACY.md's "Training memory against published peaks": the summary of the runs whose notes publish a peak
memory per GPU, then every run, its peak as published and the estimator's memory for the same setup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.calibration.training.published_memory import QUANTITIES
from app.calibration.validation.memory_summary import MEMORY_WITHIN_PCT, run_id
from app.cli.tables.writer import table

INTRO = (
    "Each run below publishes its peak memory per GPU in its notes (its tokens/s and step-time rows share it). "
    "Predicted: the memory the estimator sizes that run at, with the layout, recompute, optimizer, offload and batch "
    "its tokens/s prediction uses, at its step's fullest moment (the backward's start or the optimizer step: "
    "step_peak.StepPeak), without the runtime reserve, which the allocator's peaks do not count either; a cumulative "
    "table's row above its chunked loss with an unfused one; activations as the stack's eager layer stores them "
    "(torchtune, HF Trainer), a row that ran compiled or on XTuner's fused kernels with the fused count; activation "
    "offloading and the optimizer step in the backward, where a run states them, with the workload's options of "
    "those names (activation_offload, optimizer_in_backward), and a CPU offload on FSDP as FSDP's (offload "
    "cpu_weights: the weights' shards in host memory); not modelled: what the run stated that the prediction sizes "
    "without (a technique its stack takes no option for). Published "
    "GiB are read as 2^30 bytes, torchtitan's "
    "logged peaks as GiB whatever the heading says; all sizes here are 10^9 bytes. Which peak each source measured:"
)
HEADERS = (
    "run",
    "source",
    "gpu",
    "layout",
    "published",
    "peak",
    "published GB",
    "predicted GB",
    "error %",
    "not modelled",
)


def _pct(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def _runs(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first covered case of each run with a published peak, in file order."""
    seen: dict[str, dict[str, Any]] = {}
    for case in cases:
        if "memory_measured_gb" in case:
            seen.setdefault(run_id(case["case_id"]), case)
    return list(seen.values())


def _row(run: str, case: dict[str, Any]) -> list[Any]:
    measured, predicted = case["memory_measured_gb"], case["memory_predicted_gb"]
    error = (predicted - measured) / measured * 100
    return [
        run,
        case["source"],
        case["gpu"],
        case["memory_layout"],
        case["memory_published"],
        case["memory_quantity"],
        f"{measured:.1f}",
        f"{predicted:.1f}",
        f"{error:+.1f}",
        case.get("memory_unmodelled") or "",
    ]


def memory_section(memory: dict[str, Any], cases: Sequence[dict[str, Any]]) -> str:
    """The section in Markdown: what was compared, the summary line, and every run."""
    kinds = "\n".join(f"- {name}: {words}" for name, words in QUANTITIES.items())
    share = memory["within_15pct_share"]
    summary = table(
        ("runs", "median abs error %", "bias (signed median) %", f"within ±{MEMORY_WITHIN_PCT:g} %"),
        [
            [
                memory["rows"],
                _pct(memory["median_abs_pct_error"]),
                _pct(memory["signed_median_pct_error"]),
                _pct(None if share is None else share * 100),
            ]
        ],
        markdown=True,
    )
    rows = [_row(run_id(c["case_id"]), c) for c in _runs(cases)]
    return (
        f"## Training memory against published peaks\n\n{INTRO}\n\n{kinds}\n\n{summary}\n\n"
        f"<details><summary>Every run</summary>\n\n{table(HEADERS, rows, markdown=True)}\n\n</details>"
    )
