"""A batch held by the TPOT limit near its floor, said in the estimate's assumptions: where one request in flight
already steps in most of the mean TPOT target, little of each step is left for more requests, so a slightly looser
limit multiplies the batch and the tokens/s. Llama-3.1-405B FP8 on 8×H200 (TensorRT-LLM) runs batch 5 at a 40 ms
TPOT limit and 18 at 50 ms, 2.9× the tokens/s for a limit 1.25× looser; before this the answer at 40 ms said only
"held by the TPOT limit", and a buyer sweeping the limit met the jump unexplained (found by qa35).
"""

from __future__ import annotations

from app.scoring.explain import fixed, percent, significant
from app.scoring.inference.bands.limits import LIMITS_APPLIED, holding_limit_words
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.estimates.results import Solution

# A lone request stepping in at least this share of the mean TPOT target leaves the batch near its floor (decides only
# whether a note is shown: 405B on 8×H200 at 40 ms steps in 0.92 of it, at 50 ms in 0.74, batch 5 and 18).
NEAR_TPOT_FLOOR = 0.8
NEAR_FLOOR_LEAD = "near the TPOT floor: "  # the note's first words: the CLI finds it among the assumptions by them


def near_tpot_floor_note(s: Solution, ttft_p99_ms: float, multiples: tuple[float, float]) -> list[str]:
    """The note, for a latency-bound batch that the TPOT limit holds (not memory, an engine cap or the TTFT limit)
    and whose one request in flight steps in at least NEAR_TPOT_FLOOR of the mean TPOT target; else none."""
    w, eff = s.workload, s.efficiency
    if w.scenario not in LIMITS_APPLIED or s.batch >= s.max_batch or s.batch < 1:
        return []
    if not holding_limit_words(w, eff.slo_tpot_utilisation, ttft_p99_ms, s.point.tpot_ms, multiples).startswith(
        "held by the TPOT limit"
    ):
        return []
    target_ms = eff.slo_tpot_utilisation * w.tpot_limit_ms
    one = operating_point(s.ctx, eff, "latency_bound", 1, w.input_len, w.output_len)
    one_ms = one.tpot_ms * multiples[1]
    if one_ms < NEAR_TPOT_FLOOR * target_ms:
        return []
    return [
        f"{NEAR_FLOOR_LEAD}one request in flight steps in {fixed(one_ms, 1)} ms of the {significant(target_ms, 3)} "
        f"ms mean target ({percent(eff.slo_tpot_utilisation)} of the {significant(w.tpot_ms)} ms p99 limit), so "
        f"little of each step is left for more requests: batch {s.batch:,} here; a slightly looser TPOT limit "
        "multiplies the batch and the tokens/s, a tighter one soon finds no batch"
    ]
