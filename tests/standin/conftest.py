"""Fixtures of the stand-in's tests: the host's (a database per test, ``pbem`` in this process), on
SQLite and on PostgreSQL (which enforces every column's length), and the mail tests' SMTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cron.conftest import fresh_pg_database
from host.conftest import pbem  # noqa: F401 - a fixture of these tests too
from sqlalchemy import Engine

from pbem.storage.db import connect


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite'}"
        return
    with fresh_pg_database("pbem_s") as url:
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = connect(db_url)
    yield eng
    eng.dispose()
