"""token price doubts: another source's figures, availability to verify, a weak source

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06

token_price.disputed_input_usd_per_mtok and disputed_output_usd_per_mtok (another source's figures, null = none),
token_price.availability_unconfirmed and token_price.weak_source (booleans). Null and false server defaults keep
existing rows valid; the seed load that follows every upgrade (app/cli/common.py setup_database) upserts the values
from seed_data/token_prices.csv into the existing rows, as after 0007 and 0008.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("token_price", schema=None) as batch_op:
        batch_op.add_column(sa.Column("disputed_input_usd_per_mtok", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("disputed_output_usd_per_mtok", sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column("availability_unconfirmed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("weak_source", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # In place (SQLite >= 3.35 drops a column), as 0006 and 0007 do.
    with op.batch_alter_table("token_price", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("weak_source")
        batch_op.drop_column("availability_unconfirmed")
        batch_op.drop_column("disputed_output_usd_per_mtok")
        batch_op.drop_column("disputed_input_usd_per_mtok")
