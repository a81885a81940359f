"""Run Alembic migrations from code (the CLI, app start-up and the tests share this)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.config import PROJECT_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    from app.catalog.setup.setup_lock import setup_lock

    with setup_lock(database_url):  # two processes on a fresh database must not both create its tables
        command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def check(database_url: str) -> None:
    """Raise if the models and the migrations disagree (alembic check)."""
    command.check(alembic_config(database_url))
