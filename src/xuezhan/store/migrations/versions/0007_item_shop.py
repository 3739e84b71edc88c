"""The item shop: coins buy item cards. A purchase is a coin transfer of reason ``item``
(the player → the house) and a row of ``item_purchases`` (how many cards of which kind at
which price), so the audit can check that the house's shop income is what the cards sold cost.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

_REASONS = "reason IN ('grant', 'fee', 'stake', 'winnings', 'item')"
_OLD_REASONS = "reason IN ('grant', 'fee', 'stake', 'winnings')"


def upgrade() -> None:
    # 0001's name went through the naming convention (ck_coin_transfers_ck_coin_transfers_reason);
    # the new constraint takes the models' name as it is
    with op.batch_alter_table("coin_transfers", recreate="auto") as batch:
        batch.drop_constraint("ck_coin_transfers_reason", type_="check")
        batch.create_check_constraint(op.f("ck_coin_transfers_reason"), sa.text(_REASONS))
    op.create_table(
        "item_purchases",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("transfer_id", BigId, nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("price", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.CheckConstraint("count > 0", name=op.f("ck_item_purchases_count_positive")),
        sa.CheckConstraint("price > 0", name=op.f("ck_item_purchases_price_positive")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_item_purchases_account_id_accounts")),
        sa.ForeignKeyConstraint(["transfer_id"], ["coin_transfers.id"],
                                name=op.f("fk_item_purchases_transfer_id_coin_transfers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_item_purchases")),
        sa.UniqueConstraint("transfer_id", name=op.f("uq_item_purchases_transfer_id")),
    )
    op.create_index(op.f("ix_item_purchases_account_id"), "item_purchases", ["account_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_item_purchases_account_id"), table_name="item_purchases")
    op.drop_table("item_purchases")
    with op.batch_alter_table("coin_transfers", recreate="auto") as batch:
        batch.drop_constraint(op.f("ck_coin_transfers_reason"), type_="check")
        batch.create_check_constraint("ck_coin_transfers_reason", sa.text(_OLD_REASONS))  # as 0001 made it
