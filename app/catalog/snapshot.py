"""The catalog as plain scoring types, cached in memory and reloaded when the catalog changes.

Ranking runs on every request, so it reads this snapshot rather than the database. A cheap
version query (row counts, the newest price-history id and the catalog edit counter) is re-checked
at most every few seconds, so any import or admin edit on one replica reaches the others without a
restart. Staleness is computed when the snapshot loads; the snapshot also knows the first day on
which one of its fresh offers or per-token prices turns stale and reloads then, so it never goes stale
silently. The version carries the number of stale prices, so it changes exactly when staleness does.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import fields
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.catalog.queries import offer_reading
from app.catalog.revision import current_revision
from app.models.hardware import Gpu, Offer, PriceHistory, Provider
from app.models.llm import LlmModel, TokenPrice
from app.models.reference import QualityResult, TcoInput
from app.scoring import specs
from app.scoring.hardware.gpu_gaps import fill_catalog_gaps
from app.scoring.pricing.offer_readings import newest_readings

VERSION_RECHECK_S = 5.0
DEFAULT_STALE_AFTER_DAYS = 180  # app.config.Settings.stale_after_days' default


def today_utc() -> date:
    return datetime.now(UTC).date()


def gpu_spec(row: Gpu) -> specs.GpuSpec:
    values = {f.name: getattr(row, f.name) for f in fields(specs.GpuSpec) if hasattr(row, f.name)}
    values["peak_estimated"] = specs.peak_estimated(row.peak_verification, row.bf16_tflops, row.fp16_tflops)
    return specs.GpuSpec(**values)


def model_spec(row: LlmModel) -> specs.ModelSpec:
    return specs.ModelSpec(**{f.name: getattr(row, f.name) for f in fields(specs.ModelSpec) if hasattr(row, f.name)})


def stale_since(as_of: date, stale_after_days: int) -> date:
    """The first day on which a price dated `as_of` counts as stale (queries.is_stale's rule)."""
    return as_of + timedelta(days=stale_after_days + 1)


def catalog_version(session: Session) -> str:
    parts = [
        session.exec(select(func.count()).select_from(table)).one()
        for table in (Gpu, LlmModel, Offer, TokenPrice, Provider)
    ]
    newest_price = session.exec(select(func.max(PriceHistory.id))).one()
    return "-".join(str(p) for p in [*parts, newest_price or 0, current_revision(session)])


def offer_spec(row: Offer, provider_name: str, stale: bool) -> specs.Offer:
    return specs.Offer(
        provider_id=row.provider_id,
        provider_name=provider_name,
        gpu_id=row.gpu_id,
        gpu_count=row.gpu_count,
        price_type=row.price_type,
        usd_per_gpu_hour=row.usd_per_gpu_hour,
        as_of=row.as_of,
        instance_type=row.instance_type,
        region=row.region,
        source_url=row.source_url,
        offer_id=row.id,
        gpus_per_node=row.gpus_per_node,
        intra_node_link=row.intra_node_link,
        inter_node_fabric=row.inter_node_fabric,
        inter_node_gbps_per_gpu=row.inter_node_gbps_per_gpu,
        max_nodes=row.max_nodes,
        scaleup_domain_gpus=row.scaleup_domain_gpus,
        price_note=row.price_note,
        min_term_hours=row.min_term_hours,
        stale=stale,
    )


def load_snapshot(
    session: Session, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS, today: date | None = None
) -> specs.CatalogSnapshot:
    """Read the catalog; offers and per-token prices dated more than `stale_after_days` before `today`, and undated
    ones (a price list copied without its day), carry `stale=True`: ranked only where the user includes stale
    prices, labelled. An older copy of an offer stored beside a newer one at the same price is left out
    (queries.offer_reading)."""
    today = today or today_utc()
    providers = {p.id: p.name for p in session.exec(select(Provider)).all()}
    gpus = fill_catalog_gaps({g.id: gpu_spec(g) for g in session.exec(select(Gpu)).all()})
    models = {m.id: model_spec(m) for m in session.exec(select(LlmModel)).all()}
    rows, _ = newest_readings(
        session.exec(select(Offer).order_by(col(Offer.id))).all(), offer_reading, lambda o: o.as_of or date.min
    )
    offers = tuple(
        offer_spec(
            o,
            providers.get(o.provider_id, o.provider_id),
            o.as_of is None or stale_since(o.as_of, stale_after_days) <= today,
        )
        for o in rows
    )
    token_prices = tuple(
        specs.TokenPrice(
            provider_id=t.provider_id,
            provider_name=providers.get(t.provider_id, t.provider_id),
            model_id=t.model_id or "",
            input_usd_per_mtok=t.input_usd_per_mtok,
            output_usd_per_mtok=t.output_usd_per_mtok,
            as_of=t.as_of,
            cached_input_usd_per_mtok=t.cached_input_usd_per_mtok,
            lora_serving=t.lora_serving,
            source_url=t.source_url,
            provider_model_id=t.provider_model_id,
            model_name=t.model_name,
            as_of_basis=t.as_of_basis,
            unverified=t.unverified,
            deprecated=t.deprecated,
            # Undated per-token prices are listed (unlike undated offers), and stale: no day says they are current.
            stale=t.as_of is None or stale_since(t.as_of, stale_after_days) <= today,
            status_note=t.status_note,
            disputed_input_usd_per_mtok=t.disputed_input_usd_per_mtok,
            disputed_output_usd_per_mtok=t.disputed_output_usd_per_mtok,
            availability_unconfirmed=t.availability_unconfirmed,
            weak_source=t.weak_source,
        )
        for t in session.exec(select(TokenPrice).order_by(col(TokenPrice.id))).all()
    )
    stale_count = sum(1 for o in offers if o.stale) + sum(1 for t in token_prices if t.stale)
    # Counted as /api/v1/offers lists them: a superseded price is history (its GPU's earlier prices), counted apart.
    offered = [o for o in offers if not o.superseded]
    return specs.CatalogSnapshot(
        gpus=gpus,
        models=models,
        offers=offers,
        offers_in_catalog=len(offered),
        offers_dated=sum(1 for o in offered if o.as_of),
        earlier_prices_in_catalog=len(offers) - len(offered),
        token_prices=token_prices,
        quality=quality_results(session),
        tco=tco_inputs(session),
        version=f"{catalog_version(session)}-stale{stale_count}",
        providers=providers,
    )


def quality_results(session: Session) -> tuple[specs.QualityResult, ...]:
    rows = session.exec(select(QualityResult).order_by(col(QualityResult.id))).all()
    names = [f.name for f in fields(specs.QualityResult)]
    return tuple(
        specs.QualityResult(**{**{n: getattr(r, n) for n in names}, "model_id": r.model_id or ""}) for r in rows
    )


def tco_inputs(session: Session) -> tuple[specs.TcoInput, ...]:
    rows = session.exec(select(TcoInput).order_by(col(TcoInput.id))).all()
    names = [f.name for f in fields(specs.TcoInput)]
    return tuple(specs.TcoInput(**{**{n: getattr(r, n) for n in names}, "gpu_id": r.gpu_id or ""}) for r in rows)


def next_stale_day(snapshot: specs.CatalogSnapshot, stale_after_days: int) -> date | None:
    """The first day one of the snapshot's fresh offers or per-token prices turns stale (None: every one already
    is)."""
    dates = [o.as_of for o in snapshot.offers if not o.stale] + [t.as_of for t in snapshot.token_prices if not t.stale]
    return min((stale_since(d, stale_after_days) for d in dates if d), default=None)


class SnapshotCache:
    """One snapshot per process; `get()` is cheap on the hot path.

    The memo is `_snapshot` with what decides its life: `_database_version` (catalog_version when it loaded),
    `_reload_on` (next_stale_day: the first day one of its fresh prices turns stale) and `_checked_at` (when the
    version was last read). It is replaced by a fresh load when a recheck, due every `recheck_s`, finds another
    catalog version (an import or admin edit on any replica) or finds `_reload_on` reached; invalidate() drops it
    at once (this process's own edits). Each snapshot's own memo (scoring.snapshot_memo) goes with it.
    """

    def __init__(
        self,
        engine: Engine,
        recheck_s: float = VERSION_RECHECK_S,
        stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    ) -> None:
        self._engine = engine
        self._recheck_s = recheck_s
        self._stale_after_days = stale_after_days
        self._lock = threading.Lock()
        self._snapshot: specs.CatalogSnapshot | None = None
        self._database_version = ""
        self._reload_on: date | None = None
        self._checked_at = 0.0
        self._recheck_lock = threading.Lock()
        self._recheck: Future[specs.CatalogSnapshot] | None = None

    def due(self) -> bool:
        """The database version was last checked longer ago than the recheck interval (or never)."""
        return self._snapshot is None or time.monotonic() - self._checked_at >= self._recheck_s

    def current(self) -> specs.CatalogSnapshot | None:
        """The snapshot where no recheck is due (no database read: safe in the event loop), else None."""
        return None if self.due() else self._snapshot

    def get(self) -> specs.CatalogSnapshot:
        """The snapshot, its version rechecked against the database when due."""
        if (snapshot := self.current()) is not None:
            return snapshot
        with Session(self._engine) as session:
            return self.recheck(session)

    def recheck(self, session: Session) -> specs.CatalogSnapshot:
        """The snapshot, its version checked against the database now, through `session` (/readyz: the request's)."""
        with self._lock:
            version = catalog_version(session)
            today = today_utc()
            day_rolled = self._reload_on is not None and today >= self._reload_on
            if self._snapshot is None or self._database_version != version or day_rolled:
                self._snapshot = load_snapshot(session, self._stale_after_days, today)
                self._database_version = version
                self._reload_on = next_stale_day(self._snapshot, self._stale_after_days)
            self._checked_at = time.monotonic()
            return self._snapshot

    def recheck_in_background(self) -> Future[specs.CatalogSnapshot] | None:
        """`get()` on a thread of its own when a recheck is due (None when not; the one running, if any): a caller in
        the event loop (/healthz) never waits for a threadpool slot or the database, yet sees a change another
        process made (a CLI import) within the recheck interval, as rankings do."""
        with self._recheck_lock:
            if self._recheck is not None and not self._recheck.done():
                return self._recheck
            if not self.due():
                return None
            future: Future[specs.CatalogSnapshot] = Future()
            self._recheck = future

        def run() -> None:
            try:
                future.set_result(self.get())
            except Exception as exc:  # noqa: BLE001 - the caller answers from memory; readiness reports the database
                future.set_exception(exc)

        threading.Thread(target=run, name="catalog-recheck", daemon=True).start()
        return future

    def peek(self) -> specs.CatalogSnapshot | None:
        """The snapshot in memory, without touching the database (None before the first load)."""
        return self._snapshot

    def invalidate(self) -> None:
        with self._lock:
            self._snapshot = None
