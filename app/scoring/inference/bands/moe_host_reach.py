"""Where the fitted MoE prefill host time is charged beyond the load its evidence spans, and how far the band reaches.

`moe_prefill_layer_ms` (moe_prefill_ms) is fitted on continuous-batching runs in which a prompt joined the
running batch at most once every 16 decode steps: SemiAnalysis InferenceX's SGLang DeepSeek-R1 closed loops (up to 64
clients at 1,024 output tokens: 63 / 1,024 = 0.0615 prompts a step) and the vLLM blog's gpt-oss-20b runs (8 clients
at ~2,000 output tokens: 0.0035); argonne's vLLM Mixtral rows run fixed batches, one prefill a batch. What the
constant stands for is not measured: an H200 timed 0.10-0.32 ms of exposed host time an eager MoE layer where the fit
says 2.24 (docs/measurements/README.md). A chat-shaped workload at a large batch carries a prompt every few steps,
and there the term can take half of each step; whether an engine pays it per prompt there, batches it or hides it
under the step, no public row says. So the estimate keeps the term, and its band reaches the throughput without it.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.explain import fixed
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.host_overheads import moe_prefill_ms

# The most prompts a continuous-batching step carried in a public MoE row on vLLM or SGLang: InferenceX's 64 clients
# at 1,024 output tokens, 63 others' prompts over 1,024 steps, one every 16 steps.
EVIDENCED_PROMPTS_PER_STEP = 1 / 16
# Below this share of the step the term cannot move an answer beyond its band's own width: no note.
NOTABLE_STEP_SHARE = 0.05


def moe_host_reach(
    ctx: InferenceContext, eff: InferenceEfficiency, point: OperatingPoint, tokens_per_s: float
) -> tuple[float, list[str]]:
    """(throughput without the MoE prefill host time, the note saying why) where the step charges it at more prompts
    a step than any public row ran, and it is a notable share of the step; (0.0, []) elsewhere."""
    per_pass_ms = moe_prefill_ms(ctx, eff)
    if per_pass_ms <= 0:  # no MoE prefill host time (a dense model, a compiled engine): nothing to reach
        return 0.0, []
    detail = point.step.breakdown  # built only here (a dataclass of the pass's 13 parts), not for every dense row
    if detail is None or detail.moe_host_ms <= 0:
        return 0.0, []
    passes = detail.moe_host_ms / per_pass_ms
    step_ms = point.step.total_ms
    # total_ms counts each pipeline stage's pass and divides by the tokens a step yields; so does the host time
    host_ms = detail.moe_host_ms * point.step.pipeline_stages / point.step.tokens_per_step
    if passes <= EVIDENCED_PROMPTS_PER_STEP or host_ms < NOTABLE_STEP_SHARE * step_ms or host_ms >= step_ms:
        return 0.0, []
    without = tokens_per_s * step_ms / (step_ms - host_ms)
    steps_per_prompt = 1 / min(passes, 1.0)
    note = (
        f"thin evidence: the MoE prefill host time takes {fixed(host_ms, 1)} ms of each {fixed(step_ms, 1)} ms step "
        f"here, charged for a prompt every {fixed(steps_per_prompt, 1)} steps; it is fitted on runs with a prompt at "
        f"most every {fixed(1 / EVIDENCED_PROMPTS_PER_STEP, 0)} steps (SGLang DeepSeek-R1, vLLM gpt-oss), and whether "
        "an engine pays it per prompt at this load is not measured, so the band reaches the throughput without it "
        f"({fixed(without, 0)} tok/s)"
    )
    return without, [note]
