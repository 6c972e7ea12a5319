"""The game master gives a seat to the stand-in by mail (``replace`` with ``email: bot:LEVEL``): the
seat is played at that level from then on, nobody is welcomed, and a level that is none is refused
with what to write."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play import orders, turns
from pbem.storage.models import SeatRow, TurnRow
from tests.cron.conftest import pg_url  # noqa: F401 - a fixture
from tests.mail.test_gm import START, command, db, game, outbox_mail, send, url  # noqa: F401 - fixtures


def test_replace_by_mail_with_bot_level_gives_the_seat_to_the_stand_in(
    db: Engine,  # noqa: F811
    game: tuple[dict[str, str], str],  # noqa: F811
) -> None:
    issued, password = game
    said = send(db, command("replace", password, "seat: blue", "email: bot:strong"))
    assert said == "seat blue of gm-1 is now played by the stand-in (strong)\n"
    assert not [key for key, _m in outbox_mail(db) if key.startswith("welcome:")]
    with Session(db) as session:
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
    assert (blue.email, blue.bot_level) == ("", "strong")
    red = orders.template(db, "gm-1", "red", suggest=True).replace(PASSWORD_PLACEHOLDER, issued["red"])
    assert orders.submit(db, red, now=START).accepted
    assert turns.process(db, "gm-1", now=START)[0] == 1  # blue's orders are the stand-in's now
    with Session(db) as session:
        first = session.exec(select(TurnRow).where(TurnRow.number == 1)).one()
    assert json.loads(first.by_bot_json) == ["blue=strong"]


def test_replace_by_mail_with_an_unknown_level_says_what_to_write(
    db: Engine,  # noqa: F811
    game: tuple[dict[str, str], str],  # noqa: F811
) -> None:
    _issued, password = game
    said = send(db, command("replace", password, "seat: blue", "email: bot:hard"))
    assert "bot:hard is no stand-in: write bot:easy, bot:normal or bot:strong" in said
    with Session(db) as session:
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
    assert blue.bot_level is None
