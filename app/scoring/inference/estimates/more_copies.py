"""An overloaded fixed load's refusal says where more copies of a smaller layout on the same rented instance keep up
with more requests/s together (found by left34: one TP8 copy 'keeps up with 22.6 requests/s' where the instance's
eight 1-GPU copies keep up with more, an answer the ranking had already solved)."""

from __future__ import annotations

from dataclasses import replace

from app.scoring.explain import WrittenOnce, read_once, significant
from app.scoring.hardware.machines import Machine
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.estimates.spread_load import spread_copies
from app.scoring.workload import InferenceWorkload


def _layout_words(refusal: InferenceEstimate) -> str:
    if refusal.pipeline_parallel > 1:
        return f"TP{refusal.tensor_parallel}×PP{refusal.pipeline_parallel}"
    return f"TP{refusal.tensor_parallel}" if refusal.tensor_parallel > 1 else "1 GPU"


def _below(rate: float, asked: float) -> str:
    """`rate` to 3 significant digits, more where those round it up to the rate asked (19.98 of 20 is not '20')."""
    for digits in range(3, 8):
        text = significant(rate, digits)
        if float(text.replace(",", "")) < asked:
            return text
    return text


def with_more_copies_rate(
    shown: InferenceEstimate, refused: list[InferenceEstimate], machine: Machine, workload: InferenceWorkload
) -> InferenceEstimate:
    """`shown` (an overloaded refusal) with the requests/s the instance's copies of another of the `refused` layouts
    keep up with together, where more copies keep up with more than the shown layout's copies; else `shown`."""
    if shown.keeps_up_with_per_s is None:
        return shown

    def copies(refusal: InferenceEstimate) -> int:
        return spread_copies(machine, workload, refusal.gpu_count)

    def together(refusal: InferenceEstimate) -> float:
        return (refusal.keeps_up_with_per_s or 0.0) * copies(refusal)

    overloaded = [r for r in refused if r.keeps_up_with_per_s is not None]
    more = [r for r in overloaded if copies(r) > copies(shown) and together(r) > together(shown)]
    if not more:
        return shown
    best = max(more, key=together)
    extra = (
        f"; {copies(best)} copies of {_layout_words(best)} on the rented {machine.instance_gpus}-GPU instance would "
        f"keep up with {_below(together(best), workload.requests_per_s or 0.0)} requests/s together"
    )
    words = shown.reason_words
    return replace(shown, reason_words=WrittenOnce(lambda: read_once(words) + extra))
