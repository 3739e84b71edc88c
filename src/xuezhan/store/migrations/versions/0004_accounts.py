"""Accounts people keep: a unique name key, a password hash, a chosen language, the digest of
the address an account was made from; and sessions kept in the database.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _key(name: str) -> str:
    # as xuezhan.server.names.name_key did when this migration was written
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(ch for ch in folded if not ch.isspace())


def upgrade() -> None:
    op.add_column("accounts", sa.Column("name_key", sa.String(100), nullable=True))
    op.add_column("accounts", sa.Column("password_hash", sa.String(255), nullable=True))
    op.add_column("accounts", sa.Column("lang", sa.String(8), nullable=True))
    op.add_column("accounts", sa.Column("origin", sa.String(64), nullable=True))
    bind = op.get_bind()
    taken: set[str] = set()
    rows = bind.execute(sa.text("SELECT id, name FROM accounts WHERE kind = 'player' ORDER BY id")).all()
    for ident, name in rows:
        key = _key(name)
        if key in taken:
            continue  # the older account keeps the name; the newer one keeps playing under its own
        taken.add(key)
        bind.execute(sa.text("UPDATE accounts SET name_key = :key WHERE id = :id"), {"key": key, "id": ident})
    op.create_index(op.f("ix_accounts_name_key"), "accounts", ["name_key"], unique=True)
    op.create_index(op.f("ix_accounts_origin"), "accounts", ["origin"])
    op.create_table(
        "sessions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_sessions_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    op.create_index(op.f("ix_sessions_account_id"), "sessions", ["account_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_sessions_account_id"), table_name="sessions")
    op.drop_table("sessions")
    op.drop_index(op.f("ix_accounts_origin"), table_name="accounts")
    op.drop_index(op.f("ix_accounts_name_key"), table_name="accounts")
    for column in ("origin", "lang", "password_hash", "name_key"):
        op.drop_column("accounts", column)  # SQLite 3.35+ drops a column in place
