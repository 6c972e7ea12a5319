"""Seats the stand-in plays (issue 31).

- ``seat.bot_level``: ``easy``, ``normal`` or ``strong`` for a seat played by the stand-in from the
  start (``pbem new --bot SEAT=LEVEL``) or given to it (``pbem replace GAME SEAT --bot LEVEL``); NULL for
  a player's seat, as every seat stored before. The missed-orders policy's level needs no column:
  ``game.nmr`` (16 characters) holds ``bot:normal`` and ``bot:strong`` (10) as it holds ``bot``.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "bot_level" not in {c["name"] for c in inspector.get_columns("seat")}:
        op.add_column("seat", sa.Column("bot_level", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("bot_level")
