"""The game master by mail (issue 14): a game's game-master address and password.

- ``game_master``: at most one row per game, its game master's address and the password's salted hash
  (``pbem new --gm EMAIL``, ``pbem gm ID --email EMAIL``). The mail commands pause, resume, extend,
  replace, rollback and observe are carried out only for mail from that address with that password.

Revision ID: 0012
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A database made by the host's create_all with this code already has it.
    if "game_master" not in sa.inspect(op.get_bind()).get_table_names():
        op.create_table(
            "game_master",
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), primary_key=True),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("password_hash", sa.String(length=256), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("game_master")
