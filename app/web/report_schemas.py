"""Response pieces the feature APIs (/disagg, /mix, /own, /precision) share, for /docs."""

from __future__ import annotations

from pydantic import BaseModel, Field


class TermOut(BaseModel):  # one term of a cost or latency sum (no docstring: it would show in /docs)
    name: str
    value: float
    unit: str
    detail: str


class ModelRef(BaseModel):
    id: str
    name: str
    params_b: float


class PriceProvenanceOut(BaseModel):  # beside a row's price: its note, its caveats' labels, the page it was read from
    price_note: str = ""
    price_caveats: list[str] = Field(default_factory=list, description="labels of the note's caveats")
    price_source_url: str = ""
    stale: bool = Field(False, description="older than the stale-after days, or undated")
