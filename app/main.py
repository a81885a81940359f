"""Application factory: wiring only (settings, database, middleware, routers)."""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI
from sqlalchemy.exc import SQLAlchemyError

from app import __version__
from app.catalog.snapshot import SnapshotCache
from app.config import PROJECT_ROOT, Settings, get_settings
from app.db import make_engine
from app.web import edge
from app.web.catalog import admin as api_admin
from app.web.catalog import api as api_catalog
from app.web.catalog import list_pages as catalog_lists
from app.web.catalog import pages as catalog_pages
from app.web.disagg import api as api_disagg
from app.web.disagg import pages as disagg_page
from app.web.errors import handlers as errors
from app.web.json_api import openapi_docs
from app.web.methodology import pages as methodology
from app.web.mix import api as api_mix
from app.web.mix import pages as mix_page
from app.web.own import api as api_own
from app.web.own import pages as own_page
from app.web.plan import api as api_plan
from app.web.plan import pages as plan_page
from app.web.precision import api as api_precision
from app.web.precision import pages as precision_page
from app.web.rank import api as api_rank
from app.web.rank import pages as dashboard
from app.web.share import routes as share
from app.web.site import api_docs, health, static_files
from app.web.site.assets import Assets

logger = logging.getLogger(__name__)
# CPython hands the GIL over every 5 ms by default (sys.getswitchinterval). Rankings are CPU-bound
# threads, so the event loop (/healthz, 503s, static files) waited up to that long per step behind
# each; 0.5 ms halved /healthz p99 under 60 heavy clients (benchmarks/liveness.py, docs/PERFORMANCE.md).
GIL_SWITCH_INTERVAL_S = 0.0005
# The cyclic collector's youngest generation runs after this many container allocations (CPython's default is 700).
# A ranking allocates tens of thousands and keeps many alive while it runs, so at 700 each ranking paid 2-3 young
# collections over its live objects plus older ones: 15-25 % of the mean 70B ranking (speed16's gc.callbacks timing).
# At 10,000 the collector still took 2.3 ms (7.8 %) of a rank API request's server CPU; at 200,000, 0.6 ms (2.1 %), and
# the request 0.95-0.98x the CPU, RSS 6 MB more and as flat over 2,000 requests (speed29's benchmarks.gc_ab, three
# runs). Freezing the start-up objects saved 0.2 ms alone and would pin a reloaded catalog's cycles: not done.
# The older generations keep CPython's ratios (10, 10).
GC_YOUNG_THRESHOLD = 200_000
GC_OLDER_THRESHOLDS = (10, 10)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # Load the catalog once at startup so /healthz (memory only) reports counts from the first request.
    try:
        await anyio.to_thread.run_sync(app.state.snapshots.get)
    except SQLAlchemyError as exc:  # a database not ready yet: /readyz says so, liveness still answers
        logger.warning("catalog not loaded at startup: %s", exc)
    # The served app's start-up alone sets it: importing the scoring package (tests, CLI, benchmarks) leaves CPython's.
    gc.set_threshold(GC_YOUNG_THRESHOLD, *GC_OLDER_THRESHOLDS)
    if app.state.settings.warm_api_docs:  # the first /docs took ~1 s building the schema; now a thread builds it
        app.state.api_docs_warm_up = api_docs.warm_reference(app)
    yield


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    app = FastAPI(
        title="gpumatch",
        version=__version__,
        summary="Rank rentable GPUs for LLM training (by what the run bills) and inference (by cost per token).",
        docs_url=None,  # app.web.site.api_docs serves /docs from static/vendor (the CDN version needs inline scripts)
        redoc_url=None,
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.database_url)
    app.state.snapshots = SnapshotCache(
        app.state.engine, recheck_s=settings.catalog_recheck_s, stale_after_days=settings.stale_after_days
    )
    app.state.assets = Assets()

    errors.install(app)
    edge.install(app, settings)
    app.mount("/static", static_files.CachedStaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    for router in (
        health.router,
        api_catalog.router,
        api_rank.router,
        dashboard.router,
        share.router,
        catalog_lists.router,
        catalog_pages.router,
        methodology.router,
        static_files.router,
        api_plan.router,
        plan_page.router,
        api_precision.router,
        precision_page.router,
        api_own.router,
        own_page.router,
        api_disagg.router,
        disagg_page.router,
        api_mix.router,
        mix_page.router,
        api_docs.router,
    ):
        app.include_router(router)
    # Disabled without a token: hidden from the schema too, and every admin route answers 404.
    app.include_router(api_admin.router, include_in_schema=settings.admin_token is not None)
    openapi_docs.install(app)
    return app
