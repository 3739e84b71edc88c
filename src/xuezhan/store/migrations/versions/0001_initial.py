"""The first schema: accounts, balances, rooms, matches, hands, settlements, the coin
ledger (transfers of two postings) and item cards.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def upgrade() -> None:
    accounts = op.create_table(
        "accounts",
        sa.Column("id", BigId, nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        _created(),
        sa.CheckConstraint("kind IN ('player', 'house', 'mint', 'clearing')", name="ck_accounts_kind"),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("name", name="uq_accounts_name"),
    )
    op.create_table(
        "balances",
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.Column("overdraft", sa.Boolean(), nullable=False),
        sa.CheckConstraint("overdraft OR coins >= 0", name="ck_balances_not_negative"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_balances_account_id_accounts"),
        sa.PrimaryKeyConstraint("account_id", name="pk_balances"),
    )
    # the system accounts: the house (fees), the mint (issues coins), the table (clearing)
    op.bulk_insert(accounts, [{"name": "#house", "kind": "house"}, {"name": "#mint", "kind": "mint"},
                              {"name": "#table", "kind": "clearing"}])
    op.execute("INSERT INTO balances (account_id, coins, overdraft) SELECT id, 0, kind = 'mint' FROM accounts")
    op.create_table(
        "rooms",
        sa.Column("id", BigId, nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name="pk_rooms"),
        sa.UniqueConstraint("name", name="uq_rooms_name"),
    )
    op.create_table(
        "matches",
        sa.Column("id", BigId, nullable=False),
        sa.Column("room_id", BigId, nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        _created(),
        sa.CheckConstraint("status IN ('running', 'finished')", name="ck_matches_status"),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], name="fk_matches_room_id_rooms"),
        sa.PrimaryKeyConstraint("id", name="pk_matches"),
    )
    op.create_index("ix_matches_room_id", "matches", ["room_id"])
    op.create_table(
        "hands",
        sa.Column("id", BigId, nullable=False),
        sa.Column("match_id", BigId, nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name="fk_hands_match_id_matches"),
        sa.PrimaryKeyConstraint("id", name="pk_hands"),
        sa.UniqueConstraint("match_id", "hand_no", name="uq_hands_match_hand"),
    )
    op.create_table(
        "settlements",
        sa.Column("id", BigId, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("hand_id", BigId, nullable=False),
        sa.Column("payload_sha256", sa.String(64), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name="fk_settlements_hand_id_hands"),
        sa.PrimaryKeyConstraint("id", name="pk_settlements"),
        sa.UniqueConstraint("key", name="uq_settlements_key"),
        sa.UniqueConstraint("hand_id", name="uq_settlements_hand_id"),
    )
    op.create_table(
        "hand_points",
        sa.Column("hand_id", BigId, nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_hand_points_account_id_accounts"),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name="fk_hand_points_hand_id_hands"),
        sa.PrimaryKeyConstraint("hand_id", "account_id", name="pk_hand_points"),
    )
    op.create_table(
        "coin_transfers",
        sa.Column("id", BigId, nullable=False),
        sa.Column("key", sa.String(200), nullable=True),
        sa.Column("settlement_id", BigId, nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("memo", sa.String(200), nullable=False),
        _created(),
        sa.CheckConstraint("reason IN ('grant', 'fee', 'stake', 'winnings')", name="ck_coin_transfers_reason"),
        sa.ForeignKeyConstraint(["settlement_id"], ["settlements.id"],
                                name="fk_coin_transfers_settlement_id_settlements"),
        sa.PrimaryKeyConstraint("id", name="pk_coin_transfers"),
        sa.UniqueConstraint("key", name="uq_coin_transfers_key"),
    )
    op.create_index("ix_coin_transfers_settlement_id", "coin_transfers", ["settlement_id"])
    op.create_table(
        "postings",
        sa.Column("id", BigId, nullable=False),
        sa.Column("transfer_id", BigId, nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name="ck_postings_nonzero"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_postings_account_id_accounts"),
        sa.ForeignKeyConstraint(["transfer_id"], ["coin_transfers.id"],
                                name="fk_postings_transfer_id_coin_transfers"),
        sa.PrimaryKeyConstraint("id", name="pk_postings"),
    )
    op.create_index("ix_postings_account", "postings", ["account_id"])
    op.create_index("ix_postings_transfer_id", "postings", ["transfer_id"])
    op.create_table(
        "item_stock",
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.CheckConstraint("quantity >= 0", name="ck_item_stock_not_negative"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_item_stock_account_id_accounts"),
        sa.PrimaryKeyConstraint("account_id", "kind", name="pk_item_stock"),
    )
    op.create_table(
        "item_spends",
        sa.Column("id", BigId, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("match_id", BigId, nullable=True),
        _created(),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_item_spends_account_id_accounts"),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name="fk_item_spends_match_id_matches"),
        sa.PrimaryKeyConstraint("id", name="pk_item_spends"),
        sa.UniqueConstraint("key", name="uq_item_spends_key"),
    )
    op.create_index("ix_item_spends_account_id", "item_spends", ["account_id"])


def downgrade() -> None:
    for index, table in (
        ("ix_item_spends_account_id", "item_spends"),
        ("ix_postings_transfer_id", "postings"),
        ("ix_postings_account", "postings"),
        ("ix_coin_transfers_settlement_id", "coin_transfers"),
        ("ix_matches_room_id", "matches"),
    ):
        op.drop_index(index, table_name=table)
    for table in ("item_spends", "item_stock", "postings", "coin_transfers", "hand_points", "settlements",
                  "hands", "matches", "rooms", "balances", "accounts"):
        op.drop_table(table)
