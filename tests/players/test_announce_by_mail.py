"""A game master opens a game by mail (``announce``, issue 32): the same open game as
``pbem new --open``, once however often the mail comes."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound
from pbem.mail.gm import set_game_master
from pbem.outbox.queueing import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.play import lobby
from pbem.play.create import create_game
from pbem.storage.models import LobbyGameRow, OutboxRow
from tests.mail.conftest import HOST, START, mail, on_both_databases

engine = on_both_databases()
GM = "gm@example.org"
SETTINGS = MailSettings(from_addr=HOST, from_name="pbem")


def answers(engine: Engine) -> list[str]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).where(OutboxRow.to_addr == GM).order_by(OutboxRow.id)).all()
    return [" ".join(unpack_message(r.message_z).decode().split()) for r in rows]  # lines unwrapped


def test_a_game_master_announces_an_open_game_once(engine: Engine) -> None:
    create_game(
        engine, "coral-divers", "cd-1", [("ann", "ann@example.org"), ("bo", "bo@example.org")], seed=1
    )
    password = set_game_master(engine, "cd-1", GM)
    body = (
        f"announce\ngame: cd-1\ngm: {GM}\npassword: {password}\nnew: {'n' * 64}\ntype: coral-divers\n"
        "seats: 3\ndeadline: 2d\nstart_by: 2026-03-09T18:00\nfill_with_bots: yes\nlanguage: cs\n"
    )
    first = mail(body, frm=GM, subject="announce").as_bytes()
    inbound.handle(engine, first, SETTINGS, START)
    copy = mail(body, frm=GM, subject="announce").as_bytes()  # the same words under a new Message-ID
    inbound.handle(engine, copy, SETTINGS, START + timedelta(hours=1))
    with Session(engine) as session:
        rows = session.exec(select(LobbyGameRow)).all()
    assert [(r.id, r.seats, r.fill_with_bots, r.status) for r in rows] == [("n" * 64, 3, True, "open")]
    assert lobby.settings_of(rows[0])["turn_seconds"] == 2 * 86400
    assert lobby.language_of(rows[0]) == "cs"
    said = answers(engine)
    assert "is open with 3 seats" in said[0] and "is not carried out again" in said[1]
    assert password not in "".join(said)


def test_a_bad_announcement_says_what_to_write(engine: Engine) -> None:
    create_game(
        engine, "coral-divers", "cd-1", [("ann", "ann@example.org"), ("bo", "bo@example.org")], seed=1
    )
    password = set_game_master(engine, "cd-1", GM)
    body = f"announce\ngame: cd-1\ngm: {GM}\npassword: {password}\nnew: cd-2\ntype: coral-divers\nseats: 9\n"
    inbound.handle(engine, mail(body, frm=GM, subject="announce").as_bytes(), SETTINGS, START)
    with Session(engine) as session:
        assert session.exec(select(LobbyGameRow)).all() == []
    assert "Coral Divers takes 2 to 4 players, not 9" in answers(engine)[0]
