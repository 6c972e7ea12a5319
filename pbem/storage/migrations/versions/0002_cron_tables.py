"""The cron layer's tables: notices sent once per turn and seat, deadline clocks, ticks, game master log.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A database made by an older host with create_all may already hold some of these tables.
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "cron_tick" not in existing:
        op.create_table(
            "cron_tick",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("host", sa.String(length=128), nullable=False),
            sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("games_seen", sa.Integer(), nullable=False),
            sa.Column("turns_resolved", sa.Integer(), nullable=False),
            sa.Column("mails_sent", sa.Integer(), nullable=False),
            sa.Column("reminders", sa.Integer(), nullable=False),
            sa.Column("errors", sa.Integer(), nullable=False),
            sa.Column("outage_seconds", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_cron_tick_started_at"), "cron_tick", ["started_at"], unique=False)
    if "cron_clock" not in existing:
        op.create_table(
            "cron_clock",
            sa.Column("game_id", sa.String(length=64), nullable=False),
            sa.Column("epoch", sa.Integer(), nullable=False),
            sa.Column("turn", sa.Integer(), nullable=False),
            sa.Column("paused_left", sa.Integer(), nullable=True),
            sa.ForeignKeyConstraint(
                ["game_id"],
                ["game.id"],
            ),
            sa.PrimaryKeyConstraint("game_id"),
        )
    if "cron_gm_action" not in existing:
        op.create_table(
            "cron_gm_action",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=64), nullable=False),
            sa.Column("at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("action", sa.String(length=16), nullable=False),
            sa.Column("detail", sa.String(length=1000), nullable=False),
            sa.ForeignKeyConstraint(
                ["game_id"],
                ["game.id"],
            ),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_cron_gm_action_game_id"), "cron_gm_action", ["game_id"], unique=False)
    if "cron_notice" not in existing:
        op.create_table(
            "cron_notice",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=64), nullable=False),
            sa.Column("epoch", sa.Integer(), nullable=False),
            sa.Column("turn", sa.Integer(), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(
                ["game_id"],
                ["game.id"],
            ),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("game_id", "epoch", "turn", "seat", "kind"),
        )
        op.create_index(op.f("ix_cron_notice_game_id"), "cron_notice", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_cron_notice_game_id"), table_name="cron_notice")
    op.drop_table("cron_notice")
    op.drop_index(op.f("ix_cron_gm_action_game_id"), table_name="cron_gm_action")
    op.drop_table("cron_gm_action")
    op.drop_table("cron_clock")
    op.drop_index(op.f("ix_cron_tick_started_at"), table_name="cron_tick")
    op.drop_table("cron_tick")
