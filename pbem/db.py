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

import fcntl
import os
import re
import sqlite3
import time
import weakref
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, Row, bindparam, create_engine, event, make_url, text, update
from sqlalchemy.exc import DatabaseError, DBAPIError, IntegrityError, OperationalError, ProgrammingError
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


def _shown(url: str) -> str:
    """The URL as an error may show it: never its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not even a URL: still cut anything between "//" and "@"
        return re.sub(r"//[^/@]*@", "//***@", url)


def _sqlite_path(url: str) -> Path | None:
    try:
        parsed = make_url(url)
    except Exception:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    if parsed.database.startswith("file:"):  # a URI filename (?mode=ro&uri=true)
        name = parsed.database[5:].split("?", 1)[0]
        return Path(name) if name and name != ":memory:" else None
    return Path(parsed.database)


# ------------------------------------------------------------------------------ SQLite's one writer


#: statements that never take SQLite's write lock: reads, a deferred BEGIN, the ends of a transaction,
#: the connection's own settings. Everything else is taken for a write (a read taken for one only waits
#: its turn: never wrong, only slower).
_NO_WRITE = re.compile(
    r"\s*(?:SELECT\b|BEGIN(?:\s+DEFERRED)?(?:\s+TRANSACTION)?\s*;?\s*$|COMMIT\b|END\b|ROLLBACK\b"
    r"|SAVEPOINT\b|RELEASE\b|EXPLAIN\b|PRAGMA\s+(?!journal_mode)\w+\s*(?:=|;|$|\())",
    re.IGNORECASE,
)
_WRITING_CTE = re.compile(r"\b(?:INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


@lru_cache(maxsize=512)
def writes(sql: str) -> bool:
    """Whether ``sql`` may take SQLite's write lock. (The hot statements are built once, so their text
    repeats: the answer is kept by text.)"""
    if _NO_WRITE.match(sql):
        return False
    head = sql.lstrip()[:4].upper()
    return head != "WITH" or _WRITING_CTE.search(sql) is not None


class WriteLock:
    """The lock file beside one SQLite database, held (``flock``, exclusive) by a connection from just
    before the first write of a transaction until it commits or rolls back.

    Why: SQLite lets one writer at a time, and one that finds the database locked sleeps in its busy
    handler in steps of 1, 2, 5, 10… ms however soon the lock is free: two tick jobs lost a sixth of
    their time so, for writes of 1-3 ms. Writers queued on this file instead take their turn as soon
    as it is given back. It adds nothing to the safety: SQLite's own locks and busy timeout are still
    there behind it, for a writer that does not take this file (another program, an older pbem) or
    when the file cannot be had; the kernel frees a dead process's ``flock`` at once.
    """

    #: a wait for the file is polled, this often at most (the kernel wakes no one waiting with a
    #: timeout: flock's own blocking wait has none, and a hung writer must not hang every other one)
    POLL_SECONDS = 0.0004

    def __init__(self, database: Path, timeout: float = BUSY_TIMEOUT_MS / 1000) -> None:
        self.database, self.path = database, database.with_name(database.name + LOCK_SUFFIX)
        self.timeout = timeout
        self.held = False
        self._fd: int | None = None
        self._closer: weakref.finalize | None = None
        self._pid = 0

    def take(self) -> None:
        """Take the file (waiting up to ``timeout``); without it if it cannot be had."""
        fd = self._open()
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not self._wait(fd):
                return  # SQLite's busy timeout decides now, as without this file
        except OSError:  # a file system without flock: SQLite's own locking only
            return
        self.held = True

    def give(self) -> None:
        if self.held:
            self.held = False
            if self._fd is not None and self._pid == os.getpid():
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        self.give()
        if self._closer is not None and self._pid == os.getpid():
            self._closer()
        self._fd = self._closer = None

    def _wait(self, fd: int) -> bool:
        deadline = time.monotonic() + self.timeout
        pause = self.POLL_SECONDS / 8
        while time.monotonic() < deadline:
            time.sleep(pause)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pause = min(pause * 2, self.POLL_SECONDS)
        return False

    def _open(self) -> int | None:
        if self._pid != os.getpid():  # new, or inherited through a fork: the parent's file stays the parent's
            self._fd, self._closer, self.held, self._pid = None, None, False, os.getpid()
        if self._fd is None:
            try:  # as readable as the database itself, so every user that may write it may queue
                mode = self.database.stat().st_mode & 0o666
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, mode)
            except OSError:  # a read-only folder: it writes nothing, or fails on SQLite's own lock
                return None
            # a connection dropped without being closed (its sqlite3 handle is closed by the C code,
            # not by close()) must still give the file back: closing the file frees its flock
            self._closer = weakref.finalize(self, os.close, self._fd)
        return self._fd


LOCK_SUFFIX = "-writer"


class _QueuedCursor(sqlite3.Cursor):
    connection: _QueuedConnection

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        self.connection.before(sql)
        try:
            return super().execute(sql, parameters)
        finally:
            self.connection.settled()

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        self.connection.before(sql)
        try:
            return super().executemany(sql, parameters)
        finally:
            self.connection.settled()

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        self.connection.before("-- a script")
        try:
            return super().executescript(script)
        finally:
            self.connection.settled()


#: a pbem process checkpoints the WAL itself after this many of its write transactions on a database,
#: once it has given the writers' file back (about SQLite's own 1,000 pages at a tick's ~10 a transaction)
CHECKPOINT_EVERY = 100
#: SQLite's own checkpoint, run at a commit while the writers' file is still held, only past this many
#: pages of WAL: a backstop for a process that writes too little to reach :data:`CHECKPOINT_EVERY`
BACKSTOP_PAGES = 4000


@dataclass
class _Tally:
    """Write transactions one process ended on one database since it last checkpointed."""

    pid: int = 0
    count: int = 0


class _QueuedConnection(sqlite3.Connection):
    """An SQLite connection that takes its database's :class:`WriteLock` around each write
    transaction (the ``factory`` given to ``sqlite3.connect``; :func:`sqlite_connect_args`).

    It also moves the WAL's checkpoints out of the writers' turn: SQLite runs its automatic one inside
    the commit that crosses 1,000 pages, with the file still held (a tick's other job then waits for
    copying 4 MB and two fsyncs, where SQLite's own write lock would have let it go on); here every
    :data:`CHECKPOINT_EVERY` write transactions of the process, a passive checkpoint runs just after
    the file is given back. Durability is SQLite's as before (WAL, ``synchronous = NORMAL``)."""

    database_path: Path
    tally: _Tally

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.write_lock = WriteLock(self.database_path)
        sqlite3.Connection.execute(self, f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")

    def checkpoint(self) -> None:
        """A passive checkpoint: copies what it can of the WAL into the database, waits for no one."""
        with suppress(sqlite3.Error):  # closed, or busy: the next one (or the backstop) does it
            sqlite3.Connection.execute(self, "PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _wrote(self) -> None:
        tally = self.tally
        if tally.pid != os.getpid():  # a forked child counts its own
            tally.pid, tally.count = os.getpid(), 0
        tally.count += 1
        if tally.count >= CHECKPOINT_EVERY:
            tally.count = 0
            self.checkpoint()

    def before(self, sql: str) -> None:
        if not self.write_lock.held and writes(sql):
            self.write_lock.take()

    def settled(self) -> None:
        """After a statement or the end of a transaction: the file is given back once none is open."""
        if self.write_lock.held:
            try:
                still = self.in_transaction
            except sqlite3.ProgrammingError:  # closed: its transaction is gone with it
                still = False
            if not still:
                self.write_lock.give()
                self._wrote()

    def cursor(self, factory: Any = _QueuedCursor) -> Any:  # type: ignore[override]
        return super().cursor(factory)

    # the connection's shortcuts run their statement on a cursor of the C type: through ours instead
    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        return self.cursor().executescript(script)

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.settled()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.settled()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.write_lock.close()


@lru_cache(maxsize=16)
def _queued_factory(database: Path) -> type[_QueuedConnection]:
    return type("QueuedConnection", (_QueuedConnection,), {"database_path": database, "tally": _Tally()})


def sqlite_connect_args(url: str) -> dict[str, Any]:
    """``connect_args`` for an SQLite engine on ``url``: the busy timeout, and for a database file the
    connection that queues its writers on the file's :class:`WriteLock` (every pbem engine on a file
    is made with these, so a tick's jobs and a ``pbem submit`` queue together)."""
    args: dict[str, Any] = {"timeout": BUSY_TIMEOUT_MS / 1000}
    path = _sqlite_path(url)
    if path is not None:
        args["factory"] = _queued_factory(path.absolute())  # as SQLAlchemy opens the file
    return args


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
    from pbem.migrations import current, head

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
            from pbem.migrations import current, head

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
