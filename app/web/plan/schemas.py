"""What the plan API answers, for /docs: the handlers return plain values (app.service.plan builds the dicts)."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.service.charts.tables import ChartTable
from app.web.json_api.report_schemas import (
    CATALOG_VERSION,
    SPARE_AT_PEAK,
    SPARE_OR_SPREAD_WORDS,
    ModelOut,
    ServerlessQuoteFields,
    WeightsOut,
)
from app.web.rank.layout_schema import LayoutOut
from app.web.rank.option_schemas import InferenceOptionFields
from app.web.rank.schemas import WORKLOAD


class ServingOptionOut(InferenceOptionFields):
    """A ranked inference option (the rank API's fields, without its rank) with its fleet and monthly costs at the
    traffic."""

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
    gpu_hours_always_on: float = Field(description="GPU-hours a month with the peak hour's instances every hour")
    gpu_hours_autoscaled: float = Field(description="GPU-hours a month, instances added and removed hour by hour")
    gpu_hours_scale_to_zero: float = Field(
        description="GPU-hours a month when replicas stop after the idle timeout: the time they are up, and cold starts"
    )
    monthly_usd_always_on: float = Field(
        description="$ a month for the peak hour's instances every hour: what the rank API's usd_per_month_at_peak "
        "prices for a peak"
    )
    monthly_usd_autoscaled: float = Field(
        description="instances added and removed hour by hour (whole instances: copies sharing one scale together)"
    )
    monthly_usd_scale_to_zero: float = Field(
        description="replicas stop after the idle timeout and start on a request: the time they are up and their "
        "cold starts, never more than autoscaled"
    )
    scale_ups_from_zero_per_month: float = Field(description="starts from zero a month when scaling to zero")
    utilisation_autoscaled: float = Field(description="output tokens served ÷ what the autoscaled instances could")
    committed: bool = Field(description="reserved / capacity block: every policy is billed always on")
    billing_note: str = Field(description="how the terms bill the hours; empty where they bill the hours used")
    idle_gpus_at_peak: int = Field(
        0,
        description="GPUs the peak hour's instances bill beyond its replicas (a low traffic's one copy on a whole "
        "8-GPU instance leaves 7): instances_at_peak × instance_gpus − replicas_at_peak × gpu_count, already in the "
        f"costs; 0 where every billed GPU runs a copy the peak needs. They are {SPARE_AT_PEAK}",
    )
    fleet_note: str = Field("", description=SPARE_OR_SPREAD_WORDS)


class ServerlessQuoteOut(ServerlessQuoteFields):
    monthly_usd: float = Field(
        description="the traffic's month through this API, $ (a dedicated option's month is monthly_usd_always_on, "
        "_autoscaled or _scale_to_zero)"
    )


class ServingBody(BaseModel):
    """What a serving plan says, alone (/plan/serving) or after a training run (/plan/lifecycle)."""

    model_config = ConfigDict(extra="forbid")

    traffic: dict[str, Any] = Field(
        description="the traffic as validated (unset fields left out), with its mean requests_per_day and its busiest "
        "hour's peak_requests_per_s"
    )
    options: list[ServingOptionOut] = Field(description="feasible options, cheapest autoscaled first")
    total_options: int = Field(description="every feasible option (options may be fewer: limit)")
    serverless: list[ServerlessQuoteOut] = Field(
        description="every per-token API price for the model (or a comparable one), cheapest first, labelled"
    )
    cheapest_serverless: ServerlessQuoteOut | None = Field(
        description="the price compared with: the cheapest comparable one (see serverless_basis); null: none"
    )
    serverless_basis: str = Field(description="which serverless prices are compared with, in words")
    substitute_model: str | None = Field(
        description="the comparable model whose per-token prices stand in for the asked one; null: no substitute"
    )
    substitute_reason: str | None = Field(
        description="which model's per-token prices stand in for the asked model and why it is comparable "
        "(same dense/MoE kind, near in active and total parameters); null: no substitute"
    )
    break_even_requests_per_day: float | None = Field(
        description="requests a day (mean over the week) at which the cheapest dedicated option autoscaled and the "
        "serverless price compared with cost the same (break_even's); null: no crossing in range"
    )
    break_even: dict[str, Any] = Field(description="against the cheapest dedicated option autoscaled")
    break_even_scale_to_zero: dict[str, Any] | None = Field(
        description="against the cheapest dedicated option scaled to zero (a request finding no replica up waits the "
        "cold start)"
    )
    verdict: dict[str, Any] | None = Field(
        description="cheapest (serverless | scale_to_zero | autoscaled | none) at this traffic, in words, with the "
        "caveat of the mode that wins"
    )
    infeasible: list[dict[str, Any]] = Field(
        description="where no dedicated option serves the workload: each configuration (gpu_id, gpu_count), its "
        "reason and how many offers share it; empty otherwise"
    )
    assumptions: dict[str, Any] = Field(
        description="the month, the week's hourly buckets, the traffic profile, the autoscaled floor and how scaling "
        "to zero and serverless latency are read"
    )
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")


class ServingResponse(ServingBody):
    workload: dict[str, Any] = Field(description=WORKLOAD)
    model: ModelOut = Field(description="the model as the estimate read it")
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the plan page of this question")
    charts: list[ChartTable] = Field(
        description="the plan page's chart, monthly cost vs requests per day: each dedicated option autoscaled (of "
        "the options returned), the cheapest scaled to zero where that saves, the compared serverless prices and the "
        "break-even, as (series, requests per day, $ per month) rows; the same numbers as the page's table"
    )


class LifecycleCombinationOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    training: str = Field(description="the training offer, in words")
    serving: str = Field(description="the serving option (dedicated or serverless), in words")
    serving_kind: str = Field(description="dedicated | serverless")
    training_usd: float = Field(description="$ the run is billed")
    training_hours: float = Field(description="hours the run takes, its start-up included")
    training_billed_hours: float = Field(
        description="hours training_usd bills: training_hours rounded up to the provider's billing unit (Vultr's "
        "hour), at least a committed term"
    )
    serving_usd_per_month: float = Field(description="dedicated autoscaled, or serverless, $ a month")
    months: int = Field(description="months of serving counted")
    total_usd: float = Field(description="training_usd + months × serving_usd_per_month")
    training_share: float = Field(description="training's share of total_usd, a fraction")
    serving_share: float = Field(description="serving's share of total_usd, a fraction")
    training_price_caveats: list[str] = Field(description="what a buyer must know about the training price")
    serving_price_caveats: list[str] = Field(description="what a buyer must know about the serving price")
    training_layout: str = Field(
        description="the training run's parallel layout in words, as the training ranking's `layout` gives it"
    )
    training_layout_detail: LayoutOut | None = Field(
        description="the same layout as fields, the training ranking's `layout_detail` (the training estimate's "
        "`layout`); null where no layout was sized"
    )
    training_as_of: date | None = Field(description="the training price's date; null: undated")
    training_price_source_url: str = Field(description="where the training price was read; empty: no source stated")
    serving_as_of: date | None = Field(description="the serving price's date; null: undated")
    serving_as_of_label: str = Field(
        description="the serving price's date as its source gives it: 2026-09-20, ≤2026-12-01 (a per-token price "
        "read on or before that day), ~2025, undated"
    )
    serving_price_source_url: str = Field(description="where the serving price was read; empty: no source stated")
    training_cluster_caveat: str = Field(
        description="the training ranking row's `cluster_caveat`: the run spans more nodes than its offer says it "
        "supplies to one job, so that size is assumed available (`node count unstated` in the labels and "
        "training_price_caveats); empty otherwise"
    )
    training_deadline_at_risk: str = Field(
        description="the training ranking row's `deadline_at_risk`: the run meets its deadline or budget on its "
        "estimate but not at its band's slow end; empty otherwise"
    )


class LifecycleResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    training: dict[str, Any] = Field(description="the training workload as validated (unset fields left out)")
    inference: dict[str, Any] = Field(description="the inference workload as validated (unset fields left out)")
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    months: int = Field(description="months of serving after the run")
    combinations: list[LifecycleCombinationOut] = Field(description="cheapest total first, the best 10")
    total_combinations: int = Field(description="every (training, serving) combination priced")
    training_feasible: int = Field(description="training options that fit and finish within their limits")
    basis: str = Field(description="how total_usd is computed, in words")
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    serving: ServingBody = Field(description="the serving plan at the traffic, its best 15 options without terms")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the plan page of this question")
