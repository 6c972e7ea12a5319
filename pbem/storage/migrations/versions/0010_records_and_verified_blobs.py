"""Games recorded elsewhere, and stored reports a verify can check.

- ``game_origin``: one row per game brought in from a record made elsewhere (``pbem import`` of a
  record file), saying so, and whether the record gave a seed. A game whose record gave none has no
  seed: its draws are the record's, and ``pbem replay --verify`` checks them against nothing else
  (before, such a game was stored with seed 0 and every draw then failed the check against seed 0).
  A table of its own rather than columns of ``game``: nullable ``game.seed`` would mean rebuilding
  the game table on SQLite, which its foreign keys forbid inside the migration's transaction.
- ``report.content_sha256``: the SHA-256 of a stored report (its text, a NUL, its HTML), so that
  ``pbem replay --verify`` can tell a corrupted report from a good one. Reports stored before stay
  without one; a verify checks only that they can still be read.

Revision ID: 0010
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    # A database made by the host's create_all with this code already has them.
    if "game_origin" not in inspector.get_table_names():
        op.create_table(
            "game_origin",
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), primary_key=True),
            sa.Column("recorded_elsewhere", sa.Boolean(), nullable=False),
            sa.Column("has_seed", sa.Boolean(), nullable=False),
        )
    if "content_sha256" not in {c["name"] for c in inspector.get_columns("report")}:
        op.add_column("report", sa.Column("content_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("report", "content_sha256")
    op.drop_table("game_origin")
