"""What each person's name looks like: ``name_skeletons`` holds each account's confusable
skeleton (UTS #39), so that a new name cannot pass for an existing one.

The skeletons are made by the server, which knows the confusable data
(:func:`xuezhan.server.names.name_skeleton`): it fills every missing one when it opens the
database, and makes them all again when that data changes. Accounts that already share a
skeleton keep their names; only new look-alikes are refused.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "name_skeletons",
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("skeleton", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_name_skeletons_account_id_accounts")),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_name_skeletons")),
    )
    op.create_index(op.f("ix_name_skeletons_skeleton"), "name_skeletons", ["skeleton"])


def downgrade() -> None:
    op.drop_index(op.f("ix_name_skeletons_skeleton"), table_name="name_skeletons")
    op.drop_table("name_skeletons")
