"""token price trust: how the date reads, and the reference's unverified / deprecated flags

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05

token_price.as_of_basis (exact | on_or_before | approximate, "" = not stated), token_price.unverified and
token_price.deprecated (booleans) and token_price.status_note (why). Server defaults ("" and false) keep existing
rows valid; the seed load that follows every upgrade (app/cli/common.py setup_database) upserts the values from
seed_data/token_prices.csv into the existing rows.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("token_price", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("as_of_basis", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("unverified", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("deprecated", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(
            sa.Column("status_note", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False, server_default="")
        )


def downgrade() -> None:
    # In place (SQLite >= 3.35 drops a column), as 0006 does.
    with op.batch_alter_table("token_price", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("status_note")
        batch_op.drop_column("deprecated")
        batch_op.drop_column("unverified")
        batch_op.drop_column("as_of_basis")
