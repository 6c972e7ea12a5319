"""Catching up (issue 32): a seat the stand-in played for gets, in its next reports, what happened since
its own last orders (the events it may see of each turn it missed), not only the last turn; once it
plays again, its reports are as before. In all five languages."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.codec import unpack, unpack_json
from pbem.core.i18n import LANGUAGES
from pbem.host.tick import TickSettings, tick
from pbem.outbox.settings import MailSettings
from pbem.render.reports import report
from pbem.storage.db import connect
from pbem.storage.history import load_event
from pbem.storage.models import GameRow, ReportRow, SeatRow, TurnRow
from tests.cron.conftest import START, new_game, owes, send_orders
from tests.players.databases import on_both_databases  # noqa: F401  (the fixture db)

DAY = timedelta(days=1)
H = timedelta(hours=1)
MAIL = MailSettings(from_addr="host@example.org")
SETTINGS = TickSettings(host="test", remind_before=3600, outage_after=30 * 86400)
HEADING = {
    "en": "WHAT HAPPENED SINCE YOUR OWN LAST ORDERS",
    "hu": "MI TÖRTÉNT A SAJÁT LEGUTÓBBI PARANCSAID ÓTA",
    "cs": "CO SE STALO OD VAŠICH POSLEDNÍCH VLASTNÍCH ROZKAZŮ",
    "zh": "自你上次亲自下达指令以来发生的事",
    "ru": "ЧТО ПРОИЗОШЛО ПОСЛЕ ВАШИХ ПОСЛЕДНИХ СОБСТВЕННЫХ ПРИКАЗОВ",
}
TURN = {"en": "turn {n}:", "hu": "{n}. lépés:", "cs": "tah {n}:", "zh": "第 {n} 回合：", "ru": "ход {n}:"}


def play_until(db: Engine, game_id: str, passwords: dict[str, str], turn: int, *, absent: str) -> None:
    """Every seat but ``absent`` sends its orders on time; the stand-in plays for ``absent`` at each
    deadline; until ``turn`` is resolved."""
    at = START
    for _ in range(3 * turn):
        with Session(db) as session:
            game = session.get(GameRow, game_id)
            assert game is not None
            if game.turn >= turn:
                return
            assert game.status == "active", f"{game_id} ended at turn {game.turn}"
        for seat in owes(db, game_id):
            if seat != absent:
                send_orders(db, game_id, seat, passwords[seat], at + H)
        at += DAY + H
        tick(db, at, settings=SETTINGS, mail=MAIL)
    raise AssertionError(f"{game_id} did not reach turn {turn}")


def events_of(db: Engine, game_id: str, number: int, seat: str) -> list[str]:
    with Session(db) as session:
        row = session.exec(select(TurnRow).where(TurnRow.game_id == game_id, TurnRow.number == number)).one()
    return [e.words() for e in map(load_event, unpack_json(row.events_z)) if e.visible_to(seat)]


def test_the_report_after_missed_turns_tells_every_turn_since_the_seats_own_orders(db: Engine) -> None:
    passwords = new_game(db, "cu-1", rounds=3, nmr="bot")
    play_until(db, "cu-1", passwords, 3, absent="blue")
    text = report(db, "cu-1", "blue", turn=3, fmt="txt")
    part = text.split(HEADING["en"])[1].split("SINCE YOUR LAST REPORT")[0]
    for number in (1, 2):  # every turn before this one since blue's own orders (it never sent any)
        for words in events_of(db, "cu-1", number, "blue"):
            assert f"turn {number}: {words}" in part
    assert "turn 3:" not in part  # this turn's events are where they always are
    red = report(db, "cu-1", "red", turn=3, fmt="txt")
    assert HEADING["en"] not in red  # red sent every order: nothing to catch up on
    page = report(db, "cu-1", "blue", turn=3, fmt="html")
    assert "What happened since your own last orders" in page


def test_once_the_seat_plays_again_its_reports_are_as_before(db: Engine) -> None:
    passwords = new_game(db, "cu-2", rounds=3, nmr="bot")
    play_until(db, "cu-2", passwords, 2, absent="blue")  # the stand-in bid for blue in turn 1
    play_until(db, "cu-2", passwords, 5, absent="nobody")  # blue is back: every seat sends on time
    own = [number for number in (3, 4, 5) if "blue" in owes_before(db, "cu-2", number)]
    assert own[0] == 3 and own[-1] == 5  # the bids: every seat's
    back = report(db, "cu-2", "blue", turn=3)
    assert HEADING["en"] in back  # the first report after its own orders again: what it missed
    caught = back.split(HEADING["en"])[1].split("SINCE YOUR LAST REPORT")[0]
    assert "turn 1:" in caught and "turn 2:" in caught and "turn 3:" not in caught
    for number in (4, 5):
        assert HEADING["en"] not in report(db, "cu-2", "blue", turn=number)


def owes_before(db: Engine, game_id: str, number: int) -> set[str]:
    """The seats whose own orders made turn ``number``."""
    with Session(db) as session:
        row = session.exec(select(TurnRow).where(TurnRow.game_id == game_id, TurnRow.number == number)).one()
    return set(unpack_json(row.orders_z)) - set(json.loads(row.by_bot_json))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catching_up_is_in_the_seats_language(tmp_path: Path, lang: str) -> None:
    db = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    passwords = new_game(db, "cu-3", rounds=3, nmr="bot")
    with Session(db) as session:
        for seat in session.exec(select(SeatRow)).all():
            seat.language = lang
            session.add(seat)
        session.commit()
    play_until(db, "cu-3", passwords, 3, absent="blue")
    with Session(db) as session:  # the report as stored and mailed, rendered in the turn's transaction
        stored = session.exec(
            select(ReportRow).where(
                ReportRow.game_id == "cu-3", ReportRow.turn == 3, ReportRow.seat == "blue"
            )
        ).one()
        text = unpack(stored.text_z)
    assert HEADING[lang] in text
    assert TURN[lang].format(n=1) in text.split(HEADING[lang])[1]
    # the same report asked for again by mail, rendered anew in a language (the `report` command): the
    # same catching up, not only the last turn
    for asked in (lang, "en"):
        again = report(db, "cu-3", "blue", turn=3, fmt="txt", lang=asked, as_mailed=True)
        assert HEADING[asked] in again
        assert TURN[asked].format(n=1) in again.split(HEADING[asked])[1]
        if asked == lang:  # rendered anew in the seat's own language: the report that was mailed
            assert again == text
    db.dispose()
