"""Open games with the longest valid values, on SQLite and PostgreSQL (which enforces every column's
length): a 64-character game id and game type name, 32-character seat names, 254-character addresses
(the longest an address may be), through the mail handling itself (:func:`pbem.mail.inbound.handle`)."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound, lobby_confirm
from pbem.outbox.queueing import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.play import lobby
from pbem.storage.models import GameRow, LobbyCodeRow, OutboxRow, SeatRow, StandbyRow, VacancyRow
from tests.mail.conftest import HOST, START, mail, on_both_databases

engine = on_both_databases()

GAME_ID = "g" * 64
#: two 254-character addresses: a 64-character local part and a domain of labels up to 63 characters
LONG = [f"{c * 64}@{'d' * 63}.{'e' * 63}.{'f' * 57}.org" for c in "ab"]
SEATS = [c * 32 for c in "xy"]
SETTINGS = MailSettings(from_addr=HOST, from_name="pbem")


def handle(engine: Engine, frm: str, body: str, subject: str = "hello", later: int = 0) -> None:
    raw = mail(body, frm=frm, subject=subject).as_bytes()
    inbound.handle(engine, raw, SETTINGS, START + timedelta(minutes=later))


def code_for(engine: Engine, address: str) -> str:
    with Session(engine) as session:
        rows = session.exec(
            select(OutboxRow).where(OutboxRow.to_addr == address).order_by(OutboxRow.id)
        ).all()
    subjects = [unpack_message(r.message_z).decode() for r in rows if r.subject.startswith("[pbem] confirm")]
    found = re.search(r"confirm ([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})", subjects[-1])
    assert found is not None
    return found.group(1)


def test_the_longest_values_join_start_resign_and_take_over(engine: Engine) -> None:
    assert all(len(a) == 254 for a in LONG)
    lobby.open_game(engine, "coral-divers", GAME_ID, 2, settings={"seed": 1}, now=START)
    for n, (address, seat) in enumerate(zip(LONG, SEATS, strict=True)):
        handle(engine, address, f"join {GAME_ID} {seat} ru", later=n)
        handle(engine, address, f"confirm {code_for(engine, address)}", later=n)
    with Session(engine) as session:
        seats = session.exec(
            select(SeatRow).where(SeatRow.game_id == GAME_ID).order_by(SeatRow.position)
        ).all()
        assert session.get(GameRow, GAME_ID) is not None
    assert [(s.name, s.email, s.language) for s in seats] == [
        (SEATS[0], LONG[0], "ru"),
        (SEATS[1], LONG[1], "ru"),
    ]
    standby = "s" * 64 + LONG[0][64:]
    handle(engine, standby, "standby coral-divers", later=5)
    handle(engine, standby, f"confirm {code_for(engine, standby)}", later=5)
    with Session(engine) as session:
        assert session.exec(select(StandbyRow.email)).all() == [standby]
        seat = session.exec(select(SeatRow).where(SeatRow.name == SEATS[0])).one()
        seat.abandoned = True  # abandoned under the missed-orders policy: the tick offers it
        session.add(seat)
        session.commit()
    assert lobby_confirm.due(engine, SETTINGS, START + timedelta(minutes=10)) == 1
    handle(engine, standby, f"confirm {code_for(engine, standby)}", later=11)
    with Session(engine) as session:
        seat = session.exec(select(SeatRow).where(SeatRow.name == SEATS[0])).one()
        vacancy = session.exec(select(VacancyRow)).one()
        used = session.exec(select(LobbyCodeRow.used_at)).all()
    assert (seat.email, seat.abandoned, vacancy.filled_by) == (standby, False, standby)
    assert all(at is not None for at in used)  # every code sent back was used once
