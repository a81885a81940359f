"""Request lengths a model's context holds, for a link that asks about a model without lengths of its own: the form's
defaults (2,000 + 400 tokens) overflow a 2,048-token model (BLOOM, OPT, LLaMA v1), so such a link led to a 422."""

from __future__ import annotations

from app.scoring.workload import InferenceWorkload


def lengths_within(context: int | None) -> dict[str, int]:
    """{} where the default lengths fit the context (or it is unknown); else the default output and the prompt that
    fills the rest (a quarter of the context for the output where the default is half of it or more)."""
    defaults = InferenceWorkload()
    if not context or defaults.input_len + defaults.output_len <= context:
        return {}
    output_len = defaults.output_len if defaults.output_len < context // 2 else max(context // 4, 1)
    return {"input_len": context - output_len, "output_len": output_len}
