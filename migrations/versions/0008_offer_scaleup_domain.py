"""offer scale-up domain: GPUs one NVLink domain spans when it is larger than a node (an NVL72 rack)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05

offer.scaleup_domain_gpus (nullable integer; null = the node is the domain). CoreWeave rents GB200 as 4-GPU nodes of
an NVL72 rack whose NVLink domain spans 72 GPUs: a tensor-parallel group may span its nodes at NVLink speed. The seed
load that follows every upgrade (app/cli/common.py setup_database) upserts the value from seed_data/offers.csv.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scaleup_domain_gpus", sa.Integer(), nullable=True))


def downgrade() -> None:
    # In place (SQLite >= 3.35 drops a column), as 0006 does.
    with op.batch_alter_table("offer", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("scaleup_domain_gpus")
