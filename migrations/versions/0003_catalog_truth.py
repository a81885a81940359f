"""catalog truth: offer topology and terms, GPU peak status, token cache/LoRA terms, edit counter

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

New non-null text columns get a server default so existing rows stay valid ("" = unknown).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("gpu", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "peak_verification", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False, server_default=""
            )
        )

    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.add_column(sa.Column("gpus_per_node", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("intra_node_link", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False, server_default="")
        )
        batch_op.add_column(
            sa.Column(
                "inter_node_fabric", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False, server_default=""
            )
        )
        batch_op.add_column(sa.Column("inter_node_gbps_per_gpu", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("max_nodes", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "topology_source", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False, server_default=""
            )
        )
        batch_op.add_column(sa.Column("min_term_hours", sa.Float(), nullable=True))

    with op.batch_alter_table("token_price", schema=None) as batch_op:
        batch_op.add_column(sa.Column("cached_input_usd_per_mtok", sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "lora_serving", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False, server_default="unknown"
            )
        )
        batch_op.add_column(
            sa.Column("lora_source", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("token_price", schema=None) as batch_op:
        batch_op.drop_column("lora_source")
        batch_op.drop_column("lora_serving")
        batch_op.drop_column("cached_input_usd_per_mtok")

    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.drop_column("min_term_hours")
        batch_op.drop_column("topology_source")
        batch_op.drop_column("max_nodes")
        batch_op.drop_column("inter_node_gbps_per_gpu")
        batch_op.drop_column("inter_node_fabric")
        batch_op.drop_column("intra_node_link")
        batch_op.drop_column("gpus_per_node")

    with op.batch_alter_table("gpu", schema=None) as batch_op:
        batch_op.drop_column("peak_verification")

    op.drop_table("catalog_revision")
