"""Two fetchers and two senders at once, on SQLite and on PostgreSQL: each message handled once, each
mail delivered once."""

from __future__ import annotations

import os
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from pbem import outbox
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.storage.db import connect
from pbem.storage.models import InboundRow, SubmissionRow
from tests.mail.conftest import START, SmtpServer, bot_orders, mail, new_game

DEFAULT_PG = "postgresql+psycopg://postgres@/postgres?host=/var/run/postgresql"


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    """A fresh PostgreSQL database for this test ($PBEM_TEST_PG names the server), dropped after."""
    admin_url = os.environ.get("PBEM_TEST_PG") or DEFAULT_PG
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"pbem_mail_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable ({exc.orig}); start it with `bash scripts/postgres.sh`",
            pytrace=False,
        )
    engine = connect(make_url(admin_url).set(database=name).render_as_string(hide_password=False))
    try:
        yield engine
    finally:
        engine.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def at_once(work: Callable[[], object], times: int = 2) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # surfaced below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(times)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def exercise(engine: Engine, smtp: SmtpServer, settings: MailSettings) -> None:
    game = new_game(engine)
    raws = [
        mail(bot_orders(engine, game, seat), frm=game.emails[seat]).as_bytes(policy=policy.SMTP)
        for seat in ("red", "blue")
        for _ in range(3)
    ]
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def fetch_all() -> None:
        for raw in raws:
            handled = inbound.handle(engine, raw, settings, START)
            with lock:
                outcomes[handled.outcome] += 1

    at_once(fetch_all)
    assert outcomes["accepted"] == len(raws)
    assert outcomes["duplicate"] + outcomes["busy"] == len(raws)
    with Session(engine) as session:
        assert len(session.exec(select(SubmissionRow)).all()) == len(raws)
        assert len(session.exec(select(InboundRow)).all()) == len(raws)

    at_once(lambda: outbox.enqueue_reports(engine, START, settings=settings))
    at_once(lambda: outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings))
    recipients = Counter(r.recipients[0] for r in smtp.handler.received)
    assert recipients == {"ann@example.org": 3 + 1, "bob@example.org": 3 + 1}  # replies + setup report


def test_two_fetchers_and_two_senders_at_once_on_sqlite(
    engine: Engine, smtp: SmtpServer, settings: MailSettings
) -> None:
    exercise(engine, smtp, settings)


@pytest.mark.postgres
def test_two_fetchers_and_two_senders_at_once_on_postgresql(
    pg_engine: Engine, smtp: SmtpServer, settings: MailSettings
) -> None:
    exercise(pg_engine, smtp, settings)


def _open_outbox(path: Path) -> bool:
    from pbem.outbox.transport import MaildirTransport

    with MaildirTransport(path):
        return True


def test_ticks_starting_together_all_open_a_new_outbox_maildir(tmp_path: Path) -> None:
    # Four ticks of one cron minute each open the outbox Maildir; whoever did not create it first must
    # still get it (mailbox's create=True raised "File exists" to the loser of the race).
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(4) as pool:
        for n in range(30):
            box = tmp_path / f"round{n}" / "sent"
            assert pool.map(_open_outbox, [box] * 4) == [True] * 4
            assert all((box / sub).is_dir() for sub in ("tmp", "new", "cur"))
