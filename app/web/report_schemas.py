"""Response pieces the feature APIs (/disagg, /mix, /own, /precision) share, for /docs."""

from __future__ import annotations

from pydantic import BaseModel


class TermOut(BaseModel):  # one term of a cost or latency sum (no docstring: it would show in /docs)
    name: str
    value: float
    unit: str
    detail: str


class ModelRef(BaseModel):
    id: str
    name: str
    params_b: float
