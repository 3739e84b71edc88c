"""Tournaments (比赛): ``tournaments`` keeps each one held (its entrants, rounds, tables and
standings, as one JSON state beside its status), and coin transfers take the reasons of a
tournament's coins: ``entry``, ``refund`` and ``prize`` (with those of the shop, ``item``, and
of 叫马, ``jiao_ma``, so that the list holds whatever order the migrations that add them run in).

Revision ID: 0008
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

REASONS = "reason IN ('grant', 'fee', 'stake', 'winnings', 'item', 'jiao_ma', 'entry', 'refund', 'prize')"
BEFORE = "reason IN ('grant', 'fee', 'stake', 'winnings')"


OLD_NAME = "ck_coin_transfers_ck_coin_transfers_reason"  # as 0001 named it (the naming convention applied twice)
NEW_NAME = "ck_coin_transfers_reason"  # as the model names it


def _reasons(old: str, new: str, check: str) -> None:
    with op.batch_alter_table("coin_transfers") as batch:
        batch.drop_constraint(op.f(old), type_="check")
        batch.create_check_constraint(op.f(new), check)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", BigId, nullable=False),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.CheckConstraint("status IN ('open', 'running', 'finished', 'cancelled')",
                           name=op.f("ck_tournaments_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("key", name=op.f("uq_tournaments_key")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"])
    _reasons(OLD_NAME, NEW_NAME, REASONS)


def downgrade() -> None:
    _reasons(NEW_NAME, OLD_NAME, BEFORE)
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
