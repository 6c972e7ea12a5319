"""Schema changes as alembic revisions, run in place by :func:`upgrade`.

Revision ``0001`` is the host's schema as :mod:`pbem.storage.models` stood when migrations began; ``0002``
adds the cron layer's tables (:mod:`pbem.storage.cron_models`); ``0003`` marks which reports' mail is queued
(``report.mail_queued``), backfilled from the outbox; ``0004`` indexes a turn's submissions;
``0005`` widens to 64 bits every integer that can pass 2**31 (the seed first); ``0006`` gives games
and seats a language; ``0007`` the dice derivation, time zones and time away; ``0008`` password
resets and bounces; ``0009`` redacts passwords already stored; ``0010`` records where a game came
from (``game_origin``) and gives stored reports a hash. A
database made before migrations existed (tables
but no ``alembic_version``) is stamped ``0001`` first, then brought to head, keeping its data.

Several hosts may start on the same database at once, so the upgrade holds a lock for its whole run:
a transaction-scoped advisory lock on PostgreSQL, ``BEGIN IMMEDIATE`` (the database's write lock) on
SQLite. Whoever waits re-reads the revision inside the lock and finds nothing left to do.

>>> from sqlalchemy import create_engine
>>> engine = create_engine("sqlite://")
>>> upgrade(engine)
'0010'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

from pbem.storage.sqlite import immediate_engine

HERE = Path(__file__).resolve().parent
#: any 64-bit number of our own: the advisory lock every pbem host takes while it migrates
PG_LOCK_KEY = 0x7062656D_6D696772  # "pbemmigr"


def config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    return cfg


@cache
def head() -> str:
    """The newest revision this code knows (read once: every connect asks)."""
    found = ScriptDirectory.from_config(config()).get_current_head()
    assert found is not None
    return found


def current(engine: Engine | Connection) -> str | None:
    """The database's revision; ``None`` for an empty or a pre-migration database."""
    if isinstance(engine, Connection):
        return MigrationContext.configure(engine).get_current_revision()
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str:
    """Bring the database to ``revision`` (default the newest) in place; returns the revision reached."""
    target = head() if revision == "head" else revision
    if current(engine) == target:
        return target
    with immediate_engine(engine).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})
        cfg = config()
        cfg.attributes["connection"] = conn
        found = current(conn)
        if found is None and inspect(conn).has_table("game"):
            # made by the host's create_all before migrations: that is revision 0001's schema
            command.stamp(cfg, "0001")
        command.upgrade(cfg, target)
        reached = current(conn)
    assert reached is not None
    return reached
