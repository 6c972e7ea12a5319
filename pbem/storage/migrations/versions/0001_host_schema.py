"""The host's schema as `pbem/models.py` stood when migrations began.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("game_type", sa.String(length=64), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("options_json", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("state_z", sa.LargeBinary(), nullable=False),
        sa.Column("state_sha256", sa.String(length=64), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=True),
        sa.Column("grace_seconds", sa.Integer(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("nmr", sa.String(length=16), nullable=False),
        sa.Column("abandon_after", sa.Integer(), nullable=True),
        sa.Column("require_from_match", sa.Boolean(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=128), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_game_deadline_at"), "game", ["deadline_at"], unique=False)
    op.create_index(op.f("ix_game_game_type"), "game", ["game_type"], unique=False)
    op.create_index(op.f("ix_game_status"), "game", ["status"], unique=False)
    op.create_table(
        "host",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=300), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("to_addr", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("message_z", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("dedupe_key"),
    )
    op.create_index(op.f("ix_outbox_game_id"), "outbox", ["game_id"], unique=False)
    op.create_index(op.f("ix_outbox_next_attempt_at"), "outbox", ["next_attempt_at"], unique=False)
    op.create_index(op.f("ix_outbox_status"), "outbox", ["status"], unique=False)
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.String(length=32), nullable=True),
        sa.Column("epoch", sa.Integer(), nullable=True),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("from_address", sa.String(length=320), nullable=True),
        sa.Column("raw_z", sa.LargeBinary(), nullable=False),
        sa.Column("orders_json", sa.String(), nullable=True),
        sa.Column("receipt", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("errors", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_submission_game_id"), "submission", ["game_id"], unique=False)
    op.create_index(op.f("ix_submission_status"), "submission", ["status"], unique=False)
    op.create_table(
        "inbound",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=400), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("from_address", sa.String(length=320), nullable=True),
        sa.Column("raw_z", sa.LargeBinary(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submission.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_table(
        "observer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "email"),
    )
    op.create_index(op.f("ix_observer_game_id"), "observer", ["game_id"], unique=False)
    op.create_table(
        "report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(length=32), nullable=False),
        sa.Column("text_z", sa.LargeBinary(), nullable=False),
        sa.Column("html_z", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "epoch", "turn", "seat"),
    )
    op.create_index(op.f("ix_report_game_id"), "report", ["game_id"], unique=False)
    op.create_table(
        "seat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=256), nullable=False),
        sa.Column("misses", sa.Integer(), nullable=False),
        sa.Column("abandoned", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "name"),
        sa.UniqueConstraint("game_id", "position"),
    )
    op.create_index(op.f("ix_seat_game_id"), "seat", ["game_id"], unique=False)
    op.create_table(
        "turn",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("state_z", sa.LargeBinary(), nullable=False),
        sa.Column("state_sha256", sa.String(length=64), nullable=False),
        sa.Column("orders_z", sa.LargeBinary(), nullable=False),
        sa.Column("by_bot_json", sa.String(), nullable=False),
        sa.Column("events_z", sa.LargeBinary(), nullable=False),
        sa.Column("chance_json", sa.String(), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("undone", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "epoch", "number"),
    )
    op.create_index(op.f("ix_turn_game_id"), "turn", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_turn_game_id"), table_name="turn")
    op.drop_table("turn")
    op.drop_index(op.f("ix_seat_game_id"), table_name="seat")
    op.drop_table("seat")
    op.drop_index(op.f("ix_report_game_id"), table_name="report")
    op.drop_table("report")
    op.drop_index(op.f("ix_observer_game_id"), table_name="observer")
    op.drop_table("observer")
    op.drop_table("inbound")
    op.drop_index(op.f("ix_submission_status"), table_name="submission")
    op.drop_index(op.f("ix_submission_game_id"), table_name="submission")
    op.drop_table("submission")
    op.drop_index(op.f("ix_outbox_status"), table_name="outbox")
    op.drop_index(op.f("ix_outbox_next_attempt_at"), table_name="outbox")
    op.drop_index(op.f("ix_outbox_game_id"), table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("host")
    op.drop_index(op.f("ix_game_status"), table_name="game")
    op.drop_index(op.f("ix_game_game_type"), table_name="game")
    op.drop_index(op.f("ix_game_deadline_at"), table_name="game")
    op.drop_table("game")
