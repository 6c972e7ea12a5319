"""Open games, joining by mail, standby lists and replacements (issue 32).

- ``lobby_game``: a game announced with open seats (``pbem new GAME --open N``), until it starts or is
  cancelled; ``lobby_seat``: the seats taken in it, each confirmed by its player;
- ``lobby_code``: one-time codes mailed to an address (join, leave, resign, concede, a seat offered),
  kept as their SHA-256;
- ``standby``: addresses willing to take over a seat of a game type;
- ``vacancy``: a running game's seat offered for replacement, and who took it.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

Int64 = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # A database made by the host's create_all with this code already has them.
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "lobby_game" not in existing:
        op.create_table(
            "lobby_game",
            sa.Column("id", sa.String(length=64), primary_key=True),
            sa.Column("game_type", sa.String(length=64), nullable=False),
            sa.Column("seats", sa.Integer(), nullable=False),
            sa.Column("settings_json", sa.Text(), nullable=False),
            sa.Column("start_by", sa.DateTime(timezone=True), nullable=True),
            sa.Column("fill_with_bots", sa.Boolean(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        )
        op.create_index("ix_lobby_game_status", "lobby_game", ["status"])
    if "lobby_seat" not in existing:
        op.create_table(
            "lobby_seat",
            sa.Column("id", Int64, primary_key=True, autoincrement=True),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("lobby_game.id"), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("language", sa.String(length=8), nullable=True),
            sa.Column("position", sa.Integer(), nullable=False),
            sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
            sa.UniqueConstraint("game_id", "seat"),
            sa.UniqueConstraint("game_id", "email"),
            sa.UniqueConstraint("game_id", "position"),
        )
        op.create_index("ix_lobby_seat_game_id", "lobby_seat", ["game_id"])
    if "lobby_code" not in existing:
        op.create_table(
            "lobby_code",
            sa.Column("id", Int64, primary_key=True, autoincrement=True),
            sa.Column("code_sha256", sa.String(length=64), nullable=False, unique=True),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("game_id", sa.String(length=64), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=True),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("language", sa.String(length=8), nullable=True),
            sa.Column("vacancy_id", Int64, nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        )
        op.create_index("ix_lobby_code_game_id", "lobby_code", ["game_id"])
        op.create_index("ix_lobby_code_email", "lobby_code", ["email"])
    if "standby" not in existing:
        op.create_table(
            "standby",
            sa.Column("id", Int64, primary_key=True, autoincrement=True),
            sa.Column("game_type", sa.String(length=64), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("language", sa.String(length=8), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.UniqueConstraint("game_type", "email"),
        )
        op.create_index("ix_standby_game_type", "standby", ["game_type"])
    if "vacancy" not in existing:
        op.create_table(
            "vacancy",
            sa.Column("id", Int64, primary_key=True, autoincrement=True),
            sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
            sa.Column("seat", sa.String(length=32), nullable=False),
            sa.Column("number", sa.Integer(), nullable=False),
            sa.Column("reason", sa.String(length=16), nullable=False),
            sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("filled_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("filled_by", sa.String(length=320), nullable=True),
            sa.UniqueConstraint("game_id", "seat", "number"),
        )
        op.create_index("ix_vacancy_game_id", "vacancy", ["game_id"])


def downgrade() -> None:
    for table in ("vacancy", "standby", "lobby_code", "lobby_seat", "lobby_game"):
        op.drop_table(table)
