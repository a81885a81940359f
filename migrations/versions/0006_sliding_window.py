"""sliding-window attention: model.sliding_window and model.sliding_layers

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

Two non-null integer columns with a server default of 0 (no sliding window), so existing rows stay
valid; the seed load that follows every upgrade (app/cli/common.py setup_database) upserts the
values from seed_data/models.csv into the existing rows.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("model", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sliding_window", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("sliding_layers", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    # In place (SQLite >= 3.35 drops a column): a batch copy of `model` cannot drop the table while
    # token_price and quality rows reference it.
    with op.batch_alter_table("model", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("sliding_layers")
        batch_op.drop_column("sliding_window")
