"""Catalog tables, one module per part of the catalog: hardware (GPUs, providers, offers, price
history), llm (models, token prices), reference (quality results, TCO inputs) and versions (catalog
revision, price snapshots, share links).

This __init__ imports every table module, in the order the tables were defined before the split,
because SQLModel registers a table on SQLModel.metadata when its class is imported: importing
app.models (as migrations/env.py does) makes Alembic and create_all see every table. It re-exports
no names; import a table from its module."""

from app.models import hardware, llm, reference, versions  # noqa: F401  (registers the tables)
