"""What each person's name looks like: ``accounts.name_skeleton`` (its confusable skeleton,
UTS #39), so that a new name cannot pass for an existing one.

The skeletons are made by the server, which knows the confusable data
(:func:`xuezhan.server.names.name_skeleton`): it fills every empty one when it opens the
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


def upgrade() -> None:
    op.add_column("accounts", sa.Column("name_skeleton", sa.Text(), nullable=True))
    op.create_index(op.f("ix_accounts_name_skeleton"), "accounts", ["name_skeleton"])


def downgrade() -> None:
    op.drop_index(op.f("ix_accounts_name_skeleton"), table_name="accounts")
    op.drop_column("accounts", "name_skeleton")
