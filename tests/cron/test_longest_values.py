"""Issue 33: a whole game at the longest values the host takes, on SQLite and on PostgreSQL. SQLite
enforces no column length; PostgreSQL refuses what is longer than its ``varchar``, so a key or an
address that only fits on SQLite is caught here: a game id of 64 characters, seat names of 32, every
address (seats, observer, game master) of 254. The game is made, welcomed, played by mail (orders,
public press, a game master's command), resolved by ticks with the reports mailed to every seat and the
observer, rolled back, exported and imported on a fresh database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.archive.files import export, import_game
from pbem.archive.replay import from_database, verify
from pbem.core.registry import register
from pbem.cron import admin
from pbem.host.tick import TickSettings, tick
from pbem.intake import addresses
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import inbound
from pbem.mail.gm import set_game_master
from pbem.mail.welcome import queue_welcomes
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import MaildirTransport
from pbem.play import orders
from pbem.play.create import GAME_ID, SEAT_NAME, create_game
from pbem.storage.cron_models import TickRow
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import GameRow, InboundRow, OutboxRow, SubmissionRow
from tests.cron.conftest import START, fresh_pg_database
from tests.host.pearl_dive import GAME as PEARL_DIVE

H = timedelta(hours=1)
HOST = "host@pbem.test"
SETTINGS = MailSettings(from_addr=HOST, from_name="pbem test host")
GAME_ID_ = "g" + "-long_game-id" * 4 + "x" * 11  # 64 characters
SEATS = ["a" + "-" * 30 + "z", "b" + "0123456789" * 3 + "9"]  # 32 characters each


def longest_address(first: str) -> str:
    """A valid address of 254 characters (RFC 5321's most): a 64-character local part and a domain of
    three labels at or near their 63."""
    return f"{first}{'x' * 63}@{'a' * 63}.{'b' * 63}.{'c' * 57}.org"


PLAYERS = {seat: longest_address(seat[0]) for seat in SEATS}
OBSERVER = longest_address("o")
GM = longest_address("g")


def test_the_values_are_at_their_limits() -> None:
    assert len(GAME_ID_) == 64 and GAME_ID.fullmatch(GAME_ID_)
    assert all(len(seat) == 32 and SEAT_NAME.fullmatch(seat) for seat in SEATS)
    for address in [*PLAYERS.values(), OBSERVER, GM]:
        assert len(address) == addresses.MAX_ADDRESS and addresses.normalise(address) == address


def mail_from(frm: str, body: str, subject: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = frm, HOST, subject
    msg["Message-ID"] = f"<{abs(hash((frm, body)))}@example.org>"
    msg.set_content(body)
    return msg.as_bytes()


def finished(engine: Engine) -> bool:
    with Session(engine) as session:
        game = session.get(GameRow, GAME_ID_)
        return game is not None and game.status == "finished"


@pytest.fixture
def other_url(db_url: str, tmp_path: Path) -> Iterator[str]:
    """A fresh database of the same kind, to import the game's archive into."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'other.sqlite'}"
        return
    with fresh_pg_database("pbem_long") as url:
        yield url


def test_a_game_at_the_longest_values_plays_by_mail_and_moves(
    engine: Engine, other_url: str, tmp_path: Path
) -> None:
    register(PEARL_DIVE)
    issued = create_game(
        engine,
        PEARL_DIVE.name,
        GAME_ID_,
        list(PLAYERS.items()),
        seed=5,
        options={"rounds": "2"},
        turn_seconds=86400,
        nmr="bot",
        press="public",
        now=START,
    )
    gm_password = set_game_master(engine, GAME_ID_, GM)
    admin.observe(engine, GAME_ID_, OBSERVER, START)
    queue_welcomes(engine, GAME_ID_, issued, settings=SETTINGS, now=START)
    out = tmp_path / "sent"

    def cron(now: object) -> None:
        with MaildirTransport(out) as way:
            summary = tick(
                engine,
                now,  # type: ignore[arg-type]
                settings=TickSettings(host="long-host", outage_after=60 * 86400, trust_clock=True),
                mail=SETTINGS,
                enqueue=lambda game_id: outbox.enqueue_reports(
                    engine, now, settings=SETTINGS, game_id=game_id
                ),  # type: ignore[arg-type]
                deliver=lambda: len(outbox.send(engine, way, now, settings=SETTINGS).sent),  # type: ignore[arg-type]
            )
        assert summary.errors == 0, summary.line()

    first, second = SEATS
    cron(START)
    orders_text = orders.template(engine, GAME_ID_, first, suggest=True).replace(
        PASSWORD_PLACEHOLDER, issued[first]
    )
    press = f"press\ngame: {GAME_ID_}\nplayer: {second}\npassword: {issued[second]}\nto: all\n\nHello, all.\n"
    pause = f"extend\ngame: {GAME_ID_}\ngm: {GM}\npassword: {gm_password}\nhours: 2\n"
    for frm, body, subject in [
        (PLAYERS[first], orders_text, "orders"),
        (PLAYERS[second], press, "press"),
        (GM, pause, "extend"),
    ]:
        handled = inbound.handle(engine, mail_from(frm, body, subject), SETTINGS, START + H)
        assert handled.outcome in ("accepted", "command") and handled.replied, handled
    hours = 1
    while hours < 24 * 30 and not finished(engine):  # each deadline passes: the bot plays for the seats
        hours += 25
        cron(START + hours * H)

    with Session(engine) as session:
        game = session.get(GameRow, GAME_ID_)
        assert game is not None and game.status == "finished"
        mails = session.exec(select(OutboxRow)).all()
        assert {m.status for m in mails} == {"sent"}
        assert {m.to_addr for m in mails} >= {*PLAYERS.values(), OBSERVER, GM}
        assert any(m.to_addr == OBSERVER and m.dedupe_key.startswith("press:") for m in mails)
        assert session.exec(select(SubmissionRow).where(SubmissionRow.from_address == PLAYERS[first])).one()
        assert {r.outcome for r in session.exec(select(InboundRow))} == {"accepted", "command"}
    assert verify(from_database(engine, GAME_ID_))["ok"]

    admin.rollback(engine, GAME_ID_, 1, START + (hours + 1) * H)
    cron(START + (hours + 2) * H)
    archive = tmp_path / "long.yaml"
    export(engine, GAME_ID_, str(archive), include_secrets=True)
    elsewhere = connect(other_url)
    upgrade(elsewhere)
    moved = import_game(elsewhere, str(archive))
    assert (moved.id, moved.game_master) == (GAME_ID_, GM)
    assert verify(from_database(elsewhere, GAME_ID_))["ok"]
    elsewhere.dispose()


def test_a_tick_named_longer_than_its_columns_claims_and_records(engine: Engine) -> None:
    """``--host`` or ``$PBEM_HOST_ID`` of any length: the name is cut to what ``claimed_by`` and
    ``cron_tick.host`` hold (PostgreSQL refused a longer one, and with it every tick)."""
    register(PEARL_DIVE)
    create_game(
        engine, PEARL_DIVE.name, "g", list(PLAYERS.items()), seed=5, turn_seconds=3600, nmr="bot", now=START
    )
    named = "tick-" + "h" * 300
    summary = tick(engine, START + 2 * H, settings=TickSettings(host=named, jobs=2), mail=SETTINGS)
    assert summary.errors == 0 and summary.turns_resolved == 1, summary.line()
    with Session(engine) as session:
        hosts = [row.host for row in session.exec(select(TickRow))]
    assert len(hosts) == 1 and len(hosts[0]) <= 128 and hosts[0].startswith("tick-hhh")
