"""Hands as append-only logs (the deal, then every action applied, in order), room
metadata for a server's lobby, and a third match status, ``abandoned``.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# 0001 spelt out the full name and the naming convention prefixed it again; 0003 renames the check
# to the name the models give it.
_OLD_STATUS_CHECK = "ck_matches_ck_matches_status"
_STATUS_CHECK = "ck_matches_status"
_OLD_STATUSES = "'running', 'finished'"
_STATUSES = "'running', 'finished', 'abandoned'"


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def _status_check(drop: str, create: str, old: str, new: str) -> None:
    """Replace the check on ``matches.status`` (the check ``drop`` allowing ``old``) by ``create`` allowing ``new``."""
    if op.get_context().dialect.name != "sqlite":
        op.drop_constraint(op.f(drop), "matches", type_="check")
        op.create_check_constraint(op.f(create), "matches", f"status IN ({new})")
        return
    # SQLite cannot alter a check, and copying the table (Alembic's batch mode) would break the
    # foreign keys of the tables that refer to matches unless they were switched off, which cannot
    # be done inside a transaction. The check only widens or narrows a list of names, so edit the
    # table's definition in place, as SQLite documents for changes that leave the stored data valid
    # (https://sqlite.org/lang_altertable.html#otheralter).
    before = f"CONSTRAINT {drop} CHECK (status IN ({old}))"
    after = f"CONSTRAINT {create} CHECK (status IN ({new}))"
    bind = op.get_bind()
    sql = bind.execute(sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'matches'")).scalar_one()
    if sql.count(before) != 1:
        raise RuntimeError(f"matches is not defined as this migration expects: no {before!r} in {sql!r}")
    version = bind.execute(sa.text("PRAGMA schema_version")).scalar_one()
    bind.execute(sa.text("PRAGMA writable_schema = ON"))
    bind.execute(sa.text("UPDATE sqlite_master SET sql = :sql WHERE type = 'table' AND name = 'matches'"),
                 {"sql": sql.replace(before, after)})
    bind.execute(sa.text(f"PRAGMA schema_version = {int(version) + 1}"))
    bind.execute(sa.text("PRAGMA writable_schema = OFF"))


def upgrade() -> None:
    op.add_column("rooms", sa.Column("meta", sa.JSON(), nullable=True))
    _status_check(_OLD_STATUS_CHECK, _STATUS_CHECK, _OLD_STATUSES, _STATUSES)
    op.create_table(
        "hand_logs",
        sa.Column("id", BigId, nullable=False),
        sa.Column("match_id", BigId, nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("start", sa.JSON(), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name=op.f("fk_hand_logs_match_id_matches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hand_logs")),
        sa.UniqueConstraint("match_id", "hand_no", name=op.f("uq_hand_logs_match_hand")),
    )
    op.create_table(
        "hand_actions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("hand_log_id", BigId, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        _created(),
        sa.CheckConstraint("seq >= 0", name=op.f("ck_hand_actions_seq_not_negative")),
        sa.ForeignKeyConstraint(["hand_log_id"], ["hand_logs.id"],
                                name=op.f("fk_hand_actions_hand_log_id_hand_logs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hand_actions")),
        sa.UniqueConstraint("hand_log_id", "seq", name=op.f("uq_hand_actions_log_seq")),
    )


def downgrade() -> None:
    op.drop_table("hand_actions")
    op.drop_table("hand_logs")
    # an abandoned match is over, as a finished one is
    op.execute("UPDATE matches SET status = 'finished' WHERE status = 'abandoned'")
    _status_check(_STATUS_CHECK, _OLD_STATUS_CHECK, _STATUSES, _OLD_STATUSES)
    op.drop_column("rooms", "meta")
