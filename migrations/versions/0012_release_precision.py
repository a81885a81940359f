"""a model's release precision: model.release_precision and model.release_precision_source

Revision ID: 0012
Revises: 0010
Create Date: 2026-12-05

Two non-null text columns with server defaults ('unknown': BF16 assumed, and an empty source), so existing rows stay
valid; the seed load that follows every upgrade (app/cli/common.py setup_database) upserts the values from
seed_data/models.csv into the existing rows. Numbered 0012 to leave 0011 to a change made beside this one: whichever
lands second re-points its down_revision at the other.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("model", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "release_precision",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="unknown",
            )
        )
        batch_op.add_column(
            sa.Column(
                "release_precision_source",
                sqlmodel.sql.sqltypes.AutoString(length=500),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    # In place, as 0006: a batch copy of `model` cannot drop the table while token_price and quality rows reference it.
    with op.batch_alter_table("model", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("release_precision_source")
        batch_op.drop_column("release_precision")
