"""RunPod Community Cloud is a provider of its own, priced as a marketplace

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05

A data migration, no schema change. The seed had RunPod's Secure and Community clouds as one provider, `runpod`, with
the tier only in `region`; one ranked row per provider let the cheaper Community row hide Secure Cloud's, and ranked
third-party hosts (a marketplace, shared/reference/gpus.csv row RTX-4090) as plain "RunPod on demand". The seed now
has `runpod` (Secure Cloud) and `runpod-community` (Community Cloud, kind marketplace, its rows priced `marketplace`).

The seed load after every upgrade upserts on the natural key (provider, GPU, count, price type, instance, region), so
it would add the Community rows under their new key and leave the old ones under `runpod`, on demand, named as Secure
Cloud. This moves the stored rows instead: the same ids, so their price history and newer imported prices stay. A
database without a `runpod` provider (a new one: the seed adds both) is left as it is.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMUNITY_REGION = "Community Cloud"
ADD_PROVIDER = sa.text(
    "INSERT INTO provider (id, name, kind, url) SELECT 'runpod-community', 'RunPod Community Cloud', 'marketplace', url"
    " FROM provider WHERE id = 'runpod'"
    " AND NOT EXISTS (SELECT 1 FROM provider WHERE id = 'runpod-community')"
)
# A row already stored under the target key stays where it is (the natural key is unique).
NOT_TAKEN = (
    " AND NOT EXISTS (SELECT 1 FROM offer AS other WHERE other.provider_id = :to_provider"
    " AND other.gpu_id = offer.gpu_id AND other.gpu_count = offer.gpu_count AND other.price_type = :to_type"
    " AND other.instance_type = offer.instance_type AND other.region = offer.region)"
)
MOVE = sa.text(
    "UPDATE offer SET provider_id = :to_provider, price_type = :to_type"
    " WHERE provider_id = :from_provider AND price_type = :from_type AND region = :region" + NOT_TAKEN
)


def _move(from_provider: str, from_type: str, to_provider: str, to_type: str) -> None:
    op.get_bind().execute(
        MOVE,
        {
            "from_provider": from_provider,
            "from_type": from_type,
            "to_provider": to_provider,
            "to_type": to_type,
            "region": COMMUNITY_REGION,
        },
    )


def upgrade() -> None:
    op.get_bind().execute(ADD_PROVIDER)
    _move("runpod", "on_demand", "runpod-community", "marketplace")


def downgrade() -> None:
    _move("runpod-community", "marketplace", "runpod", "on_demand")
    op.get_bind().execute(
        sa.text(
            "DELETE FROM provider WHERE id = 'runpod-community'"
            " AND NOT EXISTS (SELECT 1 FROM offer WHERE provider_id = 'runpod-community')"
            " AND NOT EXISTS (SELECT 1 FROM token_price WHERE provider_id = 'runpod-community')"
        )
    )
