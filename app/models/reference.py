"""The published reference tables: quantised-model accuracy (quality.csv) and the inputs for owning
hardware (tco.csv). Empty values mean not published, never zero; every row keeps its source."""

from __future__ import annotations

from pydantic import field_validator
from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.catalog import rules


class QualityResultBase(SQLModel):
    """A published accuracy of a quantised model against its unquantised baseline (reference quality.csv).

    model_id is null when the model is not in the catalog; empty scores mean not published, never zero."""

    model_id: str | None = Field(default=None, foreign_key="model.id", index=True, max_length=64)
    model: str = Field(max_length=200, description="the model as the source names it")
    precision: str = Field(max_length=40, description="fp8 | int4_w4a16_gptq | fp4_nvfp4 | ... as published")
    method: str = Field(max_length=300)
    benchmark: str = Field(max_length=200)
    baseline_score: float | None = None
    quantized_score: float | None = None
    recovery_pct: float | None = Field(default=None, ge=0, le=200, description="quantised / baseline × 100")
    as_of: str = Field(default="", max_length=20, description="as published: a day, a month or a year")
    source_url: str = Field(max_length=500)
    note: str = Field(default="", max_length=2000)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class QualityResult(QualityResultBase, table=True):
    __tablename__ = "quality_result"
    __table_args__ = (UniqueConstraint("model", "precision", "method", "benchmark", name="uq_quality_result_natural"),)

    id: int | None = Field(default=None, primary_key=True)


class TcoInputBase(SQLModel):
    """One input for owning hardware (reference tco.csv): a purchase price, a power draw, $/kWh, PUE,
    colocation $/kW-month or a depreciation life. Empty values mean not found, never zero."""

    item: str = Field(max_length=40, index=True)
    gpu_id: str | None = Field(default=None, foreign_key="gpu.id", max_length=64)
    value_text: str = Field(default="", max_length=40, description="the value as published (ranges, ~)")
    value_low: float | None = None
    value_high: float | None = None
    unit: str = Field(max_length=200)
    as_of: str = Field(default="", max_length=20, description="as published: a day, a month, a quarter or a year")
    source_url: str = Field(default="", max_length=500)
    note: str = Field(default="", max_length=2000)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value, allow_empty=True)


class TcoInput(TcoInputBase, table=True):
    __tablename__ = "tco_input"
    __table_args__ = (UniqueConstraint("item", "gpu_id", "unit", name="uq_tco_input_natural"),)

    id: int | None = Field(default=None, primary_key=True)
