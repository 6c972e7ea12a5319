"""Fixtures for the cron tests: a database URL on SQLite and on PostgreSQL, a fake clock, games.

PostgreSQL comes from ``$PBEM_TEST_PG`` (an admin connection; default the local server's socket as
``postgres``); each test gets a database of its own, dropped afterwards. A server that cannot be reached
fails the test with the way to start one (``bash scripts/postgres.sh``): it never skips.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.exc import OperationalError

from pbem.storage.migrations import upgrade

DEFAULT_PG = "postgresql+psycopg://postgres@/postgres?host=/var/run/postgresql"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def pg_admin_url() -> str:
    return os.environ.get("PBEM_TEST_PG") or DEFAULT_PG


def _admin() -> Engine:
    url = pg_admin_url()
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    except OperationalError as exc:
        engine.dispose()
        pytest.fail(
            f"PostgreSQL is not reachable at {make_url(url).render_as_string(hide_password=True)}: "
            f"{exc.orig}. Start it with `bash scripts/postgres.sh` (or set PBEM_TEST_PG).",
            pytrace=False,
        )
    return engine


@contextmanager
def fresh_pg_database(prefix: str = "pbem_t") -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database, dropped when the block ends."""
    admin = _admin()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(pg_admin_url()).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test."""
    with fresh_pg_database() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on an SQLite file and on a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """The host's engine on ``db_url``, migrated to head."""
    from pbem.storage.db import connect

    eng = connect(db_url)
    upgrade(eng)
    yield eng
    eng.dispose()


def bare_games(
    engine: Engine, count: int, *, deadline: datetime | None = None, prefix: str = "g"
) -> list[str]:
    """``count`` game rows with no rules behind them: enough for claims and the outage guard."""
    from sqlmodel import Session

    from pbem.storage.models import GameRow

    ids = [f"{prefix}{n:04d}" for n in range(count)]
    with Session(engine) as session:
        for game_id in ids:
            session.add(
                GameRow(
                    id=game_id,
                    game_type="pearl-dive",
                    engine_version="1",
                    seed=1,
                    created_at=START,
                    state_z=b"x",
                    state_sha256="0" * 64,
                    turn_seconds=86400 if deadline else None,
                    deadline_at=deadline,
                )
            )
        session.commit()
    return ids


# --------------------------------------------------------------------------------------- real games

DAY = 86400


def _register_pearl_dive() -> None:
    from pbem.core import registry
    from tests.host.pearl_dive import GAME

    registry.register(GAME)


_register_pearl_dive()


def new_game(
    engine: Engine,
    game_id: str,
    now: datetime = START,
    *,
    seats: tuple[str, ...] = ("red", "blue"),
    rounds: int = 3,
    turn_seconds: int | None = DAY,
    **policy: object,
) -> dict[str, str]:
    """A Pearl Dive game (the host's test game) with a day per turn; returns the passwords."""
    from pbem.play.create import create_game

    return create_game(
        engine,
        "pearl-dive",
        game_id,
        [(seat, f"{seat}@example.org") for seat in seats],
        seed=11,
        options={"rounds": str(rounds)},
        turn_seconds=turn_seconds,
        now=now,
        **policy,  # type: ignore[arg-type]
    )


def send_orders(engine: Engine, game_id: str, seat: str, password: str, now: datetime) -> int:
    """``seat`` sends the bot's choice as its own orders, the way a player would; returns the turn."""
    from pbem.intake.envelope import PASSWORD_PLACEHOLDER
    from pbem.play.orders import submit, template

    text = template(engine, game_id, seat, suggest=True).replace(PASSWORD_PLACEHOLDER, password)
    receipt = submit(engine, text, now=now)
    assert receipt.accepted, receipt.errors
    assert receipt.turn is not None
    return receipt.turn


def owes(engine: Engine, game_id: str) -> tuple[str, ...]:
    """The seats whose orders the game is waiting for now."""
    from sqlmodel import Session

    from pbem.cron.policy import due
    from pbem.storage.models import GameRow

    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        assert game is not None
        return due(session, game).missing


def read_mail_text(raw: bytes) -> str:
    """A queued mail's plain text as its reader sees it: parsed, and unflowed (RFC 3676)."""
    from email import message_from_bytes, policy

    from pbem.mail import reading

    msg = message_from_bytes(raw, policy=policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    headers = "".join(f"{k}: {v}\n" for k, v in msg.items())
    return headers + (reading.unflow(text) if part.get_param("format") == "flowed" else text)
