"""Tournaments (比赛): ``tournaments`` keeps each one held (its entrants, rounds, tables and
standings, as one JSON state beside its status), and coin transfers take the reasons of a
tournament's coins: ``entry``, ``refund`` and ``prize``, and of 叫马, ``jiao_ma`` (0007 added
the shop's ``item`` and gave the check the models' name).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

REASONS = "reason IN ('grant', 'fee', 'stake', 'winnings', 'item', 'jiao_ma', 'entry', 'refund', 'prize')"
BEFORE = "reason IN ('grant', 'fee', 'stake', 'winnings', 'item')"  # as 0007 left it

NAME = "ck_coin_transfers_reason"  # as the model names it (and 0007 named it)


def _reasons(check: str) -> None:
    with op.batch_alter_table("coin_transfers") as batch:
        batch.drop_constraint(op.f(NAME), type_="check")
        batch.create_check_constraint(op.f(NAME), check)


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
    _reasons(REASONS)


def downgrade() -> None:
    _reasons(BEFORE)
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
