"""Connecting to the database: SQLite by default, PostgreSQL unchanged.

SQLite runs in WAL mode with a busy timeout, and with real transactions: pysqlite's own transaction
handling starts a transaction only at the first write, so reads before it would not be part of it. The
turn driver and the order intake lock a game row with a write as their first statement (see
:func:`lock_game`), which on SQLite takes the database's write lock and on PostgreSQL the row's.

SQLite has one writer at a time: pbem's connections to a file queue for it on a lock file beside it
(:class:`WriteLock`, ``<database>-writer``), so a writer goes on the moment the one before it is done
instead of sleeping in SQLite's busy handler, and they checkpoint the WAL after their turn, not in it.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, Row, bindparam, create_engine, event, make_url, text, update
from sqlalchemy.exc import DatabaseError, DBAPIError, IntegrityError, OperationalError, ProgrammingError
from sqlmodel import Session

from pbem.core.errors import UserError
from pbem.storage import models
from pbem.storage.migrations import current, head, upgrade
from pbem.storage.sqlite import (
    BUSY_TIMEOUT_MS,
    _sqlite_path,
    sqlite_connect_args,
)

DEFAULT_URL = "sqlite:///pbem.sqlite"
SCHEMA_VERSION = "1"


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


def _shown(url: str) -> str:
    """The URL as an error may show it: never its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not even a URL: still cut anything between "//" and "@"
        return re.sub(r"//[^/@]*@", "//***@", url)


def connect(url: str | None = None, *, create: bool = True) -> Engine:
    """An engine for ``url`` (see :func:`database_url`), with the schema created if missing.

    ``create=False`` (every command but the ones that make a game): an SQLite file that does not exist
    is an error, not a new empty database, so a mistyped ``--db`` is said, not ticked. A new SQLite file
    is made readable by its owner only: it holds the games' secret seeds."""
    chosen = database_url(url)
    path = _sqlite_path(chosen)
    if path is not None and not path.exists():
        if not create:
            raise UserError(
                f"there is no database at {path}: check --db or $PBEM_DB (pbem new creates a database)"
            )
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise UserError(f"cannot open the database {path}: {exc.strerror}") from None
    try:
        if chosen.startswith("sqlite"):
            engine = create_engine(chosen, connect_args=sqlite_connect_args(chosen))
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
        why = str(exc).replace(chosen, _shown(chosen))
        raise UserError(f"cannot use database {_shown(chosen)}: {why}") from None
    _create_schema(engine)
    return engine


def _at_head(engine: Engine) -> bool:
    """Whether the schema is this code's newest already: then nothing is written, so a read-only
    database can still be inspected."""
    try:
        with engine.connect() as conn:
            if current(conn) != head():
                return False
            return conn.execute(text("SELECT 1 FROM host WHERE key = 'schema_version'")).first() is not None
    except DBAPIError:
        return False


def _create_schema(engine: Engine) -> None:
    # The schema comes from the alembic revisions, so a database made by an older pbem upgrades in
    # place. upgrade() serialises hosts that start together; the retry covers a fresh SQLite file whose
    # creation itself raced.
    url = engine.url.render_as_string(hide_password=True)
    if _at_head(engine):
        return
    attempts = 5
    for attempt in range(attempts):
        try:
            upgrade(engine)
            with Session(engine) as session:
                if session.get(models.HostRow, "schema_version") is None:
                    session.add(models.HostRow(key="schema_version", value=SCHEMA_VERSION))
                    session.commit()
            return
        except CommandError:
            raise UserError(
                f"the database {url} was upgraded by a newer pbem (schema {current(engine)}; this pbem "
                f"knows up to {head()}): upgrade pbem on this machine"
            ) from None
        except (OperationalError, ProgrammingError, IntegrityError, DatabaseError) as exc:
            reason = str(exc.orig)
            if "not a database" in reason or "malformed" in reason:
                raise UserError(f"{url} is not a pbem database (SQLite says: {reason})") from None
            if "readonly" in reason or "read-only" in reason:
                raise UserError(
                    f"the database {url} is read-only and needs an upgrade to this pbem's schema: "
                    "run any pbem command once with write access"
                ) from None
            if attempt == attempts - 1:
                raise UserError(f"cannot open the database {url}: {reason}") from None
            time.sleep(0.05 * (attempt + 1))


def connection_of(db: Session | Connection) -> Connection:
    """The Core connection of ``db``'s transaction: a Session's, or ``db`` itself (code that writes on
    a connection, as the mail pass does, and code that holds a Session share the same statements)."""
    return db.connection() if isinstance(db, Session) else db


def lock_game(session: Session, game_id: str) -> bool:
    """Take the write lock on ``game_id`` for the rest of the transaction: a no-op update, so it must be
    the transaction's first statement. Returns whether the game exists.

    Whoever holds it sees every change committed before; a second turn driver or order intake on the
    same game waits for the first to commit (busy timeout on SQLite, row lock on PostgreSQL).
    """
    result = session.connection().execute(_LOCK, {"id": game_id})
    return result.rowcount == 1


_LOCK = text("UPDATE game SET turn = turn WHERE id = :id")


def locked_game(session: Session, game_id: str) -> Row[Any] | None:
    """:func:`lock_game` and the game row read under it, in one statement (``UPDATE … RETURNING``,
    SQLite 3.35 and PostgreSQL alike): the row as it stands once the lock is ours, as a Core row of the
    table (the entity's attribute names), to read only: it is no object of ``session``. ``None`` when
    there is no such game. Like :func:`lock_game`, it must be the transaction's first statement."""
    return session.connection().execute(_LOCK_AND_READ, {"of_game": game_id}).first()


# built once, on the table, run on the session's connection (building it cost more than running it;
# the ORM's execution and loading of the row into an object cost twice what the statement did)
_GAME_TABLE = models.GameRow.__table__  # type: ignore[attr-defined]
_LOCK_AND_READ = (
    update(_GAME_TABLE)
    .where(_GAME_TABLE.c.id == bindparam("of_game"))
    .values(turn=_GAME_TABLE.c.turn)
    .returning(*_GAME_TABLE.c)
)
