"""Committed dice, time zones and time away (issue 17).

``game.dice``: the dice derivation; every game created before this revision keeps version 1 (the
server default), so it still replays. ``game.timezone``/``seat.timezone``: IANA zone names.
``game.absence``/``game.absence_days`` and ``seat.away_until``/``seat.away_days_used``: time away.

Revision ID: 0007
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

GAME = [
    sa.Column("dice", sa.Integer(), server_default="1", nullable=False),
    sa.Column("timezone", sa.String(length=64), server_default="UTC", nullable=False),
    sa.Column("absence", sa.String(length=16), server_default="extend", nullable=False),
    sa.Column("absence_days", sa.Integer(), server_default="14", nullable=False),
]
SEAT = [
    sa.Column("timezone", sa.String(length=64), nullable=True),
    sa.Column("away_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("away_days_used", sa.Integer(), server_default="0", nullable=False),
]


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    # A database made by the host's create_all with this code already has the columns.
    for table, columns in (("game", GAME), ("seat", SEAT)):
        have = {c["name"] for c in inspector.get_columns(table)}
        for column in columns:
            if column.name not in have:
                op.add_column(table, column)


def downgrade() -> None:
    for table, columns in (("seat", SEAT), ("game", GAME)):
        with op.batch_alter_table(table) as batch:
            for column in reversed(columns):
                batch.drop_column(column.name)
