"""SQLite's writers queue on a lock file (``pbem.storage.sqlite.WriteLock``): held from a transaction's first
write to its end, never by a read, given back at once, and never in the way when it cannot be had."""

from __future__ import annotations

import fcntl
import gc
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

import pbem.storage.sqlite
from pbem.storage.db import connect
from pbem.storage.sqlite import LOCK_SUFFIX, WriteLock, immediate_engine, sqlite_connect_args, writes


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "x.sqlite"


@pytest.fixture()
def engine(db: Path) -> Engine:
    return connect(f"sqlite:///{db}")


def free(db: Path) -> bool:
    """Whether another open file (as another process has) could take the lock file now."""
    fd = os.open(db.with_name(db.name + LOCK_SUFFIX), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_a_write_transaction_holds_the_file_from_its_first_write_to_its_commit(
    engine: Engine, db: Path
) -> None:
    with engine.begin() as conn:
        conn.execute(text("SELECT value FROM host"))
        assert free(db)  # reading takes nothing: readers never wait for the writers' queue
        conn.execute(text("UPDATE host SET value = value"))
        assert not free(db)
        conn.execute(text("SELECT value FROM host"))
        assert not free(db)
    assert free(db)


def test_a_rollback_or_a_failed_statement_gives_the_file_back(engine: Engine, db: Path) -> None:
    with engine.connect() as conn:
        conn.execute(text("UPDATE host SET value = value"))
        assert not free(db)
        conn.rollback()
        assert free(db)
        with pytest.raises(Exception, match="no such table"):
            conn.execute(text("UPDATE nowhere SET x = 1"))
        conn.rollback()
    assert free(db)
    raw = engine.raw_connection()  # no transaction at all: the statement's own end gives it back
    try:
        raw.cursor().execute("UPDATE host SET value = value WHERE 0")  # type: ignore[union-attr]
        assert free(db)
    finally:
        raw.close()


def test_a_connection_dropped_in_a_write_without_being_closed_gives_the_file_back(db: Path) -> None:
    connection = sqlite3.connect(str(db), factory=sqlite_connect_args(f"sqlite:///{db}")["factory"])
    connection.execute("CREATE TABLE t (x)")
    connection.execute("BEGIN")
    connection.execute("INSERT INTO t VALUES (1)")
    assert not free(db)
    del connection  # as a pool's lost connection: the C code closes the database, not close()
    gc.collect()
    assert free(db)


def test_the_claims_begin_immediate_queues_too(engine: Engine, db: Path) -> None:
    with immediate_engine(engine).begin() as conn:
        assert not free(db)  # BEGIN IMMEDIATE takes SQLite's write lock: it waits its turn first
        conn.execute(text("SELECT 1"))
    assert free(db)


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(0.5)
with open(sys.argv[2], "a") as log:
    log.write("released\\n")
fcntl.flock(fd, fcntl.LOCK_UN)
"""


def test_a_writer_waits_while_another_process_holds_the_file_and_goes_on_when_it_is_given_back(
    engine: Engine, db: Path, tmp_path: Path
) -> None:
    log = tmp_path / "order.log"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db.with_name(db.name + LOCK_SUFFIX)), str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"

    def write() -> None:
        # SQLite itself is not locked by the holder: without the queue this would write at once
        with engine.begin() as conn:
            conn.execute(text("UPDATE host SET value = value"))
        with open(log, "a") as out:
            out.write("written\n")

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(timeout=30)
    assert holder.wait(timeout=30) == 0
    assert log.read_text().split() == ["released", "written"]


def test_a_file_that_cannot_be_had_leaves_the_writes_to_sqlites_own_lock(tmp_path: Path) -> None:
    db = tmp_path / "y.sqlite"
    db.with_name(db.name + LOCK_SUFFIX).mkdir()  # a folder where the file would be: it cannot be opened
    engine = connect(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO host (key, value) VALUES ('k', 'v')"))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT value FROM host WHERE key = 'k'")).scalar() == "v"


def test_a_wait_past_the_timeout_goes_on_without_the_file(db: Path) -> None:
    db.touch()
    other = os.open(db.with_name(db.name + LOCK_SUFFIX), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(other, fcntl.LOCK_EX)
    try:
        lock = WriteLock(db, timeout=0.05)
        lock.take()  # a hung holder must not hang this writer: SQLite's busy timeout decides now
        assert not lock.held
        lock.close()
    finally:
        os.close(other)
    again = WriteLock(db, timeout=0.05)
    again.take()
    assert again.held
    again.close()
    assert free(db)


def test_a_forked_child_never_gives_back_the_parents_file(db: Path) -> None:
    db.touch()
    lock = WriteLock(db)
    lock.take()
    assert lock.held
    pid = os.fork()
    if pid == 0:  # the child: giving back its copy of the lock (the same open file) frees nothing
        lock.give()
        lock.close()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert lock.held and not free(db)
    lock.close()
    assert free(db)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", False),
        ("  select * from game", False),
        ("BEGIN", False),
        ("BEGIN DEFERRED TRANSACTION", False),
        ("BEGIN IMMEDIATE", True),
        ("COMMIT", False),
        ("ROLLBACK TO SAVEPOINT sa_1", False),
        ("SAVEPOINT sa_1", False),
        ("PRAGMA busy_timeout = 30000", False),
        ("PRAGMA table_info(game)", False),
        ("PRAGMA journal_mode = WAL", True),
        ("UPDATE game SET turn = turn WHERE id = ?", True),
        ("INSERT INTO turn (game_id) VALUES (?)", True),
        ("DELETE FROM outbox", True),
        ("CREATE TABLE t (x)", True),
        ("WITH a AS (SELECT 1) SELECT * FROM a", False),
        ("WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", True),
    ],
)
def test_which_statements_queue_as_writers(sql: str, expected: bool) -> None:
    assert writes(sql) is expected


def test_the_wal_is_checkpointed_by_the_process_after_its_writers_turn_not_inside_it(
    engine: Engine, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pbem.storage.sqlite, "CHECKPOINT_EVERY", 3)
    with engine.connect() as conn:  # SQLite's own checkpoint, inside a commit, only as a backstop
        assert conn.execute(text("PRAGMA wal_autocheckpoint")).scalar() == pbem.storage.sqlite.BACKSTOP_PAGES
    seen: list[tuple[bool, int]] = []
    checkpoint = pbem.storage.sqlite._QueuedConnection.checkpoint

    def spy(connection: pbem.storage.sqlite._QueuedConnection) -> None:
        checkpoint(connection)
        seen.append((free(db), db.stat().st_size))  # the pages reach the database file only here

    monkeypatch.setattr(pbem.storage.sqlite._QueuedConnection, "checkpoint", spy)
    tally = pbem.storage.sqlite._queued_factory(db.absolute()).tally  # this process's count on this database
    tally.count = 0  # (making the schema wrote too)
    blob = os.urandom(300_000)
    sizes = []
    for n in range(6):
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO host (key, value) VALUES (:k, :v)"), {"k": f"b{n}", "v": blob.hex()}
            )
        sizes.append(db.stat().st_size)
    assert [ok for ok, _size in seen] == [True, True]  # every third write, the file given back first
    assert sizes[0] == sizes[1] < sizes[2] == sizes[3] == sizes[4] < sizes[5]  # the WAL held them meanwhile
