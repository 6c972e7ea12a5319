"""Seat columns for the mail conversation (issue 14): a requested password and when it was asked for.

- ``seat.pending_password_hash``: the password a ``password`` mail sent to the seat's address; the old
  one keeps working until this one is first used, so nobody can lock a player out by asking for
  resets.
- ``seat.password_reset_at``: the moment of the last reset mail (at most one a day per seat).

Revision ID: 0008
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = (
    ("pending_password_hash", sa.String(length=256)),
    ("password_reset_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    # A database made by the host's create_all with this code already has the columns.
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("seat")}
    for name, kind in COLUMNS:
        if name not in present:
            op.add_column("seat", sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    for name, _kind in reversed(COLUMNS):
        op.drop_column("seat", name)
