"""SQLite as pbem opens it: the connection's settings, a lock file that queues its one writer, and an
engine whose transactions begin ``BEGIN IMMEDIATE`` (for the claims and the migrations, which must
write at once or wait their turn)."""

from __future__ import annotations

import os
import re
import sqlite3
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from filelock import Timeout, UnixFileLock
from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.pool import NullPool

BUSY_TIMEOUT_MS = 30_000


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
    """The lock file beside one SQLite database, held (``flock``, exclusive, through filelock's
    :class:`~filelock.UnixFileLock`) by a connection from just before the first write of a transaction
    until it commits or rolls back.

    Why: SQLite lets one writer at a time, and one that finds the database locked sleeps in its busy
    handler in steps of 1, 2, 5, 10… ms however soon the lock is free: two tick jobs lost a sixth of
    their time so, for writes of 1-3 ms. Writers queued on this file instead take their turn as soon
    as it is given back. It adds nothing to the safety: SQLite's own locks and busy timeout are still
    there behind it, for a writer that does not take this file (another program, an older pbem) or
    when the file cannot be had; the kernel frees a dead process's ``flock`` at once.
    """

    #: a wait for the file is polled this often (the kernel wakes no one waiting with a timeout:
    #: flock's own blocking wait has none, and a hung writer must not hang every other one)
    POLL_SECONDS = 0.0004

    def __init__(self, database: Path, timeout: float = BUSY_TIMEOUT_MS / 1000) -> None:
        self.database, self.path = database, database.with_name(database.name + LOCK_SUFFIX)
        self.timeout = timeout
        self.held = False
        self._lock: UnixFileLock | None = None
        self._pid = 0

    def take(self) -> None:
        """Take the file (waiting up to ``timeout``); without it if it cannot be had."""
        lock = self._file()
        if lock is None:
            return
        try:
            lock.acquire()
        except Timeout:
            return  # SQLite's busy timeout decides now, as without this file
        except OSError:  # it cannot be opened (a read-only folder), or no flock: SQLite's own locking only
            return
        self.held = True

    def give(self) -> None:
        if self.held:
            self.held = False
            if self._lock is not None and self._pid == os.getpid():
                self._lock.release()

    def close(self) -> None:
        self.give()
        self._lock = None

    def _file(self) -> UnixFileLock | None:
        if self._pid != os.getpid():  # new, or inherited through a fork: the parent's file stays the parent's
            self._lock, self.held, self._pid = None, False, os.getpid()
        if self._lock is None:
            try:  # as readable as the database itself, so every user that may write it may queue
                mode = self.database.stat().st_mode & 0o666
            except OSError:
                return None
            # shared by the threads a pooled connection moves between; the file kept on release, so every
            # waiter queues on the one inode; no soft (marker-file) lock where flock is missing: a marker
            # a dead process leaves behind would stop every writer, where SQLite's own lock frees itself
            self._lock = UnixFileLock(
                self.path,
                timeout=self.timeout,
                mode=mode,
                thread_local=False,
                poll_interval=self.POLL_SECONDS,
                fallback_to_soft=False,
                preserve_lock_file=True,
            )
        return self._lock


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


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


def immediate_engine(engine: Engine) -> Engine:
    """An engine on the same SQLite file whose transactions begin ``BEGIN IMMEDIATE``; any other
    database (or an in-memory SQLite, which another engine could not see) is returned as it is."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return engine
    return _immediate(url.render_as_string(hide_password=False))


@lru_cache(maxsize=16)
def _immediate(url: str) -> Engine:
    # NullPool: no connection outlives its transaction, so a database file deleted and made anew under
    # the same name (pbem demo starts afresh) is opened anew, not written through a stale handle
    private = create_engine(url, connect_args=sqlite_connect_args(url), poolclass=NullPool)

    @event.listens_for(private, "connect")
    def _autocommit(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver must not BEGIN on its own: we do
        dbapi_connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # as the host's own connections (pbem.storage.db): in WAL mode a commit need not wait for the disk
        dbapi_connection.execute("PRAGMA synchronous = NORMAL")
        dbapi_connection.execute("PRAGMA foreign_keys = ON")

    @event.listens_for(private, "begin")
    def _begin_immediate(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return private
