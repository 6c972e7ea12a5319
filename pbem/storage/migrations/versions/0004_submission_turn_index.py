"""``ix_submission_turn``: the orders that stand for a game's turn, found by one index.

Every turn, tick and status asks for a game's accepted submissions of one turn (game, epoch, turn,
status). With an index on each column alone, SQLite's planner (no statistics) chose the one on status
and walked every accepted submission of the host: a cost growing with the number of games waiting for
orders, not with the game asked about.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

INDEX = "ix_submission_turn"


def upgrade() -> None:
    # A database made by the host's create_all with this code already has it.
    if INDEX not in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("submission")}:
        op.create_index(INDEX, "submission", ["game_id", "epoch", "turn", "status"], unique=False)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="submission")
