"""Press: what players write each other through the host (issue 14).

- ``game.press``: ``none``, ``public`` (to every seat at once) or ``private`` (also to chosen seats),
  njudge's press settings; existing games get ``private``, the default of a new game.
- ``press``: one row per press message (sender, recipients, turn, time, text), kept with the game and
  shown in its archive once it is over.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    # A database made by the host's create_all with this code already has them.
    if "press" not in {c["name"] for c in inspector.get_columns("game")}:
        op.add_column(
            "game", sa.Column("press", sa.String(length=16), nullable=False, server_default="private")
        )
    if "press" not in inspector.get_table_names():
        op.create_table(
            "press",
            sa.Column(
                "id",
                sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                primary_key=True,
                autoincrement=True,
            ),
            sa.Column("key", sa.String(length=300), nullable=False, unique=True),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
            sa.Column("epoch", sa.Integer(), nullable=False),
            sa.Column("turn", sa.Integer(), nullable=False),
            sa.Column("sender", sa.String(length=32), nullable=False),
            sa.Column("to_all", sa.Boolean(), nullable=False),
            sa.Column("recipients_json", sa.String(), nullable=False),
            sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
        )
        op.create_index("ix_press_game_id", "press", ["game_id"])
        op.create_index("ix_press_sent_at", "press", ["sent_at"])


def downgrade() -> None:
    op.drop_index("ix_press_sent_at", "press")
    op.drop_index("ix_press_game_id", "press")
    op.drop_table("press")
    op.drop_column("game", "press")
