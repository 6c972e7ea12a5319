"""Connecting: the default SQLite file, ``$PBEM_DB``, WAL mode and a busy timeout, the schema made once."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from pbem.core.errors import UserError
from pbem.storage.db import connect, database_url


def test_default_is_an_sqlite_file_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PBEM_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    engine = connect()
    assert (tmp_path / "pbem.sqlite").is_file()
    assert {"game", "seat", "turn", "submission", "report", "outbox", "inbound", "host"} <= set(
        inspect(engine).get_table_names()
    )


def test_pbem_db_and_plain_paths_choose_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_DB", "postgresql+psycopg://host/db")
    assert database_url() == "postgresql+psycopg://host/db"
    assert database_url("games.sqlite") == "sqlite:///games.sqlite"


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'x.sqlite'}")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 30_000


def test_connecting_twice_keeps_the_data(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    with connect(url).begin() as conn:
        conn.execute(text("INSERT INTO host (key, value) VALUES ('probe', 'kept')"))
    with connect(url).connect() as conn:
        assert conn.execute(text("SELECT value FROM host WHERE key = 'probe'")).scalar() == "kept"


def test_an_unusable_database_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="cannot open the database"):
        connect(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'x.sqlite'}")
    with pytest.raises(UserError, match="cannot use database"):
        connect("nosuchdriver://x")
