"""The database of the record and notice tests: a migrated SQLite file and a fresh PostgreSQL database
(tests/cron's server and helpers), one test on each."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import Engine

from pbem.storage.db import connect
from tests.cron.conftest import fresh_pg_database


@pytest.fixture(name="db", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def on_both_databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The host's engine, on SQLite and on PostgreSQL; ``db.url`` (password shown) for subprocesses."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'pbem.sqlite'}"
        else:
            url = stack.enter_context(fresh_pg_database())
        engine = connect(url)
        yield engine
        engine.dispose()
