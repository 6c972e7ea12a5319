"""Claims fenced by a generation, and wrong passwords counted per seat (issue 20).

- ``game.claim_generation``: raised by one at every claim of the game by a tick; whatever the tick then
  writes under that claim (a resolved turn, queued mail) checks, in the same transaction, that the
  game's generation is still the one it claimed with. A tick whose lease ran out (a slow process, a
  clock behind) thus writes nothing once another tick has taken the game over (:mod:`pbem.host.claims`).
- ``password_failure``: one row per wrong password given by mail for a seat, from any address, so that
  guesses are limited per seat and not only per sender (:mod:`pbem.intake.guessing`).

Revision ID: 0013
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "claim_generation" not in {c["name"] for c in inspector.get_columns("game")}:
        op.add_column("game", sa.Column("claim_generation", sa.Integer(), nullable=False, server_default="0"))
    if "password_failure" not in inspector.get_table_names():
        op.create_table(
            "password_failure",
            sa.Column(
                "id",
                sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                primary_key=True,
                autoincrement=True,
            ),
            sa.Column("game_id", sa.String(length=64), nullable=False),
            sa.Column("seat", sa.String(length=64), nullable=False),
            sa.Column("from_address", sa.String(length=320), nullable=True),
            sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        )
        op.create_index("ix_password_failure_game_id", "password_failure", ["game_id"])
        op.create_index("ix_password_failure_at", "password_failure", ["at"])


def downgrade() -> None:
    op.drop_index("ix_password_failure_at", "password_failure")
    op.drop_index("ix_password_failure_game_id", "password_failure")
    op.drop_table("password_failure")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("claim_generation")
