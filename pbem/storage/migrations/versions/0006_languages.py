"""Languages: the game's (its public report, and every seat that chose none) and each seat's own.

Revision ID: 0006
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # A database made by the host's create_all with this code already has the columns.
    if "language" not in _columns("game"):
        op.add_column("game", sa.Column("language", sa.String(length=8), server_default="en", nullable=False))
    if "language" not in _columns("seat"):
        op.add_column("seat", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("language")
