"""Seat columns for the mail conversation (issue 14): a requested password and when it was asked for.

- ``seat.pending_password_hash``: the password a ``password`` mail sent to the seat's address; the old
  one keeps working until this one is first used, so nobody can lock a player out by asking for
  resets.
- ``seat.password_reset_at``: the moment of the last reset mail (at most one a day per seat).
- ``seat.bounces``: mails to the seat that bounced in a row; two mark it unreachable.

Revision ID: 0008
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _columns() -> list[sa.Column]:  # new objects each time: a column belongs to one table
    return [
        sa.Column("pending_password_hash", sa.String(length=256), nullable=True),
        sa.Column("password_reset_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("bounces", sa.Integer(), server_default="0", nullable=False),
    ]


def upgrade() -> None:
    # A database made by the host's create_all with this code already has the columns.
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("seat")}
    for column in _columns():
        if column.name not in present:
            op.add_column("seat", column)


def downgrade() -> None:
    for column in reversed(_columns()):
        op.drop_column("seat", column.name)
