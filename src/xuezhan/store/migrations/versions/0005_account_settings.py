"""What a person chose for the page, kept per account (the table's sounds muted or not), in a
table of its own: one row per account once it has chosen anything.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "account_settings",
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("mute", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_account_settings_account_id_accounts")),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_account_settings")),
    )


def downgrade() -> None:
    op.drop_table("account_settings")
