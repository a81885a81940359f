"""A number field typed as no number in the field's own terms: `seq_len=4k` "must be a whole number of tokens, e.g.
4096", not pydantic's "Input should be a valid integer, unable to parse string as an integer" (found by canon2).

The unit is the one the field's name carries (bound_words.UNIT_BY_ENDING), or the noun a few unitless counts count
(NOUN_BY_FIELD); the example is the form's default for the common fields (EXAMPLE_BY_FIELD). A field with neither
says "must be a whole number" or "must be a number" alone.
"""

from __future__ import annotations

from typing import Any

from app.scoring.input_checks.bound_words import UNIT_BY_ENDING

# pydantic's error types for a value that is not a number of the field's kind -> what the field takes
NUMBER_KINDS = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "int_type": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
}
# What a unitless count counts (the field descriptions' words: app/scoring/workload)
NOUN_BY_FIELD = {
    "global_batch_seqs": "sequences",
    "batch": "sequences",
    "max_num_seqs": "sequences",
    "concurrency": "requests in flight",
    "peak_concurrency": "requests in flight",
    "job_requests": "requests",
    "beam_width": "beams",
    "spec_draft_tokens": "tokens",
    "months": "months",
}
# A value to copy, for the fields a buyer types most: the forms' defaults (InferenceWorkload, TrainingWorkload)
EXAMPLE_BY_FIELD = {
    "input_len": "2000",
    "output_len": "400",
    "seq_len": "4096",
    "ttft_ms": "1000",
    "tpot_ms": "50",
    "max_gpus": "64",
    "gpu_count": "8",
    "global_batch_seqs": "64",
    "total_tokens": "2e9",
    "lora_rank": "16",
    "max_days": "30",
    "requests_per_s": "10",
    "concurrency": "32",
    "budget_usd": "50000",
}


def unit_noun(field: str) -> str | None:
    """What a number of the field counts or measures, from its name: "tokens" (seq_len), "ms" (ttft_ms), "dollars
    per hour" (usd_per_hour); None for a name with no unit in it."""
    if field in NOUN_BY_FIELD:
        return NOUN_BY_FIELD[field]
    for ending, unit in UNIT_BY_ENDING:
        if field == ending.lstrip("_") or field.endswith(ending):
            words = unit.replace("${}", "dollars").replace("{}", "").strip()
            return words
    return None


def type_message(error: Any) -> str | None:
    """A not-a-number error's message in the field's terms ("must be a whole number of tokens, e.g. 4096"); None
    where the error is of another kind (pydantic's or another check's words then stand)."""
    kind = NUMBER_KINDS.get(error.get("type"))
    if kind is None:
        return None
    loc = [str(part) for part in error.get("loc", ()) if not isinstance(part, int)]
    field = loc[-1] if loc else ""
    unit = unit_noun(field)
    example = EXAMPLE_BY_FIELD.get(field)
    message = f"must be {kind}" + (f" of {unit}" if unit else "")
    return f"{message}, e.g. {example}" if example else message


# pydantic's errors for a value of the wrong JSON shape -> what the field takes ({list} an example list for the field)
SHAPE_WORDS = {
    "list_type": "must be a JSON list, one value too: {list}",
    "string_type": "must be text, in quotes",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "model_attributes_type": "must be a JSON object of fields, {{…}}",
    "dict_type": "must be a JSON object, {{…}}",
}
LIST_EXAMPLE_BY_FIELD = {
    "gpus": '["H100-SXM"]',
    "providers": '["lambda"]',
    "vendors": '["NVIDIA"]',
    "price_types": '["on_demand"]',
    "mix": '[{"shape": "chat", "share": 1}]',
}


def shape_message(error: Any) -> str | None:
    """A value of the wrong JSON shape (`"gpus": "H100-SXM"`, `"model": 123`, an empty id) in words, not pydantic's
    "Input should be a valid list"; None for another error (found by qa41)."""
    kind = error.get("type")
    if kind == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
        return "must not be empty"
    words = SHAPE_WORDS.get(kind)
    if words is None:
        return None
    loc = [str(part) for part in error.get("loc", ()) if not isinstance(part, int)]
    return words.format(list=LIST_EXAMPLE_BY_FIELD.get(loc[-1] if loc else "", '["…"]'))
