"""The mail pass's and the sender's database work, on SQLite and on PostgreSQL: the dedupe key decides
at the moment of writing, the claim takes the oldest due mails, marking sent forgets secrets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem.db import connect
from pbem.mail import outbox
from pbem.mail.settings import MailSettings
from pbem.migrations import upgrade
from pbem.models import OutboxRow, ReportRow
from tests.cron.conftest import fresh_pg_database
from tests.mail.conftest import START, new_game


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        eng = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        upgrade(eng)
        yield eng
        eng.dispose()
        return
    with fresh_pg_database() as url:
        eng = connect(url)
        upgrade(eng)
        yield eng
        eng.dispose()


def keys(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow.dedupe_key).order_by(OutboxRow.dedupe_key)))  # type: ignore[arg-type]


def test_a_report_whose_mail_is_in_the_outbox_gets_no_second_one(
    engine: Engine, settings: MailSettings
) -> None:
    game = new_game(engine)
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    queued = keys(engine)
    assert queued == [f"report:{game.id}:0:0:blue", f"report:{game.id}:0:0:red"]
    with Session(engine) as session:  # as rows from before reports were marked: mail there, report not
        session.exec(update(ReportRow).values(mail_queued=False))  # type: ignore[call-overload]
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    assert keys(engine) == queued
    with Session(engine) as session:
        assert all(session.exec(select(ReportRow.mail_queued)))
    # one of the two mails gone (say, deleted by hand): the pass queues that one only, once
    with Session(engine) as session:
        session.delete(session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == queued[1])).one())
        session.exec(update(ReportRow).values(mail_queued=False))  # type: ignore[call-overload]
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    assert keys(engine) == queued


def test_a_pass_for_one_game_queues_its_mail_and_leaves_the_others(
    engine: Engine, settings: MailSettings
) -> None:
    first, second = new_game(engine, "pd-1"), new_game(engine, "pd-2")
    assert outbox.enqueue_reports(engine, START, settings=settings, game_id=second.id) == 2
    assert keys(engine) == [f"report:{second.id}:0:0:blue", f"report:{second.id}:0:0:red"]
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    assert [k for k in keys(engine) if k.startswith(f"report:{first.id}:")] == [
        f"report:{first.id}:0:0:blue",
        f"report:{first.id}:0:0:red",
    ]
