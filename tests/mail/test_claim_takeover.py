"""Issue 33, finding 12: two runs of the mail pass on one message, the second taking the first's claim
over (its clock eleven minutes ahead, or the first stalled past the claim's life), give one submission
row, not two: the claim is checked in the transaction that stores the submission, on SQLite and on
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email import policy
from pathlib import Path
from typing import Any

import pytest
from cron.conftest import fresh_pg_database
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.storage.db import connect
from pbem.storage.models import InboundRow, SubmissionRow
from tests.mail.conftest import START, bot_orders, mail, new_game


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        yield engine
        engine.dispose()
        return
    with fresh_pg_database("pbem_take") as url:
        engine = connect(url)
        yield engine
        engine.dispose()


def test_a_run_whose_claim_was_taken_over_submits_nothing(
    both: Engine, settings: MailSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(both)
    raw = mail(bot_orders(both, game, "red"), frm=game.emails["red"]).as_bytes(policy=policy.SMTP)
    real_submit = orders.submit
    second: list[inbound.Handled] = []

    def stalled(*args: Any, **kwargs: Any) -> orders.Receipt:
        # the first run passed its claim's check and stalls before submitting; meanwhile a run whose
        # clock is eleven minutes ahead finds the claim stale, takes it over and handles the message
        if not second:
            monkeypatch.setattr(orders, "submit", real_submit)
            second.append(inbound.handle(both, raw, settings, START + timedelta(minutes=11)))
        return real_submit(*args, **kwargs)

    monkeypatch.setattr(orders, "submit", stalled)
    first = inbound.handle(both, raw, settings, START)

    assert second[0].outcome == "accepted" and second[0].replied
    assert first.outcome == "busy"
    with Session(both) as session:
        rows = session.exec(select(SubmissionRow).where(SubmissionRow.source == "mail")).all()
        recorded = session.exec(select(InboundRow)).one()
    assert [(r.seat, r.status) for r in rows] == [("red", "accepted")]
    assert recorded.outcome == "accepted" and recorded.submission_id == rows[0].id
    # a third reading (the next fetch) is a duplicate: still one submission
    assert inbound.handle(both, raw, settings, START + timedelta(minutes=30)).outcome == "duplicate"
