"""/compare's note where two cards' tokens/s per GPU differ by more than their datasheets: the buyer who reads
8×B200 at 3.6× the tokens/s per GPU of 8×H200, where the B200's bandwidth is 1.67× and its FP8 peak 2.27×, is told why.

At a TPOT limit a decode step pays a part that does not shrink with the batch (reading the weights, fixed host
work), so the card that pays it faster has more of the limit left for requests, and its batch grows by more than its
speed: Llama-3.1-405B FP8 at a 50 ms limit runs batch 18 on 8×H200 and 66 on 8×B200. A card held by memory instead
runs the batch its memory holds. An AMD card against an NVIDIA one is slower than its datasheet by the fitted ROCm
factors (thin evidence: two publications, one of them a stock 2024 vLLM build), and the note says that instead.
Issue 10 asked that the H200-against-B200 answer be plausible; docs/ACCURACY.md's product questions give the same
ratios and reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.hardware.dtypes import dense_peak_tflops, matmul_dtype
from app.scoring.inference.explanation.decode_terms import ROCM_EVIDENCE, evidence_words
from app.scoring.inference.explanation.software_era import era_words
from app.scoring.specs import GpuSpec

# A per-GPU throughput ratio this far past the larger datasheet ratio is explained; below it the note would only
# restate the datasheets (display threshold: it decides whether a note is shown, no estimate reads it).
PAST_DATASHEET = 1.15
ROCM_FACTORS = ("amd_mbu_factor", "amd_mfu_factor")


def _per_gpu(option: dict[str, Any]) -> float:
    return float(option["output_tokens_per_s"]) / int(option["gpu_count"])


def _held_by(option: dict[str, Any]) -> str:
    """'held by the TPOT limit (...)' out of a feasible option's reason, or ''."""
    return next((part for part in str(option.get("reason", "")).split("; ") if part.startswith("held by")), "")


def _amd(gpu: GpuSpec) -> bool:
    """A ROCm software stack (the estimator's amd_mbu_factor and amd_mfu_factor apply)."""
    return gpu.vendor.upper() == "AMD"


def _configuration(option: dict[str, Any]) -> str:
    return f"{option['gpu_count']}×{option['gpu_id']}"


def past_datasheet_note(
    options: Iterable[dict[str, Any] | None], gpus: dict[str, GpuSpec], weight_dtype: str, engine: str
) -> str:
    """Why the fastest and slowest cards per GPU differ by more than PAST_DATASHEET × the larger of their datasheet
    ratios (memory bandwidth, dense peak in the dtype their matmuls run); '' when they do not, or fewer than two
    cards run the question."""
    rows = [o for o in options if o and o.get("feasible") and o.get("output_tokens_per_s") and o["gpu_id"] in gpus]
    if len(rows) < 2:
        return ""
    fast, slow = max(rows, key=_per_gpu), min(rows, key=_per_gpu)
    ratio = _per_gpu(fast) / _per_gpu(slow)
    fast_gpu, slow_gpu = gpus[fast["gpu_id"]], gpus[slow["gpu_id"]]
    bandwidth = fast_gpu.memory_bandwidth_tbs / slow_gpu.memory_bandwidth_tbs
    fast_dtype, slow_dtype = matmul_dtype(fast_gpu, weight_dtype)[0], matmul_dtype(slow_gpu, weight_dtype)[0]
    peak = dense_peak_tflops(fast_gpu, fast_dtype)[0] / dense_peak_tflops(slow_gpu, slow_dtype)[0]
    if ratio <= PAST_DATASHEET * max(bandwidth, peak):
        return ""
    peak_name = fast_dtype.upper() if fast_dtype == slow_dtype else f"{fast_dtype.upper()} against {slow_dtype.upper()}"
    said = (
        f"Per GPU, {_configuration(fast)} serves {ratio:.1f}× the output tokens/s of {_configuration(slow)} "
        f"({_per_gpu(fast):,.0f} against {_per_gpu(slow):,.0f}), past their datasheet ratios (memory bandwidth "
        f"{bandwidth:.2f}×, {peak_name} dense peak {peak:.2f}×): "
    )
    batches = _batches(fast, slow)
    if _amd(slow_gpu) and not _amd(fast_gpu) and engine != "llamacpp":  # llama.cpp has factors of its own
        eff = DEFAULT_EFFICIENCY
        return said + (
            f"the estimate runs ROCm serving stacks at {eff.amd_mbu_factor:g}× the CUDA ones' weight and KV "
            f"streaming and {eff.amd_mfu_factor:g}× their matmul efficiency "
            f"({evidence_words(ROCM_FACTORS)}; {ROCM_EVIDENCE}; {era_words(ROCM_FACTORS)}), so {_configuration(slow)} "
            f"fits fewer requests in the same limits ({_batches(slow, fast)}). A newer ROCm build may do better: no "
            "validation row measures one."
        )
    if _held_by(slow).startswith("held by the TPOT limit"):
        return said + (
            "at the same TPOT limit each decode step pays a part that does not shrink with the batch (reading the "
            f"weights, fixed host work), and the faster card has more of the limit left for requests ({batches}); "
            "under a looser TPOT limit the ratio falls toward the datasheets'."
        )
    return said + f"they run different batches ({batches}): {_configuration(slow)} {_held_by(slow) or 'as solved'}."


def _batches(first: dict[str, Any], second: dict[str, Any]) -> str:
    """`batch 66 on 8×B200 against 18 on 8×H200`: each batch named, since the two run on different GPU counts and a
    sentence may name either card first ("batch 40 against 9" after "1×MI300X fits fewer" read as the MI300X's 40)."""
    one, other = _configuration(first), _configuration(second)
    return f"batch {first['batch']:,} on {one} against {second['batch']:,} on {other}"
