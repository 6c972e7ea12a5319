"""A player's record and notices besides mail (issue 32).

- ``miss``: every missed deadline kept as its receipt (game, turn, the deadline, what happened), with
  the address the seat had then; a game master may excuse one.
- ``notice_target``: the notice URLs (apprise) a seat named; secrets, like passwords.
- ``push``: a notice queued once per event for one target, sent by the tick's send step.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "miss" not in tables:
        op.create_table(
            "miss",
            sa.Column("id", _ID, primary_key=True, autoincrement=True),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
            sa.Column("epoch", sa.Integer(), nullable=False),
            sa.Column("turn", sa.Integer(), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=False),
            sa.Column("period", sa.Integer(), nullable=False),
            sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("outcome", sa.String(length=16), nullable=False),
            sa.Column("counted_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("excused_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("excused_by", sa.String(length=320), nullable=True),
            sa.UniqueConstraint("game_id", "epoch", "turn", "seat", "period"),
        )
        op.create_index("ix_miss_email", "miss", ["email"])
        op.create_index("ix_miss_game_id", "miss", ["game_id"])
    if "notice_target" not in tables:
        op.create_table(
            "notice_target",
            sa.Column("id", _ID, primary_key=True, autoincrement=True),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=False),
            sa.Column("url", sa.Text(), nullable=False),
            sa.Column("url_sha256", sa.String(length=64), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.UniqueConstraint("game_id", "seat", "url_sha256"),
        )
        op.create_index("ix_notice_target_game_id", "notice_target", ["game_id"])
    if "push" not in tables:
        op.create_table(
            "push",
            sa.Column("id", _ID, primary_key=True, autoincrement=True),
            sa.Column("dedupe_key", sa.String(length=300), nullable=False, unique=True),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
            sa.Column("target_id", _ID, sa.ForeignKey("notice_target.id"), nullable=False),
            sa.Column("title", sa.String(length=300), nullable=False),
            sa.Column("body", sa.Text(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("last_error", sa.String(length=300), nullable=True),
        )
        op.create_index("ix_push_game_id", "push", ["game_id"])
        op.create_index("ix_push_status", "push", ["status"])
        op.create_index("ix_push_next_attempt_at", "push", ["next_attempt_at"])


def downgrade() -> None:
    op.drop_table("push")
    op.drop_table("notice_target")
    op.drop_table("miss")
