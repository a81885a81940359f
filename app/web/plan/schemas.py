"""What the plan API answers, for /docs: the handlers return plain values (app.service.plan builds the dicts)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ServingOptionOut(BaseModel):
    """A ranked inference option (the rank API's fields) with its fleet and monthly costs at the traffic."""

    model_config = ConfigDict(extra="allow")  # every field of the rank API's option

    gpu_count: int = Field(description="GPUs of one replica: one copy of the layout")
    copies_per_instance: int = Field(description="copies of the layout one rented instance holds (1: none shared)")
    instance_gpus: int = Field(description="GPUs one rented instance bills (1 where GPUs are rented one by one)")
    replicas_at_peak: int = Field(
        description="replicas (copies of the layout) the peak hour needs; several share an instance where "
        "copies_per_instance > 1, and one spans several instances where gpu_count > instance_gpus. Earlier versions "
        "counted instances here where replicas shared one: instances_at_peak is that number"
    )
    instances_at_peak: int = Field(
        description="rented instances the peak hour needs: what the GPU-hours bill (instances × instance_gpus GPUs)"
    )
    replicas: int = Field(description="the ranking's replicas at the traffic's peak rate: replicas_at_peak")
    instances: int = Field(description="the ranking's rented instances for them: instances_at_peak")
    monthly_usd_always_on: float = Field(description="the peak hour's instances every hour")
    monthly_usd_autoscaled: float = Field(
        description="instances added and removed hour by hour (whole instances: copies sharing one scale together)"
    )
    monthly_usd_scale_to_zero: float = Field(description="autoscaled, and none in idle hours (cold starts billed)")
    utilisation_autoscaled: float = Field(description="output tokens served ÷ what the autoscaled instances could")


class ServingResponse(BaseModel):
    workload: dict[str, Any]
    model: dict[str, Any]
    traffic: dict[str, Any]
    options: list[ServingOptionOut] = Field(description="feasible options, cheapest autoscaled first")
    total_options: int
    serverless: list[dict[str, Any]]
    cheapest_serverless: dict[str, Any] | None
    serverless_basis: str
    substitute_model: str | None
    break_even_requests_per_day: float | None
    break_even: dict[str, Any]
    assumptions: dict[str, Any]
    notes: list[str]
    catalog_version: str
    share_url: str
