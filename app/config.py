"""Settings from the environment (prefix GPUMATCH_), one object for the whole app."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUMATCH_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{PROJECT_ROOT / 'var' / 'gpumatch.db'}",
        description="any SQLAlchemy URL; SQLite file under ./var by default",
    )
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    seed_dir: Path = PROJECT_ROOT / "seed_data"
    # Prices older than this are flagged stale in the UI and the API.
    stale_after_days: int = Field(180, ge=1, le=3650)
    # "cdn" loads htmx from unpkg with SRI and falls back to static/vendor; "local" never leaves the host.
    asset_source: Literal["cdn", "local"] = "cdn"
    admin_token: str | None = Field(None, min_length=16)
    rate_limit: str | None = Field(None, description='e.g. "120/minute" per client on /api/*')
    rate_limit_storage_uri: str = "memory://"
    environment: Literal["development", "test", "production"] = "development"


@lru_cache
def get_settings() -> Settings:
    return Settings()
