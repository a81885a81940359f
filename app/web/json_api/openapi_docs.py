"""What /docs tells a newcomer beyond the routes' own schemas: how to start, the error shape, the names one thing
has on different faces, and a body to try on every POST (Swagger's "Try it out" otherwise fills every default in,
a question nobody asks). tests/test_openapi_documented.py posts each example's body through its route's model."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.service.catalog.paging import MAX_PAGE_LIMIT

API_DESCRIPTION_TEMPLATE = """
Every page's answer is JSON too: the pages' `.json` and `.csv` twins (`/rank.json?…`, `/plan.json?…`) take the
page's query string; the routes below take a JSON body. Start with `POST /api/v1/rank/inference` and
`{"model": "llama-3.1-70b"}`: options ranked cheapest per million output tokens first, each with its terms.

**Errors** are one shape on every route: `{"detail": [{"field": "input_len", "message": "..."}]}`, one entry per bad
field (422), else one naming what to change (`path`, `method`, `body`, `request`, ...).

**Query strings.** An empty parameter (`?provider=`, as a form's untouched field submits it) is the parameter left out:
no filter, the default sort, no limit. A number is written plainly: `1000`, not `1_000` (a 422 naming the parameter).
The catalog's lists (`GET /api/v1/gpus`, `/offers`, `/models`, `/providers`, `/token-prices`) take `limit` (at most
{max_page_limit}; unset, every row) and `offset`, in a stable order; the body stays the list, `X-Total-Count` says how
many rows the filters keep and `Link: <…>; rel="next"` gives the next page while rows remain.

**One thing, two names.** Fields keep their names for the clients that read them; where faces differ:

{name_table}

Where one response holds two names for one value (`ttft_ms` and `ttft_mean_ms`; disagg's two above; the training
estimate's `fits` and `feasible`), its schema says so and marks the older name deprecated where there is one.
"""

# (the thing, its name on ranked options: the rank API, the pages' .json and the CSV, its names elsewhere)
NAME_PAIRS: tuple[tuple[str, str, str], ...] = (
    (
        "the seller's id",
        "`provider`",
        "`provider_id` (`/api/v1/offers`, `/api/v1/token-prices`), `id` (`/api/v1/providers`), the `providers` "
        "filter; the pages' provider column shows `provider_name`",
    ),
    ("the offer", "`offer_id`", "`id` (`/api/v1/offers`)"),
    (
        "the GPU's id",
        "`gpu_id`",
        "`id` (`/api/v1/gpus`), the `gpus` filter, `gpu` (the estimate and own-vs-rent bodies)",
    ),
    (
        "where the price was read",
        "`price_source_url`",
        "`source_url` (`/api/v1/offers`), `on_demand_price_source_url` (`/api/v1/gpus`)",
    ),
    (
        "$ a month",
        "`usd_per_month_at_peak` (the peak's instances every hour)",
        "`monthly_usd_always_on` (plan: the same idea; `_autoscaled`, `_scale_to_zero` beside it), `monthly_usd` "
        "(disagg, autoscaled; plan's per-token APIs at the traffic)",
    ),
    (
        "mean latency",
        "`ttft_mean_ms`, `tpot_mean_ms` (and, deprecated, `ttft_ms`, `tpot_ms`)",
        "a request's `ttft_ms`, `tpot_ms` are p99 limits, not means",
    ),
    (
        "uncertainty band",
        "`band` {low, high}",
        "CSV `band_low`, `band_high`; `ttft_p99_band` is CSV `ttft_p99_low_ms`, `ttft_p99_high_ms`",
    ),
    (
        "whether it runs",
        "`feasible` (training: fits, on time, in budget)",
        "the training estimate's `fits` and `feasible`: one value, memory only",
    ),
    (
        "$ per million output tokens",
        "`usd_per_million_output_tokens` (one replica at full load)",
        "disagg's `usd_per_million_output_tokens_at_traffic` (idle capacity included), also under its deprecated "
        "name `usd_per_million_output_tokens`",
    ),
    (
        "a training layout",
        "`layout` (words), `layout_detail` (fields)",
        "the training estimate's `layout_text` (words) and `layout` (fields); /plan's `training_layout`, "
        "`training_layout_detail`",
    ),
)


def name_table() -> str:
    rows = ["| thing | ranked options | elsewhere |", "|---|---|---|"]
    return "\n".join(rows + [f"| {thing} | {ranked} | {other} |" for thing, ranked, other in NAME_PAIRS])


TRY = {"model": "llama-3.1-70b", "weight_dtype": "fp8"}
REQUEST_EXAMPLES: dict[str, dict[str, Any]] = {
    "/api/v1/rank/inference": {**TRY, "input_len": 2000, "output_len": 400, "ttft_ms": 1000, "tpot_ms": 50},
    "/api/v1/rank/training": {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e9, "max_days": 7},
    "/api/v1/estimate/inference": {**TRY, "gpu": "H100-SXM", "gpu_count": 4},
    "/api/v1/estimate/training": {"model": "llama-3.1-8b", "method": "lora", "gpu": "H100-SXM", "gpu_count": 8},
    "/api/v1/plan/serving": {"workload": TRY, "traffic": {"requests_per_day": 500000, "profile": "diurnal"}},
    "/api/v1/plan/lifecycle": {
        "training": {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e9},
        "inference": {"model": "llama-3.1-8b"},
        "traffic": {"requests_per_day": 200000},
        "months": 12,
    },
    "/api/v1/precision": {"model": "llama-3.1-70b", "tpot_ms": 40},
    "/api/v1/own": {"gpu": "H100-SXM", "gpu_count": 8, "utilisation_pct": 60},
    "/api/v1/disagg": {
        "workload": {**TRY, "input_len": 32000, "output_len": 1000, "ttft_ms": 2000, "tpot_ms": 40},
        "traffic": {"requests_per_day": 100000},
    },
    "/api/v1/mix": {
        **TRY,
        "requests_per_day": 200000,
        "mix": [{"shape": "chat", "share": 0.7}, {"shape": "rag", "share": 0.3}],
    },
    "/share": {"path": "/", "query": "model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"},
}

# The admin API's examples re-send one seed offer as the catalog holds it: trying one changes nothing (unchanged 1).
SEED_OFFER = {
    "provider_id": "runpod",
    "gpu_id": "H100-SXM",
    "gpu_count": 1,
    "region": "Secure Cloud",
    "price_type": "on_demand",
    "usd_per_hour": 3.99,
    "usd_per_gpu_hour": 3.99,
    "as_of": "2026-11-09",
    "source_url": "https://www.runpod.io/pricing",
    "retrieved_via": "datareceipts/data-receipts 109-gpu-pricing/vendors.json (read 2026-11-09)",
    "verification": "secondary transcription",
}
ADMIN_EXAMPLES: dict[str, tuple[str, Any]] = {  # only in the schema where GPUMATCH_ADMIN_TOKEN turns them on
    "/api/v1/admin/offers": ("application/json", [SEED_OFFER]),
    "/api/v1/admin/offers/csv": (
        "text/csv",
        ",".join(SEED_OFFER) + "\n" + ",".join(str(value) for value in SEED_OFFER.values()) + "\n",
    ),
}


def install(app: FastAPI) -> None:
    """The description on /docs' front, and each POST's example body (after the routers are included)."""
    app.description = API_DESCRIPTION_TEMPLATE.replace("{name_table}", name_table()).replace(
        "{max_page_limit}", f"{MAX_PAGE_LIMIT:,}"
    )
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()  # cached by FastAPI: the examples are set once
        for path, body in REQUEST_EXAMPLES.items():
            content = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
            content["example"] = body
        for path, (media, example) in ADMIN_EXAMPLES.items():
            if path in schema["paths"]:
                schema["paths"][path]["post"]["requestBody"]["content"][media]["example"] = example
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
