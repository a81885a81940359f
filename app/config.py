"""Settings from the environment (prefix GPUMATCH_), one object for the whole app."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "testserver")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUMATCH_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{PROJECT_ROOT / 'var' / 'gpumatch.db'}",
        description="any SQLAlchemy URL; by default SQLite at PROJECT_ROOT/var/gpumatch.db, whatever the working "
        "directory",
    )
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    seed_dir: Path = PROJECT_ROOT / "seed_data"
    # Prices older than this are flagged stale in the UI and the API.
    stale_after_days: int = Field(180, ge=1, le=3650)
    catalog_recheck_s: float = Field(
        5.0,  # app.catalog.snapshot.VERSION_RECHECK_S
        ge=0,
        le=3600,
        description="seconds between a worker's checks of the catalog version (0: every request, so an admin edit "
        "through one worker is what every other answers with next)",
    )
    admin_token: str | None = Field(None, min_length=16)
    rate_limit: str | None = Field(None, description='e.g. "120/minute" per client on /api/*')
    rate_limit_storage_uri: str = "memory://"
    # Hardening (docs/SECURITY.md lists every limit and why it has its default).
    max_body_bytes: int = Field(1_000_000, ge=1_024, le=1_000_000_000, description="413 above this many bytes")
    share_rate_limit: str = Field("30/minute", description="per client on POST /share (a DB write each)")
    trusted_proxies: str = Field("", description="comma-separated proxy IPs/CIDRs whose X-Forwarded-* is believed")
    allowed_hosts: str = Field("", description="comma-separated Host names; empty = loopback")
    max_concurrent_rankings: int | None = Field(None, ge=1, le=10_000, description="default: 2 x CPU cores")
    warm_api_docs: bool = Field(
        True, description="build /docs' API reference on a thread at start-up (~1 s), not on the first visit"
    )

    def proxy_list(self) -> list[str]:
        return _split(self.trusted_proxies)

    def host_list(self) -> list[str]:
        # Unset: loopback names only (and Starlette's TestClient host); a deployment names its hosts.
        return _split(self.allowed_hosts) or list(DEFAULT_ALLOWED_HOSTS)

    def ranking_slots(self) -> int:
        return self.max_concurrent_rankings or 2 * (os.cpu_count() or 1)


def _split(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@lru_cache
def get_settings() -> Settings:
    return Settings()
