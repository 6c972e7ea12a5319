"""A press message holding a NUL character, on SQLite and on PostgreSQL: PostgreSQL refuses a NUL in a
text column where SQLite stores it, so the press (and the mail behind it) must not depend on which
database the host runs on. The message goes out, the NUL dropped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cron.conftest import fresh_pg_database
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.registry import register
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import PressRow
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, mail


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        yield engine
        engine.dispose()
        return
    with fresh_pg_database("pbem_nul") as url:
        engine = connect(url)
        yield engine
        engine.dispose()


def test_a_press_message_with_a_nul_goes_out_without_it(both: Engine) -> None:
    register(PEARL_DIVE)
    issued = create_game(
        both, PEARL_DIVE.name, "pr", [("ann", "ann@example.org"), ("bo", "bo@example.org")], seed=1, now=START
    )
    body = f"press\ngame: pr\nplayer: ann\npassword: {issued['ann']}\nto: all\n\nMeet\x00 at the reef.\n"
    handled = inbound.handle(both, mail(body, frm="ann@example.org").as_bytes(), MailSettings(from_addr=HOST))
    assert handled.outcome == "command" and handled.replied
    with Session(both) as session:
        assert session.exec(select(PressRow.text)).one() == "Meet at the reef."
