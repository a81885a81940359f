"""Why a /mix bucket does not fit the model's context, in the mix's own terms: a bucket is a named shape or
INPUTxOUTPUT lengths, never the input_len and output_len fields a ranking's context error names."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.scoring.serving.mix.question import LengthBucket, MixQuestion, parse_buckets
from app.scoring.serving.mix.request_shapes import SHAPES
from app.scoring.specs import ModelSpec

_BUCKETS = TypeAdapter(list[LengthBucket])


def fitting_example(context: int, output_len: int, share: str) -> str:
    """Lengths that fit the context, keeping the bucket's output where it leaves room for a prompt (`1866x182:1`)."""
    out = output_len if output_len < context else context // 4
    return f"{max(context - out, 1)}x{max(out, 1)}:{share}"


def beyond_context_message(bucket: LengthBucket, model: ModelSpec) -> str:
    """`bucket rag: …`, naming the shape's sourced lengths or the bucket's own, and what to change in the mix."""
    assert bucket.input_len is not None and bucket.output_len is not None and model.max_context is not None
    context, total = model.max_context, bucket.input_len + bucket.output_len
    lengths = f"{bucket.input_len:,} prompt + {bucket.output_len:,} output = {total:,} tokens"
    share = bucket.spelled().rpartition(":")[2]
    example = fitting_example(context, bucket.output_len, share)
    head = f"bucket {bucket.name}: "
    if bucket.shape is not None:
        shape = SHAPES[bucket.shape]
        return (
            f"{head}the {shape.key} shape's request, {total:,} tokens ({shape.source}), exceeds {model.name}'s "
            f"context of {context:,} tokens, and a named shape's lengths are fixed: replace {bucket.spelled()} with "
            f"lengths that fit (INPUTxOUTPUT:SHARE, e.g. {example}), drop it from the mix, or choose a model with a "
            "longer context"
        )
    return (
        f"{head}its requests ({lengths}) exceed {model.name}'s context of {context:,} tokens: shorten the bucket to "
        f"{context:,} tokens together (INPUTxOUTPUT:SHARE, e.g. {example}), or choose a model with a longer context"
    )


def typed_mix_beyond_context(typed: Any, model: ModelSpec) -> str | None:
    """Why the first bucket with traffic of a mix as typed (its text or its buckets; absent: the default mix) does not
    fit the model's context, for a question refused on another field; None where every bucket fits, or where the mix
    does not read as buckets (its own error says so)."""
    try:
        raw = parse_buckets(typed) if isinstance(typed, str) else typed
        buckets = MixQuestion.model_fields["mix"].get_default(call_default_factory=True) if raw is None else raw
        read = _BUCKETS.validate_python(buckets)
    except (ValueError, ValidationError):
        return None
    context = model.max_context
    for bucket in read:
        assert bucket.input_len is not None and bucket.output_len is not None  # LengthBucket fills a shape's
        if bucket.share > 0 and context is not None and bucket.input_len + bucket.output_len > context:
            return beyond_context_message(bucket, model)
    return None
