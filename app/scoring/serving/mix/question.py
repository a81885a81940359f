"""The GPU-mix question: a model at latency limits, a daily traffic and its request-length distribution.

The distribution is a list of buckets, each a named shape (chat, rag, code, reasoning) or explicit
lengths, with a share. In a query string it is one field: `mix=chat:0.6,rag:0.3,1000x200:0.1`.
Shares are weights (`chat:1,rag:1` is `chat:0.5,rag:0.5`, the default): a total other than 1 is divided
out, and the plan says so in a note with the shares it used.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import ConfigDict, Field, GetJsonSchemaHandler, field_validator, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from app.scoring.explain import fixed, percent, significant
from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.input_checks.typed_numbers import as_typed_number
from app.scoring.serving.mix.request_shapes import SHAPES, ShapeName
from app.scoring.serving.traffic.week import (
    MAX_PEAK_FACTOR,
    MAX_REQUESTS_PER_DAY,
    MIN_REQUESTS_PER_DAY,
    Profile,
    Traffic,
)
from app.scoring.workload import (
    KV_DTYPE_DEFAULT,
    LIMITS_AT_DESCRIPTION,
    MIN_LATENCY_LIMIT_MS,
    NO_W8A8_ENGINES,
    REPLICA_MAX_GPUS,
    Dtype,
    Engine,
    InferenceWorkload,
    LimitsAt,
    ModelChoice,
    WeightDtype,
    estimate_is_unset,
    w8a8_refusal,
)

MAX_BUCKETS = 8  # keeps the candidate set (GPU types x buckets) and its estimates small
DEFAULT_MIX = "chat:0.5,rag:0.5"  # fractions of all requests, as the form's hint reads shares
# Shares rounded to three places (0.333,0.333,0.333) are fractions of 1: divided out without a note.
SHARE_TOTAL_TOLERANCE = 0.005
# The smallest positive share: below it floats lose digits (1e-320 was read as 9.99989e-321, so 1e-323 and 1.4e-323
# weighed the same), and shares are weights, so a smaller set is the same mix scaled up.
MIN_SHARE = 1e-6


class LengthBucket(NumbersNotBooleans):
    """One bucket of the request-length histogram: a named shape, or input_len and output_len."""

    model_config = ConfigDict(extra="forbid")

    shape: ShapeName | None = Field(None, description="chat | rag | code | reasoning (sourced mean lengths)")
    input_len: int | None = Field(None, ge=1, le=1_000_000, description="prompt tokens (when no shape)")
    output_len: int | None = Field(None, ge=1, le=200_000, description="generated tokens (when no shape)")
    share: float = Field(
        1.0,
        ge=0,
        le=1e6,
        description="relative weight: shares are divided by their total (a note says so when it is not 1); "
        f"0 (no traffic) or at least {significant(MIN_SHARE)}",
    )

    @field_validator("share")
    @classmethod
    def _weighable(cls, share: float) -> float:
        if 0 < share < MIN_SHARE:
            raise ValueError(
                f"must be 0 (no traffic) or at least {fixed(MIN_SHARE, 0)}: shares are weights, so scale them all "
                "up together (chat:1e-7,rag:3e-7 is chat:1,rag:3)"
            )
        return share

    @model_validator(mode="after")
    def _lengths(self) -> LengthBucket:
        if self.shape is not None:
            named = SHAPES[self.shape]
            if (self.input_len or named.input_len, self.output_len or named.output_len) != (
                named.input_len,
                named.output_len,
            ):  # a shape's own lengths may be repeated (as this model writes them), never changed
                raise ValueError("give a shape or input_len and output_len, not both")
            self.input_len, self.output_len = named.input_len, named.output_len
        elif self.input_len is None or self.output_len is None:
            raise ValueError("give a shape, or both input_len and output_len")
        return self

    @property
    def name(self) -> str:
        return self.shape or f"{self.input_len}x{self.output_len}"

    def spelled(self) -> str:
        share = str(int(self.share)) if self.share.is_integer() else repr(self.share)
        return f"{self.name}:{share}"


_LENGTH_START = re.compile(r"[+-]?[0-9.]")  # a length as typed: 2000, 2e3, .5e4, -5 (its bound says why not)


def parse_buckets(text: str) -> list[dict[str, Any]]:
    """`chat:0.7, 1000x200:0.3` → bucket dicts (validation of the numbers is LengthBucket's). Numbers read as the
    forms read them: `2e3x400:1` is 2000x400, and `1e30x100` is too large rather than "not a valid integer"."""
    items = [part.strip() for part in text.split(",") if part.strip()]
    if not items:
        raise ValueError("give at least one bucket, e.g. chat:0.7,rag:0.3 or 1000x200:1")
    out = []
    for item in items:
        name, _, share = item.partition(":")
        name = name.strip().lower()
        bucket: dict[str, Any] = {"share": as_typed_number(share.strip()) or 1}
        if name in SHAPES:
            bucket["shape"] = name
        else:
            lengths = name.split("x")
            # a name with an x in it ('context', 'x') is no INPUTxOUTPUT: say so, not "input_len: not an integer"
            if len(lengths) != 2 or not _LENGTH_START.match(lengths[0].strip()):
                raise ValueError(
                    f"{item!r} is neither a named shape ({', '.join(SHAPES)}) nor INPUTxOUTPUT:SHARE (e.g. 1000x200:1)"
                )
            bucket["input_len"], bucket["output_len"] = (as_typed_number(v.strip()) for v in lengths)
        out.append(bucket)
    return out


class TextOrBuckets:
    """The mix's JSON schema as a request reads it: buckets, or their text form (which `_text_form` parses before
    the list is validated); an answer's mix is always the buckets."""

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        buckets = handler(schema)
        if handler.mode != "validation":
            return buckets
        text = {
            "type": "string",
            "description": "SHAPE:SHARE or INPUTxOUTPUT:SHARE, comma separated",
            "examples": [DEFAULT_MIX],
        }
        return {"anyOf": [text, buckets]}


class MixQuestion(ModelChoice):
    """What to serve (a catalog model, a custom_model or an hf_config), how fast, how much, and how long the
    requests are."""

    model_config = ConfigDict(extra="forbid")

    weight_dtype: WeightDtype = Field("bf16", description="the weights' dtype; unset: the model's release precision")
    kv_dtype: Dtype | None = Field(None, description=KV_DTYPE_DEFAULT)
    ttft_ms: float = Field(
        1_000.0, ge=MIN_LATENCY_LIMIT_MS, le=600_000, description="p99 time to first token limit, every bucket, ms"
    )
    tpot_ms: float = Field(
        50.0, ge=MIN_LATENCY_LIMIT_MS, le=60_000, description="p99 time per output token limit, every bucket, ms"
    )
    limits_at: LimitsAt | None = Field(None, description=LIMITS_AT_DESCRIPTION)
    engine: Engine = Field("vllm", description="the serving engine: vllm | sglang | trtllm | llamacpp | hf")
    max_gpus: int = Field(REPLICA_MAX_GPUS, ge=1, le=72, description="largest GPU count per replica")
    requests_per_day: float = Field(
        100_000.0, ge=MIN_REQUESTS_PER_DAY, le=MAX_REQUESTS_PER_DAY, description="mean over the week"
    )
    profile: Profile = Field("diurnal", description="flat | business_hours | diurnal: the fleet is sized for the peak")
    peak_factor: float = Field(3.0, ge=1, le=MAX_PEAK_FACTOR, description="diurnal: busiest hour / mean")
    mix: Annotated[list[LengthBucket], TextOrBuckets()] = Field(
        default_factory=lambda: [LengthBucket.model_validate(b) for b in parse_buckets(DEFAULT_MIX)],
        min_length=1,
        max_length=MAX_BUCKETS,
        description="the length distribution: buckets, or the text form `chat:0.7,rag:0.3,1000x200:0.1`",
    )

    _estimate_is_unset = field_validator("limits_at")(estimate_is_unset)

    @field_validator("mix", mode="before")
    @classmethod
    def _text_form(cls, value: Any) -> Any:
        return parse_buckets(value) if isinstance(value, str) else value

    @field_validator("mix", mode="after")
    @classmethod
    def _positive_total(cls, value: list[LengthBucket]) -> list[LengthBucket]:
        if sum(b.share for b in value) <= 0:
            raise ValueError("the shares must add up to more than 0")
        return value

    @field_validator("mix", mode="after")
    @classmethod
    def _each_length_once(cls, value: list[LengthBucket]) -> list[LengthBucket]:
        # Buckets are keyed by their lengths (each fleet row's `shares`): a repeat would silently merge or drop.
        first: dict[tuple[int | None, int | None], int] = {}
        for position, bucket in enumerate(value, start=1):
            lengths = (bucket.input_len, bucket.output_len)
            if lengths in first:
                earlier = value[first[lengths] - 1]
                same = (
                    f"{bucket.name}, the same lengths as {earlier.name}" if earlier.name != bucket.name else bucket.name
                )
                raise ValueError(
                    f"bucket {position} repeats bucket {first[lengths]} ({same}): give each length once, "
                    "with the two shares added up"
                )
            first[lengths] = position
        return value

    @model_validator(mode="after")
    def _engine_runs_w8a8(self) -> MixQuestion:
        if self.weight_dtype == INT8_W8A8 and self.engine in NO_W8A8_ENGINES:  # as InferenceWorkload's check
            raise ValueError(w8a8_refusal(self.engine))
        return self

    @property
    def distribution_text(self) -> str:
        return ",".join(b.spelled() for b in self.mix)

    @property
    def share_total(self) -> float:
        return sum(b.share for b in self.mix)

    @property
    def normalised_text(self) -> str:
        """The distribution as fractions of all requests (4 places), the way the plan reads it."""
        return ",".join(f"{b.name}:{b.share / self.share_total:.4f}".rstrip("0").rstrip(".") for b in self.mix)

    def share_note(self) -> str | None:
        """Says how shares that do not add up to 1 were read (None when they do, within the tolerance)."""
        total = self.share_total
        if abs(total - 1) <= SHARE_TOTAL_TOLERANCE:
            return None
        fractions = ", ".join(f"{b.name} {percent(b.share / total, 1)}" for b in self.mix)
        total_text = fixed(total, 3).rstrip("0").rstrip(".")  # 0.000002, not 2e-06
        note = f"The shares add up to {total_text}, not 1: they are read as weights, so the requests are {fractions}"
        note += f" (mix={self.normalised_text})."
        if total < 1:
            note += (
                f" If they are fractions of all requests, the other {significant(1 - total, 3)} is spread over these "
                "buckets in proportion: give it a bucket of its own if its lengths differ."
            )
        return note

    def buckets(self) -> list[LengthBucket]:
        """Buckets with a share, in the order given (a zero share has no traffic to place)."""
        return [b for b in self.mix if b.share > 0]

    def workload(self, bucket: LengthBucket) -> InferenceWorkload:
        assert bucket.input_len is not None and bucket.output_len is not None
        return InferenceWorkload(
            model=self.model,
            custom_model=self.custom_model,
            hf_config=self.hf_config,
            weight_dtype=self.weight_dtype,
            kv_dtype=self.kv_dtype,
            input_len=bucket.input_len,
            output_len=bucket.output_len,
            ttft_ms=self.ttft_ms,
            tpot_ms=self.tpot_ms,
            limits_at=self.limits_at,
            engine=self.engine,
            max_gpus=self.max_gpus,
            rank_by="requests",
            providers=self.providers,
            price_types=self.price_types,
            gpus=self.gpus,
            vendors=self.vendors,
            include_stale=self.include_stale,
        )

    def traffic(self) -> Traffic:
        return Traffic(requests_per_day=self.requests_per_day, profile=self.profile, peak_factor=self.peak_factor)
