"""The catalog as plain scoring types, cached in memory and reloaded when the catalog changes.

Ranking runs on every request, so it reads this snapshot rather than the database. A cheap
version query (row counts and the newest price-history id) is re-checked at most every few
seconds, so a price import on one replica reaches the others without a restart.
"""

from __future__ import annotations

import threading
import time
from dataclasses import fields

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.models import Gpu, LlmModel, Offer, PriceHistory, Provider, TokenPrice
from app.scoring import specs

VERSION_RECHECK_S = 5.0


def _spec(cls: type, row: object) -> object:
    return cls(**{f.name: getattr(row, f.name) for f in fields(cls) if hasattr(row, f.name)})


def catalog_version(session: Session) -> str:
    parts = [
        session.exec(select(func.count()).select_from(table)).one()  # type: ignore[arg-type]
        for table in (Gpu, LlmModel, Offer, TokenPrice, Provider)
    ]
    newest_price = session.exec(select(func.max(PriceHistory.id))).one()
    return "-".join(str(p) for p in [*parts, newest_price or 0])


def load_snapshot(session: Session) -> specs.CatalogSnapshot:
    providers = {p.id: p.name for p in session.exec(select(Provider)).all()}
    gpus = {g.id: _spec(specs.GpuSpec, g) for g in session.exec(select(Gpu)).all()}
    models = {m.id: _spec(specs.ModelSpec, m) for m in session.exec(select(LlmModel)).all()}
    offers = tuple(
        specs.Offer(
            provider_id=o.provider_id,
            provider_name=providers.get(o.provider_id, o.provider_id),
            gpu_id=o.gpu_id,
            gpu_count=o.gpu_count,
            price_type=o.price_type,
            usd_per_gpu_hour=o.usd_per_gpu_hour,
            as_of=o.as_of,
            instance_type=o.instance_type,
            region=o.region,
            source_url=o.source_url,
            offer_id=o.id,
        )
        for o in session.exec(select(Offer).where(col(Offer.as_of).is_not(None)).order_by(col(Offer.id))).all()
    )
    token_prices = tuple(
        specs.TokenPrice(
            provider_id=t.provider_id,
            provider_name=providers.get(t.provider_id, t.provider_id),
            model_id=t.model_id or "",
            input_usd_per_mtok=t.input_usd_per_mtok,
            output_usd_per_mtok=t.output_usd_per_mtok,
            as_of=t.as_of,
            source_url=t.source_url,
        )
        for t in session.exec(select(TokenPrice).order_by(col(TokenPrice.id))).all()
    )
    return specs.CatalogSnapshot(
        gpus=gpus,
        models=models,
        offers=offers,
        token_prices=token_prices,  # type: ignore[arg-type]
        version=catalog_version(session),
    )


class SnapshotCache:
    """One snapshot per process; `get()` is cheap on the hot path."""

    def __init__(self, engine: Engine, recheck_s: float = VERSION_RECHECK_S) -> None:
        self._engine = engine
        self._recheck_s = recheck_s
        self._lock = threading.Lock()
        self._snapshot: specs.CatalogSnapshot | None = None
        self._checked_at = 0.0

    def get(self) -> specs.CatalogSnapshot:
        now = time.monotonic()
        if self._snapshot is not None and now - self._checked_at < self._recheck_s:
            return self._snapshot
        with self._lock:
            with Session(self._engine) as session:
                version = catalog_version(session)
                if self._snapshot is None or self._snapshot.version != version:
                    self._snapshot = load_snapshot(session)
            self._checked_at = time.monotonic()
            return self._snapshot

    def invalidate(self) -> None:
        with self._lock:
            self._snapshot = None
