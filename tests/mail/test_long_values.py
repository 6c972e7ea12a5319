"""Mail end to end with the longest values the host accepts, on SQLite and on PostgreSQL: addresses of
254 characters, a game id of 64 and seat names of 32. PostgreSQL enforces every column's length,
SQLite none, so a key or a value that only fits on SQLite is caught here (issue 33, finding 1); and a
value the database refuses for one mail holds that mail as poison, never the mail behind it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.registry import register
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import answers, inbound, poison
from pbem.mail.sources import Incoming
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import InboundRow, ObserverRow, OutboxRow
from tests.cron.conftest import fresh_pg_database
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, mail

SETTINGS = MailSettings(from_addr=HOST, from_name="pbem test host", retry_seconds=60, max_attempts=3)
GAME_ID = "g" + "x" * 62 + "9"  # 64: the longest game id
SEAT_A, SEAT_B = "a" + "n" * 31, "b" + "o" * 31  # 32: the longest seat names


def long_address(name: str) -> str:
    """A valid address of exactly 254 characters (RFC 5321's limit): a local part of 64 starting with
    ``name``, and labels of 63."""
    return f"{name.ljust(64, '0')}@{'a' * 63}.{'b' * 63}.{'c' * 57}.org"


ANN, BOB, OBSERVER = long_address("ann"), long_address("bob"), long_address("kibitz")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    register(PEARL_DIVE)
    if request.param == "sqlite":
        engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        upgrade(engine)
        yield engine
        engine.dispose()
        return
    with fresh_pg_database() as url:
        engine = connect(url)
        upgrade(engine)
        yield engine
        engine.dispose()


def long_game(engine: Engine) -> dict[str, str]:
    assert len(ANN) == len(BOB) == len(OBSERVER) == 254
    issued = create_game(
        engine,
        PEARL_DIVE.name,
        GAME_ID,
        [(SEAT_A, ANN), (SEAT_B, BOB)],
        seed=3,
        options={"rounds": "1"},
        now=START,
        press="public",
    )
    with Session(engine) as session:
        session.add(ObserverRow(game_id=GAME_ID, email=OBSERVER))
        session.commit()
    return issued


def keys(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow.dedupe_key)))


def test_public_press_and_report_mail_reach_a_254_character_observer_of_a_64_character_game(
    db: Engine,
) -> None:
    issued = long_game(db)
    assert outbox.enqueue_reports(db, START, settings=SETTINGS) == 3  # two seats and the observer
    text = f"press\ngame: {GAME_ID}\nplayer: {SEAT_A}\npassword: {issued[SEAT_A]}\nto: all\n\nHello all."
    handled = inbound.handle(db, mail(text, frm=ANN).as_bytes(), SETTINGS, START)
    assert (handled.outcome, handled.replied) == ("command", True)
    with Session(db) as session:
        to = sorted(session.exec(select(OutboxRow.to_addr).where(OutboxRow.dedupe_key.startswith("press:"))))  # type: ignore[attr-defined]
    assert to == sorted([BOB, OBSERVER])
    assert all(len(key) <= outbox.queueing.KEY_LENGTH for key in keys(db))
    assert not any(OBSERVER in key for key in keys(db))  # an address is never spelled out in a key
    assert outbox.unmailed_reports(db) == []


def test_orders_from_a_254_character_address_for_a_32_character_seat_get_their_receipt(db: Engine) -> None:
    issued = long_game(db)
    body = orders.template(db, GAME_ID, SEAT_A, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[SEAT_A])
    handled = inbound.handle(db, mail(body, frm=ANN).as_bytes(), SETTINGS, START)
    assert (handled.outcome, handled.replied) == ("accepted", True)


@pytest.mark.postgres
def test_a_mail_the_database_refuses_is_held_as_poison_and_the_next_mail_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    register(PEARL_DIVE)
    with fresh_pg_database() as url:
        engine = connect(url)
        upgrade(engine)
        try:
            long_game(engine)
            refused = mail("help", frm=ANN, message_id="<refused@example.org>").as_bytes()
            read = mail("help", frm=BOB).as_bytes()
            real_key = answers.reply_key
            # a key builder that overflows its column for one mail: PostgreSQL refuses the row
            monkeypatch.setattr(
                answers,
                "reply_key",
                lambda key, *how: "x" * 400 if "refused" in key else real_key(key, *how),
            )
            monkeypatch.setattr(outbox.queueing, "fitted_key", lambda key: key, raising=False)
            marked: list[str] = []
            for attempt in range(poison.MAX_TRIES):
                handled = inbound.fetch(
                    engine,
                    [
                        Incoming(refused, "refused", lambda: marked.append("refused")),
                        Incoming(read, "read", lambda: marked.append("read")),
                    ],
                    SETTINGS,
                    START,
                )
                last = attempt == poison.MAX_TRIES - 1
                assert handled[0].outcome == (poison.QUARANTINED if last else "error")
                assert handled[1].outcome in ("command", "duplicate")
            assert marked.count("refused") == 1 and "read" in marked
            with Session(engine) as session:
                outcomes = sorted(session.exec(select(InboundRow.outcome)))
            assert outcomes == ["command", poison.QUARANTINED]
        finally:
            engine.dispose()
