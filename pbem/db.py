"""Connecting to the database: SQLite by default, PostgreSQL unchanged.

SQLite runs in WAL mode with a busy timeout, and with real transactions: pysqlite's own transaction
handling starts a transaction only at the first write, so reads before it would not be part of it. The
turn driver and the order intake lock a game row with a write as their first statement (see
:func:`lock_game`), which on SQLite takes the database's write lock and on PostgreSQL the row's.
"""

from __future__ import annotations

import os
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlmodel import Session

from pbem import models
from pbem.errors import UserError
from pbem.migrations import upgrade

DEFAULT_URL = "sqlite:///pbem.sqlite"
SCHEMA_VERSION = "1"
BUSY_TIMEOUT_MS = 30_000


def database_url(url: str | None = None) -> str:
    """``url``, else ``$PBEM_DB``, else an SQLite file in the working directory. A bare path is taken
    as an SQLite file."""
    chosen = url or os.environ.get("PBEM_DB") or DEFAULT_URL
    if "://" not in chosen:
        chosen = f"sqlite:///{chosen}"
    scheme, sep, rest = chosen.partition("://")
    if scheme in ("postgresql", "postgres"):  # SQLAlchemy's default would be psycopg2; the extra is psycopg 3
        chosen = f"postgresql+psycopg{sep}{rest}"
    return chosen


def _shown(url: str) -> str:
    """``url`` with its password hidden: it goes into messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not even a URL: nothing to hide in it that the user did not just type
        return url.split("@")[-1]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Autocommit at the driver level; the "begin" hook below issues BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN")


def connect(url: str | None = None) -> Engine:
    """An engine for ``url`` (see :func:`database_url`), with the schema created if missing."""
    chosen = database_url(url)
    try:
        if chosen.startswith("sqlite"):
            engine = create_engine(chosen, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
            event.listen(engine, "connect", _sqlite_pragmas)
            event.listen(engine, "begin", _sqlite_begin)
        else:
            engine = create_engine(chosen, pool_pre_ping=True)
    except ModuleNotFoundError as exc:  # a driver not installed: name the extra that brings it
        extra = " (install it with: pip install 'pbem[postgres]')" if "psycopg" in str(exc.name) else ""
        raise UserError(
            f"cannot use database {_shown(chosen)}: its driver {exc.name} is missing{extra}"
        ) from None
    except Exception as exc:  # a malformed URL or an unknown driver: the user's to fix
        raise UserError(f"cannot use database {_shown(chosen)}: {exc}") from None
    _create_schema(engine)
    return engine


def _create_schema(engine: Engine) -> None:
    # The schema comes from the alembic revisions, so a database made by an older pbem upgrades in
    # place. upgrade() serialises hosts that start together; the retry covers a fresh SQLite file whose
    # creation itself raced.
    attempts = 5
    for attempt in range(attempts):
        try:
            upgrade(engine)
            with Session(engine) as session:
                if session.get(models.HostRow, "schema_version") is None:
                    session.add(models.HostRow(key="schema_version", value=SCHEMA_VERSION))
                    session.commit()
            return
        except (OperationalError, ProgrammingError, IntegrityError) as exc:
            if attempt == attempts - 1:
                url = engine.url.render_as_string(hide_password=True)
                raise UserError(f"cannot open the database {url}: {exc.orig}") from None
            time.sleep(0.05 * (attempt + 1))


def lock_game(session: Session, game_id: str) -> bool:
    """Take the write lock on ``game_id`` for the rest of the transaction: a no-op update, so it must be
    the transaction's first statement. Returns whether the game exists.

    Whoever holds it sees every change committed before; a second turn driver or order intake on the
    same game waits for the first to commit (busy timeout on SQLite, row lock on PostgreSQL).
    """
    result = session.connection().execute(text("UPDATE game SET turn = turn WHERE id = :id"), {"id": game_id})
    return result.rowcount == 1
