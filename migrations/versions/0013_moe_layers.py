"""a model's MoE layer count: model.moe_layers

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05

One non-null integer column with server default 0; existing MoE rows are set to every layer (what the estimator read
before this column), and the seed load that follows every upgrade (app/cli/common.py setup_database) upserts the
counts from seed_data/models.csv (DeepSeek-V3 58 of 61 layers, Llama 4 Maverick 24 of 48).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EVERY_LAYER_OF_MOE_MODELS = sa.text("UPDATE model SET moe_layers = layers WHERE num_experts > 0")


def upgrade() -> None:
    with op.batch_alter_table("model", schema=None) as batch_op:
        batch_op.add_column(sa.Column("moe_layers", sa.Integer(), nullable=False, server_default="0"))
    op.execute(EVERY_LAYER_OF_MOE_MODELS)


def downgrade() -> None:
    # In place, as 0006: a batch copy of `model` cannot drop the table while token_price and quality rows reference it.
    with op.batch_alter_table("model", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("moe_layers")
