"""The tables the cron layer adds to the host's schema (migration ``0002``).

- ``cron_notice``: one row per (game, epoch, turn, seat, kind) for everything that must happen at most
  once per turn per seat: a reminder, a late notice, a counted miss, a seat marked abandoned. The unique
  constraint is what makes two ticks at once send one reminder, not two.
- ``cron_clock``: per game, which turn the current deadline belongs to and, while paused, how much time
  was left, so that ``resume`` gives it back.
- ``cron_tick``: one row per tick (the summary line, kept for ``pbem tick --history`` and the outage
  guard's evidence).
- ``cron_gm_action``: what a game master did and when (pause, extend, replace, rollback, observers).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.storage.models import Int64


class NoticeRow(SQLModel, table=True):
    """Something done once for one seat in one turn. ``kind``: reminder · late · miss · abandoned."""

    __tablename__ = "cron_notice"
    __table_args__ = (UniqueConstraint("game_id", "epoch", "turn", "seat", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    epoch: int = 0
    turn: int  # the turn the orders were due for (``GameRow.turn + 1`` at the time)
    seat: str = Field(max_length=32)
    kind: str = Field(max_length=16)
    created_at: datetime


class ClockRow(SQLModel, table=True):
    """The deadline's bookkeeping for one game: ``epoch``/``turn`` say which due turn
    ``GameRow.deadline_at`` was set for (so a turn resolved outside a tick still gets a fresh deadline),
    ``paused_left`` the seconds that were left when the game was paused."""

    __tablename__ = "cron_clock"

    game_id: str = Field(foreign_key="game.id", primary_key=True, max_length=64)
    epoch: int = 0
    turn: int = 0
    paused_left: int | None = Field(default=None, sa_column=Column(Int64, nullable=True))  # 64-bit (0005)


class TickRow(SQLModel, table=True):
    """One run of ``pbem tick`` by one host."""

    __tablename__ = "cron_tick"

    id: int | None = Field(default=None, primary_key=True)
    host: str = Field(max_length=128)
    started_at: datetime = Field(index=True)
    finished_at: datetime | None = None
    games_seen: int = 0
    turns_resolved: int = 0
    mails_sent: int = 0
    reminders: int = 0
    errors: int = 0
    # the gap the outage guard gave back to every deadline, if any (64-bit since revision 0005)
    outage_seconds: int = Field(default=0, sa_column=Column(Int64, nullable=False))


class GmActionRow(SQLModel, table=True):
    """A game master's command, for the record."""

    __tablename__ = "cron_gm_action"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    at: datetime
    action: str = Field(max_length=16)  # pause | resume | extend | replace | rollback | observe | unobserve
    detail: str = Field(default="", max_length=1000)  # never a password
