"""what LoRA adapts on a model: MLA's projection sizes and fused experts (model.q_lora_rank, qk_nope_head_dim,
v_head_dim, experts_fused, router_fused)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06

Non-null columns with server defaults 0 / false: existing rows keep what the LoRA count read before these columns (GQA
attention, every expert adapted); the seed load that follows every upgrade (app/cli/common.py setup_database) upserts
the facts from seed_data/models.csv (DeepSeek-V3 q_lora_rank 1536, qk_nope 128, v 128; gpt-oss and Llama 4 fused).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SIZES = ("q_lora_rank", "qk_nope_head_dim", "v_head_dim")
FLAGS = ("experts_fused", "router_fused")


def upgrade() -> None:
    # In place: a false() default would make the batch copy `model`, which token_price and quality rows reference.
    with op.batch_alter_table("model", schema=None, recreate="never") as batch_op:
        for name in SIZES:
            batch_op.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
        for name in FLAGS:
            batch_op.add_column(sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # In place, as 0013: a batch copy of `model` cannot drop the table while token_price and quality rows reference it.
    with op.batch_alter_table("model", schema=None, recreate="never") as batch_op:
        for name in (*FLAGS, *SIZES):
            batch_op.drop_column(name)
