"""The cluster's queue and leaders: ``queue_tickets`` holds the people queued on every node
(:mod:`xuezhan.store.queue`), ``leader_leases`` the tasks one node runs at a time (seating the
queue, the tournaments: :mod:`xuezhan.store.leaders`).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "leader_leases",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("node", sa.String(length=100), nullable=True),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_leader_leases")),
    )
    op.create_table(
        "queue_tickets",
        sa.Column("player", sa.String(length=64), nullable=False),
        sa.Column("tier", sa.String(length=20), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("exchange_three", sa.Boolean(), nullable=False),
        sa.Column("room", sa.JSON(), nullable=False),
        sa.Column("lang", sa.String(length=16), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("table", sa.String(length=16), nullable=True),
        sa.CheckConstraint("state IN ('waiting', 'seating', 'seated')", name=op.f("ck_queue_tickets_state")),
        sa.PrimaryKeyConstraint("player", name=op.f("pk_queue_tickets")),
    )
    op.create_index(op.f("ix_queue_tickets_since"), "queue_tickets", ["since"])


def downgrade() -> None:
    op.drop_index(op.f("ix_queue_tickets_since"), table_name="queue_tickets")
    op.drop_table("queue_tickets")
    op.drop_table("leader_leases")
