"""Rooms run by the nodes of a cluster: ``room_leases`` holds, for each room, the node that runs
it, until when (the node renews it), and the fencing token that goes up at each take-over
(:mod:`xuezhan.store.leases`); also what the lobby lists of the room.

Revision ID: 0010
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "room_leases",
        sa.Column("room_id", BigId, nullable=False),
        sa.Column("node", sa.String(length=100), nullable=True),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], name=op.f("fk_room_leases_room_id_rooms")),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_leases")),
    )
    op.create_index(op.f("ix_room_leases_expires_at"), "room_leases", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_room_leases_expires_at"), table_name="room_leases")
    op.drop_table("room_leases")
