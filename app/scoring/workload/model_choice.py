"""The offers a question may rank (Filters) and the model it is about (ModelChoice): what every workload shares."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field, field_validator, model_validator

from app.scoring.input_checks.json_bounds import MAX_DEPTH, MAX_KEYS, MAX_SERIALIZED_BYTES, check_bounded_object
from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.workload.architecture import ModelArchitecture
from app.scoring.workload.field_types import PriceType, ShortId


class Filters(NumbersNotBooleans):
    """Which offers may be ranked; empty lists mean 'any', except price types (empty = on-demand only)
    and stale prices (left out unless asked for)."""

    providers: list[ShortId] = Field(
        default_factory=list, max_length=100, description="provider ids to rank; empty = any"
    )
    price_types: list[PriceType] = Field(
        default_factory=list,
        max_length=10,
        description="price terms to rank; empty = on-demand only (add spot, reserved, marketplace, capacity_block)",
    )
    gpus: list[ShortId] = Field(
        default_factory=list, max_length=100, description="catalog GPU ids to rank; empty = any"
    )
    vendors: list[ShortId] = Field(
        default_factory=list, max_length=20, description="GPU vendors to rank (nvidia, amd, …); empty = any"
    )
    include_stale: bool = Field(False, description="also rank prices older than the stale-after days (marked stale)")
    trains: ClassVar[bool] = False  # a training workload: managed inference endpoints are left out

    @field_validator("providers", "price_types", "gpus", "vendors")
    @classmethod
    def _once_each(cls, values: list[str]) -> list[str]:
        """An id named twice filters as once: `gpus=H100-SXM,h100-sxm` kept both in its canonical link and its
        answer's workload (one view state, two URLs; found by qa37). The first spelling stays."""
        first: dict[str, str] = {}
        for value in values:
            first.setdefault(value.lower(), value)
        return list(first.values())


class ModelChoice(Filters):
    """The model a question is about: a catalog id, a custom architecture or a pasted config.json (one of them); the
    workloads' and the GPU mix's."""

    model_config = ConfigDict(extra="forbid")

    model: ShortId | None = Field("llama-3.1-8b", description="catalog model id")
    custom_model: ModelArchitecture | None = Field(None, description="architecture when not in the catalog")
    hf_config: dict[str, object] | None = Field(
        None,
        description=(
            f"a pasted Hugging Face config.json (at most {MAX_KEYS} keys, depth {MAX_DEPTH}, "
            f"{MAX_SERIALIZED_BYTES // 1024} KB)"
        ),
    )

    @field_validator("hf_config")
    @classmethod
    def _bounded_config(cls, value: dict[str, object] | None) -> dict[str, object] | None:
        return None if value is None else check_bounded_object(value)

    @model_validator(mode="before")
    @classmethod
    def _not_two_models(cls, data: object) -> object:
        """Two models given is said before either is read: a catalog id beside a custom_model whose params_b is off
        was answered with the params_b error, as though fixing it would be enough."""
        if not isinstance(data, dict):
            return data
        custom, pasted = data.get("custom_model") is not None, data.get("hf_config") is not None
        if custom and pasted:
            raise ValueError("hf_config: give either custom_model or hf_config, not both")
        if (custom or pasted) and data.get("model") is not None:  # not silently one of them
            other = "custom_model" if custom else "hf_config"
            raise ValueError(f"model: give a catalog model id or a {other}, not both")
        return data

    @model_validator(mode="after")
    def _one_model(self) -> ModelChoice:
        given = [x is not None for x in (self.custom_model, self.hf_config)]
        if any(given):
            self.model = None
        elif not self.model:
            raise ValueError("model: give a catalog model id, a custom_model or an hf_config")
        return self
