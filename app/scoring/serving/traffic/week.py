"""Traffic over a week and what serving it on dedicated replicas costs per month.

Time is modelled as one repeating week of 168 hourly buckets; each bucket's request rate is the
mean rate (requests per day / 86 400) times the profile's multiplier for that hour (multipliers
average exactly 1, so every profile carries the same requests per month). Autoscalers react in
minutes, so hourly buckets are a slightly optimistic approximation: bursts inside an hour are not
modelled, and a replica count is the hour's mean rate over the replica's sustained throughput.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.serving.traffic.scale_to_zero import IDLE_RATE_PER_S, scale_to_zero_week
from app.scoring.workload import MIN_REQUESTS_PER_S

HOURS_PER_MONTH = 730.0  # 365 days x 24 h / 12 months: the "per month" of cloud price pages
DAYS_PER_MONTH = HOURS_PER_MONTH / 24  # 30.42 days, so serverless and dedicated cover the same month
HOURS_PER_WEEK = 168
WEEKS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_WEEK  # 4.345
SECONDS_PER_DAY = 86_400
BUSINESS_START_HOUR, BUSINESS_END_HOUR = 8, 18  # 10 h a day, Monday to Friday: an office tool
BUSINESS_OPEN_HOURS_PER_WEEK = 5 * (BUSINESS_END_HOUR - BUSINESS_START_HOUR)
DIURNAL_PEAK_HOUR = 14  # consumer chat traffic peaks in the afternoon and bottoms out around 2 a.m.
DEFAULT_REQUESTS_PER_DAY = 100_000.0
MAX_REQUESTS_PER_DAY = 1e10
MIN_REQUESTS_PER_DAY = 0.1  # a request in ten days: above the rate fields' floor (MIN_REQUESTS_PER_S = 0.0864 a day)
MAX_PEAK_FACTOR = 8.0  # a diurnal peak 8x the mean already puts ~all traffic in a few hours
MAX_IDLE_TIMEOUT_S = 86_400.0  # a day: longer stays up through any night, as autoscaled with a floor of one does

Profile = Literal["flat", "business_hours", "diurnal"]


MIN_REPLICAS_ZERO_NOTE = (
    "Minimum replicas 0 is read as 1: the autoscaled cost keeps one replica warm in every hour; the cost with none "
    "warm is the scale-to-zero one."
)


TRAFFIC_DESCRIPTION = "the traffic to serve: requests a day (or the peak rate), its weekly profile, and autoscaling"


class Traffic(NumbersNotBooleans):
    """How much traffic, when, and how the fleet may scale. Give requests_per_day or peak_requests_per_s."""

    model_config = ConfigDict(extra="forbid")

    requests_per_day: float | None = Field(
        None, ge=MIN_REQUESTS_PER_DAY, le=MAX_REQUESTS_PER_DAY, description="mean over the week; default 100000"
    )
    peak_requests_per_s: float | None = Field(
        None,
        ge=MIN_REQUESTS_PER_S,
        le=1e6,
        description=f"the busiest hour's mean rate (at least {MIN_REQUESTS_PER_S:g})",
    )
    profile: Profile = Field("diurnal", description="flat | business_hours (weekdays 08-18) | diurnal")
    peak_factor: float = Field(
        3.0, ge=1, le=MAX_PEAK_FACTOR, description="diurnal: busiest hour / mean (business_hours is fixed at 3.36)"
    )
    min_replicas: int = Field(
        1,
        ge=0,
        le=10_000,
        description="autoscaled floor: replicas kept warm in every hour; 0 is read as 1 (autoscaled keeps one warm, "
        "and the answer notes it): the cost with none warm is the scale-to-zero one",
    )
    cold_start_s: float = Field(60.0, ge=0, le=3_600, description="scale-to-zero: seconds to start a replica")
    idle_timeout_s: float | None = Field(
        None,
        ge=0,
        le=MAX_IDLE_TIMEOUT_S,
        description="scale-to-zero: seconds a replica stays up after its last request; default: the cold start, so "
        "it idles no longer than a restart would bill (no idle timeout in the reference)",
    )
    spot_only: bool = Field(
        False, description="a spot (interruptible) option may be the whole deployment; default: never alone"
    )

    @field_validator("peak_requests_per_s")
    @classmethod
    def _one_rate(cls, value: float | None, info: ValidationInfo) -> float | None:
        if value is not None and info.data.get("requests_per_day") is not None:
            raise ValueError("give requests_per_day or peak_requests_per_s, not both")
        return value

    def reading_notes(self) -> list[str]:
        """What the answer reads differently from what was given, said in its notes."""
        return [MIN_REPLICAS_ZERO_NOTE] if self.min_replicas == 0 else []

    def idle_timeout(self) -> float:
        """The idle timeout used: the one given, else the cold start (a restart bills that long anyway)."""
        return self.cold_start_s if self.idle_timeout_s is None else self.idle_timeout_s

    def multipliers(self) -> tuple[float, ...]:
        return week_profile(self.profile, self.peak_factor)

    def daily_requests(self) -> float:
        """Mean requests per day (derived from the peak rate when that is what was given)."""
        if self.peak_requests_per_s is not None:
            return self.peak_requests_per_s * SECONDS_PER_DAY / max(self.multipliers())
        return self.requests_per_day if self.requests_per_day is not None else DEFAULT_REQUESTS_PER_DAY

    def hourly_requests_per_s(self, requests_per_day: float | None = None) -> list[float]:
        rpd = self.daily_requests() if requests_per_day is None else requests_per_day
        return hourly_rates(rpd, self.multipliers())

    def peak_rate_per_s(self) -> float:
        return max(self.hourly_requests_per_s())


def hourly_rates(requests_per_day: float, multipliers: Sequence[float]) -> list[float]:
    mean_per_s = requests_per_day / SECONDS_PER_DAY
    return [mean_per_s * m for m in multipliers]


def diurnal_day(peak_factor: float) -> list[float]:
    """24 multipliers a + b*s(h): s is a raised cosine peaking at DIURNAL_PEAK_HOUR, sharpened to the
    power k, the smallest k whose mean is <= 1/peak_factor so the night-time trough a stays >= 0.
    The mean is exactly 1 and the maximum exactly the peak factor."""
    if peak_factor <= 1:
        return [1.0] * 24
    k = 1
    while True:
        shape = [((1 + math.cos(2 * math.pi * (h - DIURNAL_PEAK_HOUR) / 24)) / 2) ** k for h in range(24)]
        mean = sum(shape) / 24
        if mean * peak_factor <= 1 + 1e-12:
            break
        k += 1
    b = (peak_factor - 1) / (1 - mean)
    a = max(0.0, peak_factor - b)
    return [a + b * s if a + b * s > 1e-9 else 0.0 for s in shape]


def week_profile(profile: Profile, peak_factor: float = 1.0) -> tuple[float, ...]:
    """168 hourly multipliers of the mean rate, Monday 00:00 first; their mean is 1."""
    if profile == "flat":
        return (1.0,) * HOURS_PER_WEEK
    if profile == "business_hours":  # all of the week's traffic inside office hours, none outside
        level = HOURS_PER_WEEK / BUSINESS_OPEN_HOURS_PER_WEEK
        return tuple(
            level if day < 5 and BUSINESS_START_HOUR <= hour < BUSINESS_END_HOUR else 0.0
            for day in range(7)
            for hour in range(24)
        )
    return tuple(diurnal_day(peak_factor)) * 7


COMMITTED_NOTE = "committed capacity: paid for every hour whether used or not, so never autoscaled"


def replicas_needed(requests_per_s: float, output_len: int, replica_output_tokens_per_s: float) -> int:
    """ceil(rate x output tokens per request / output tokens per second one replica sustains at the
    latency targets). The replica's throughput already reflects the prompt length it was estimated at."""
    if requests_per_s <= IDLE_RATE_PER_S:
        return 0
    return max(1, math.ceil(requests_per_s * output_len / replica_output_tokens_per_s - 1e-9))


@dataclass(frozen=True, slots=True)
class ServingCost:
    """Monthly GPU-hours and USD of one replica type under the three scaling policies. Its replica is the unit that
    scales (serving_cost's `gpus_per_replica` GPUs): a rented instance holding several copies of a layout, or one
    copy of a layout on whole instances; ServingOption says how many replicas and instances that is."""

    units_at_peak: int  # rented units the peak hour needs (not always replicas of the layout: see the docstring)
    gpu_hours_always_on: float
    gpu_hours_autoscaled: float
    gpu_hours_scale_to_zero: float
    monthly_usd_always_on: float
    monthly_usd_autoscaled: float
    monthly_usd_scale_to_zero: float
    scale_ups_from_zero_per_month: float
    utilisation_autoscaled: float  # output tokens served / what the paid replica-hours could serve
    committed: bool = False  # reserved / capacity block: every policy is billed always on
    billing_note: str = ""


def serving_cost(
    hourly_requests_per_s: Sequence[float],
    output_len: int,
    replica_output_tokens_per_s: float,
    gpus_per_replica: int,
    usd_per_gpu_hour: float,
    min_replicas: int = 1,
    cold_start_s: float = 60.0,
    committed: bool = False,
    request_s: float = 0.0,
    idle_timeout_s: float | None = None,
) -> ServingCost:
    """Always-on at peak size, autoscaled hour by hour above a floor, and scale-to-zero (scale_to_zero.py: the time
    replicas are up, `request_s` a request's time on one, and their cold starts; never more than autoscaled).
    Committed capacity (reserved, capacity block) is paid whether used or not: it is never autoscaled, so
    all three policies cost the always-on fleet (the committed cost), never less."""
    needed = [replicas_needed(r, output_len, replica_output_tokens_per_s) for r in hourly_requests_per_s]
    floor = max(1, min_replicas)
    peak = max(needed, default=0)
    weekly = {
        "always_on": max(peak, floor) * float(len(needed)),
        "autoscaled": float(sum(max(floor, n) for n in needed)),
    }
    timeout = cold_start_s if idle_timeout_s is None else idle_timeout_s
    weekly["scale_to_zero"], starts = scale_to_zero_week(
        hourly_requests_per_s, output_len, replica_output_tokens_per_s, request_s, timeout, cold_start_s
    )
    if weekly["scale_to_zero"] >= weekly["autoscaled"]:  # scaling to zero saves nothing: it is not done
        weekly["scale_to_zero"], starts = weekly["autoscaled"], 0.0
    if committed:
        weekly["autoscaled"] = weekly["scale_to_zero"] = weekly["always_on"]
        starts = 0.0
    gpu_hours = {k: v * WEEKS_PER_MONTH * gpus_per_replica for k, v in weekly.items()}
    tokens = sum(hourly_requests_per_s) * 3600 * output_len
    capacity = weekly["autoscaled"] * 3600 * replica_output_tokens_per_s
    return ServingCost(
        units_at_peak=peak,
        gpu_hours_always_on=gpu_hours["always_on"],
        gpu_hours_autoscaled=gpu_hours["autoscaled"],
        gpu_hours_scale_to_zero=gpu_hours["scale_to_zero"],
        monthly_usd_always_on=gpu_hours["always_on"] * usd_per_gpu_hour,
        monthly_usd_autoscaled=gpu_hours["autoscaled"] * usd_per_gpu_hour,
        monthly_usd_scale_to_zero=gpu_hours["scale_to_zero"] * usd_per_gpu_hour,
        scale_ups_from_zero_per_month=starts * WEEKS_PER_MONTH,
        utilisation_autoscaled=tokens / capacity if capacity else 0.0,
        committed=committed,
        billing_note=COMMITTED_NOTE if committed else "",
    )
