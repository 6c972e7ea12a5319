"""A run that dies after a game master's mailed command is recorded but before (or while) its calendar
notices are queued: the recovered run does not do the command again and queues the notices the dead run
did not, each once (issue 14). On SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.cron import notices
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.storage.cron_models import NoticeRow
from pbem.storage.models import GameRow
from tests.cron.conftest import pg_url  # noqa: F401  (a fixture)
from tests.mail.conftest import HOST, mail
from tests.mail.test_gm import GM, SEATS, START, H, command, db, new, outbox_mail, text_of, url  # noqa: F401


class Killed(BaseException):
    """The run's death: nothing in the host catches it, as nothing catches a SIGKILL."""


@pytest.mark.parametrize("dies_at", [1, 2], ids=["before-any-notice", "after-the-first-notice"])
def test_a_run_that_died_before_the_calendar_notices_queues_them_on_recovery(
    db: Engine,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    dies_at: int,
) -> None:
    _issued, password = new(db)
    data = mail(command("extend", password, "by: 1d"), frm=GM, subject="gm").as_bytes()
    real, calls = notices.send_notice, []

    def dying(*args: Any, **kwargs: Any) -> bool:
        calls.append(args)
        if len(calls) == dies_at:
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(notices, "send_notice", dying)
    with pytest.raises(Killed):
        inbound.handle(db, data, MailSettings(from_addr=HOST), START)
    monkeypatch.setattr(notices, "send_notice", real)
    with Session(db) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None
        moved = row.deadline_at.replace(tzinfo=UTC)  # type: ignore[union-attr]
    assert moved == START + 48 * H  # the command itself was done and recorded before the death
    assert sum(1 for key, _m in outbox_mail(db) if key.startswith("shift-")) == dies_at - 1

    handled = inbound.handle(db, data, MailSettings(from_addr=HOST), START + 30 * timedelta(minutes=1))
    assert handled.outcome == "command" and handled.replied
    [reply] = [m for key, m in outbox_mail(db) if key.startswith("reply:")]
    said = text_of(reply)
    assert "this mail's extend was carried out already; nothing was done again" in said
    assert "calendar update queued for" in said  # what the recovery queued, said to the game master
    with Session(db) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None and row.deadline_at.replace(tzinfo=UTC) == moved  # type: ignore[union-attr]
        shifts = session.exec(select(NoticeRow.seat, NoticeRow.kind)).all()
    assert sorted(shifts) == sorted((seat, f"shift-{int(moved.timestamp())}") for seat in SEATS)
    mailed = sorted(str(m["To"]) for key, m in outbox_mail(db) if key.startswith("shift-"))
    assert mailed == sorted(SEATS.values())  # every seat once: none lost, none twice
    for key, m in outbox_mail(db):
        if key.startswith("shift-"):
            assert any(p.get_content_type() == "text/calendar" for p in m.iter_attachments())

    # a third reading of the same mail (another recovery) queues nothing more
    inbound.handle(db, data, MailSettings(from_addr=HOST), START + 45 * timedelta(minutes=1))
    assert sorted(str(m["To"]) for key, m in outbox_mail(db) if key.startswith("shift-")) == mailed
