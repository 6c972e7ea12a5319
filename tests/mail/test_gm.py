"""The game master by mail (issue 14) and the calendars of deadlines a game master moves (issue 17).

The whole path runs against the real servers the other mail tests use: the GM and the players mail the
host through the aiosmtpd sink, which delivers into Dovecot; the tick reads the host's mailbox over IMAP
and sends through SMTP; every mail is read back from the recipients' mailboxes and parsed, and every
calendar part parsed back with icalendar. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import email
import email.policy
import logging
import smtplib
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import icalendar
import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.cli.app import main
from pbem.core.registry import register
from pbem.host import mailsteps
from pbem.host.tick import TickSettings, tick
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import backscatter, commands, guards, inbound, reading, sources
from pbem.mail.gm import help_text, set_game_master
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import orders
from pbem.play.create import create_game
from pbem.render.calendar import uid
from pbem.storage.cron_models import GmActionRow
from pbem.storage.db import connect
from pbem.storage.models import GameMasterRow, GameRow, InboundRow, ObserverRow, OutboxRow
from tests.cron.conftest import pg_url  # noqa: F401  (a fixture)
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, Dovecot, Received, Recorder, _start_smtp, mail

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
H = timedelta(hours=1)
DAY = 86400
GM = "dee@example.org"
SEATS = {"red": "ann@example.org", "blue": "bob@example.org"}
TICK = TickSettings(host="test", remind_before=3600, outage_after=30 * DAY)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def db(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    register(PEARL_DIVE)
    monkeypatch.setenv("PBEM_DB", url)
    monkeypatch.setenv("PBEM_MAIL_FROM", HOST)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    engine = connect(url)
    yield engine
    engine.dispose()


def new(engine: Engine, game_id: str = "gm-1") -> tuple[dict[str, str], str]:
    issued = create_game(
        engine,
        PEARL_DIVE.name,
        game_id,
        list(SEATS.items()),
        seed=3,
        options={"rounds": "3"},
        turn_seconds=DAY,
        now=START,
    )
    return issued, set_game_master(engine, game_id, GM)


def command(word: str, password: str, *lines: str, game_id: str = "gm-1", gm: str = GM) -> str:
    return "\n".join([word, f"game: {game_id}", f"gm: {gm}", f"password: {password}", *lines]) + "\n"


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def events(msg: EmailMessage) -> list[tuple[str, icalendar.Event]]:
    """(METHOD, VEVENT) of every text/calendar part of ``msg``, parsed back with icalendar."""
    found = []
    for part in msg.walk():
        if part.get_content_type() == "text/calendar":
            cal = icalendar.Calendar.from_ical(part.get_content())
            assert part.get_param("method") == str(cal["METHOD"])
            found += [(str(cal["METHOD"]), event) for event in cal.walk("VEVENT")]
    return found


def outbox_mail(engine: Engine) -> list[tuple[str, EmailMessage]]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
    return [(r.dedupe_key, parse(outbox.unpack_message(r.message_z))) for r in rows]


def stored_secrets(engine: Engine) -> bytes:
    """Everything the database keeps of mail in and out, and of the game master's actions."""
    with Session(engine) as session:
        inbound_raw = [zlib.decompress(r.raw_z) for r in session.exec(select(InboundRow)) if r.raw_z]
        out = [outbox.unpack_message(r.message_z) for r in session.exec(select(OutboxRow))]
        notes = [r.detail.encode() for r in session.exec(select(GmActionRow))]
        hashes = [r.password_hash.encode() for r in session.exec(select(GameMasterRow))]
    return b"\n".join([*inbound_raw, *out, *notes, *hashes])


# ------------------------------------------------------------------------------------- end to end


def test_a_game_master_pauses_resumes_and_extends_by_mail_and_every_calendar_follows(
    db: Engine, dovecot: Dovecot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pbem")
    for user in [HOST, GM, *SEATS.values()]:
        dovecot.clear(user)

    def deliver(got: Received) -> None:  # the mail server's local delivery, into each mailbox
        for rcpt in got.recipients:
            dovecot.append(rcpt.lower(), got.data)

    controller, smtp = _start_smtp(Recorder(deliver=deliver))
    settings = MailSettings(from_addr=HOST, from_name="pbem", imap_password=dovecot.passwords[HOST])
    try:
        issued, gm_password = new(db)

        def cron(at: datetime) -> None:
            """What ``pbem tick`` does: read the host's mailbox, resolve, queue, send."""
            source = sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST])
            summary = tick(
                db,
                at,
                settings=TICK,
                mail=settings,
                fetch=lambda: mailsteps.fetch(db, source, settings, at),
                enqueue=lambda game_id: outbox.enqueue_reports(db, at, settings=settings, game_id=game_id),
                deliver=lambda: mailsteps.deliver(db, SmtpTransport(smtp.url), at, settings),
            )
            assert summary.errors == 0, summary.line()

        def gm_mails(body: str, subject: str = "gm") -> None:
            with smtplib.SMTP("127.0.0.1", smtp.port) as client:
                client.send_message(mail(body, frm=f"Dee <{GM}>", subject=subject))

        def inbox(address: str) -> list[EmailMessage]:
            return [parse(raw) for raw in dovecot.messages(address)]

        cron(START + H)  # the welcomes are not queued here (no CLI); the setup reports carry the event
        first = {seat: events(inbox(address)[-1]) for seat, address in SEATS.items()}
        for seat, [(method, event)] in first.items():
            assert method == "PUBLISH" and str(event["UID"]) == uid("gm-1", 0, 1, seat)
            assert event.decoded("DTSTART") == START + timedelta(days=1)

        gm_mails(command("pause", gm_password), subject="pause")
        cron(START + 2 * H)
        gm_mails(command("extend", gm_password, "by: 2d"))  # while paused: the time left grows
        cron(START + 3 * H)
        gm_mails(command("resume", gm_password), subject="Re: resume")
        cron(START + 4 * H)
        gm_mails(command("extend", gm_password, "by: 1d"))
        cron(START + 5 * H)

        with Session(db) as session:
            game = session.get(GameRow, "gm-1")
            assert game is not None and game.status == "active"
            deadline = game.deadline_at.replace(tzinfo=UTC)  # type: ignore[union-attr]
        # 22 hours were left at the pause, 2 days were added while paused, 1 day after the resume
        assert deadline == START + 4 * H + timedelta(hours=22, days=3)

        # the game master's answers: the CLI's words, in the game master's own thread
        answers = inbox(GM)
        assert [text_of(m).strip() for m in answers] == [
            "game gm-1 paused with 22h left\ncalendar update queued for red, blue",
            "game gm-1: deadline extended by 2d (paused: it runs again on resume)",
            "game gm-1 resumed; deadline in 2d 22h\ncalendar update queued for red, blue",
            f"game gm-1: deadline extended by 1d to {deadline:%Y-%m-%d %H:%M} UTC\n"
            "calendar update queued for red, blue",
        ]
        assert [str(m["Subject"]) for m in answers] == ["Re: pause", "Re: gm", "Re: resume", "Re: gm"]
        root = thread_root(settings, "gm-1", "@gm")
        assert all(str(m["References"]).split()[0] == root for m in answers)
        assert root not in {thread_root(settings, "gm-1", seat) for seat in SEATS}

        # every seat: its event cancelled by the pause, then set again and moved, one UID, SEQUENCE rising
        for seat, address in SEATS.items():
            mails = inbox(address)
            parts = [e for m in mails for e in events(m)]
            assert [method for method, _ in parts] == ["PUBLISH", "CANCEL", "PUBLISH", "PUBLISH"]
            assert {str(e["UID"]) for _, e in parts} == {uid("gm-1", 0, 1, seat)}
            sequences = [int(e["SEQUENCE"]) for _, e in parts]
            assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
            assert str(parts[1][1]["STATUS"]) == "CANCELLED"
            assert parts[2][1].decoded("DTSTART") == START + 4 * H + timedelta(hours=22, days=2)
            assert parts[3][1].decoded("DTSTART") == deadline
            subjects = [str(m["Subject"]) for m in mails[1:]]
            assert subjects == [
                "[pbem] gm-1 · turn 1 · the game is paused",
                "[pbem] gm-1 · turn 1 · the deadline moved",
                "[pbem] gm-1 · turn 1 · the deadline moved",
            ]
            assert "The game master paused the game" in text_of(mails[1])
            assert "now due by Dec 5, 2026 11:00 UTC" in text_of(mails[3])
            assert all(str(m["References"]).split()[0] == thread_root(settings, "gm-1", seat) for m in mails)
            for other in issued.values():
                assert all(other not in m.as_string() for m in mails[1:])

        # the game master's password: nowhere in any mail, the stored mail, the log
        everything = [*answers, *(m for a in SEATS.values() for m in inbox(a))]
        assert all(gm_password not in m.as_string() for m in everything)
        assert gm_password.encode() not in stored_secrets(db)
        assert gm_password not in caplog.text
        assert dovecot.unseen(HOST) == 0

        # the players play on: the turn resolves, the moved event is cancelled with the turn
        for seat in SEATS:
            text = orders.template(db, "gm-1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
            assert orders.submit(db, text, now=START + 6 * H).accepted
        cron(START + 6 * H)
        for seat, address in SEATS.items():
            cancelled = [e for m in inbox(address) for method, e in events(m) if method == "CANCEL"]
            assert cancelled[-1]["UID"] == uid("gm-1", 0, 1, seat)
            assert int(cancelled[-1]["SEQUENCE"]) > max(
                int(e["SEQUENCE"])
                for m in inbox(address)
                for method, e in events(m)
                if method == "PUBLISH"
                if str(e["UID"]) == uid("gm-1", 0, 1, seat)
            )
    finally:
        controller.stop()


# ----------------------------------------------------------------------------- who may, and how


@pytest.fixture
def game(db: Engine) -> tuple[dict[str, str], str]:
    return new(db)


def send(engine: Engine, body: str, *, frm: str = GM, subject: str = "gm", at: datetime = START) -> str:
    """The text of the host's answer to one mail ("" when there is none)."""
    before = len(outbox_mail(engine))
    handled = inbound.handle(
        engine, mail(body, frm=frm, subject=subject).as_bytes(), MailSettings(from_addr=HOST), at
    )
    assert handled.outcome == "command", handled
    replies = [m for key, m in outbox_mail(engine)[before:] if key.startswith("reply:")]
    return text_of(replies[0]) if replies else ""


def status(engine: Engine) -> str:
    with Session(engine) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None
        return row.status


def test_only_the_registered_address_with_the_password_is_obeyed(
    db: Engine, game: tuple[dict[str, str], str], caplog: pytest.LogCaptureFixture
) -> None:
    issued, password = game
    caplog.set_level(logging.WARNING, logger="pbem.mail")
    wrong_password = send(db, command("pause", "tulip-frog-00"))
    wrong_sender = send(db, command("pause", password), frm="mallory@evil.example")
    wrong_line = send(db, command("pause", password, gm="mallory@evil.example"))
    a_seat = send(db, command("pause", issued["red"], gm=SEATS["red"]), frm=SEATS["red"])
    no_gm = send(db, command("pause", password, game_id="nope"))
    assert status(db) == "active"  # nothing changed
    assert "do not match" in wrong_password and "not carried out" in wrong_password
    for other in (wrong_line, a_seat):
        assert other == wrong_password  # the same answer whatever is wrong
    # to a stranger, the host's own words only: nothing of what the mail said, not even the game
    assert wrong_sender == backscatter.stranger_body() and "gm-1" not in wrong_sender
    assert no_gm == wrong_password.replace("'gm-1'", "'nope'")
    assert "pause stops the clock" in wrong_password  # the game master's help comes with it
    assert "wrong game master password or address in mail from dee@example.org" in caplog.text
    assert password not in caplog.text and "tulip-frog-00" not in caplog.text
    assert send(db, command("pause", password)).startswith("game gm-1 paused")


def test_a_guessed_game_master_password_goes_unanswered_past_the_limit(
    db: Engine, game: tuple[dict[str, str], str]
) -> None:
    _issued, password = game
    answers = [
        send(db, command("pause", f"guess-{n}"), at=START + n * timedelta(minutes=1)) for n in range(8)
    ]
    assert all(answers[: guards.GUESSES_PER_HOUR])
    assert answers[-1] == ""  # past the limit: no answer at all, the guess still checked and counted
    with Session(db) as session:
        refused = session.exec(select(GmActionRow).where(GmActionRow.action == "gm-refused")).all()
    assert len(refused) == 8 and {r.detail for r in refused} == {GM}
    assert status(db) == "active"
    # an hour on, the right password is answered and obeyed again
    assert send(db, command("pause", password), at=START + 2 * H).startswith("game gm-1 paused")


def test_replace_by_mail_welcomes_the_new_player_and_tells_the_game_master_no_password(
    db: Engine, game: tuple[dict[str, str], str]
) -> None:
    issued, password = game
    said = send(db, command("replace", password, "seat: blue", "email: cy@example.org"))
    assert said.startswith("seat blue of gm-1 now belongs to cy@example.org\n")
    assert "welcome mail, with the seat's password, queued for blue at cy@example.org" in said
    [welcome] = [m for key, m in outbox_mail(db) if key.startswith("welcome:")]
    assert welcome["To"] == "cy@example.org"
    new_password = text_of(welcome).split("Your password: ")[1].split()[0]
    assert new_password not in said and issued["blue"] not in said
    text = orders.template(db, "gm-1", "blue", suggest=True).replace(PASSWORD_PLACEHOLDER, new_password)
    assert orders.submit(db, text, now=START).accepted
    old = orders.template(db, "gm-1", "blue", suggest=True).replace(PASSWORD_PLACEHOLDER, issued["blue"])
    assert not orders.submit(db, old, now=START).accepted


def test_observe_rollback_and_their_mistakes_by_mail(db: Engine, game: tuple[dict[str, str], str]) -> None:
    issued, password = game
    assert send(db, command("observe", password, "email: kibitz@example.org")) == (
        "kibitz@example.org now observes game gm-1 and gets its public reports\n"
    )
    with Session(db) as session:
        assert [o.email for o in session.exec(select(ObserverRow))] == ["kibitz@example.org"]
    assert send(db, command("observe", password, "email: kibitz@example.org", "remove: yes")) == (
        "kibitz@example.org no longer observes game gm-1\n"
    )
    # the admin's own refusals come back as they are, with what to write
    assert "roll back to a turn from 0 to -1" in send(db, command("rollback", password, "turn: 3"))
    assert "give the turn to go back to, e.g. turn: 3" in send(db, command("rollback", password))
    assert "missing by:: write it as by: 2d" in send(db, command("extend", password))
    assert "not a duration: 'soon'" in send(db, command("extend", password, "by: soon"))
    missing = send(db, "pause\ngame: gm-1\n")
    assert "missing gm, password" in missing and "game:, gm: and password:" in missing
    assert send(db, "gm\n") == help_text()
    # a resolved turn rolled back: the undone turn's event is cancelled, the new one set
    for seat in SEATS:
        text = orders.template(db, "gm-1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
        assert orders.submit(db, text, now=START).accepted
    from pbem.play import turns

    turns.process(db, "gm-1", now=START + H)
    with Session(db) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None and row.turn == 1
        row.deadline_at = START + 25 * H  # what the tick sets for turn 2
        session.add(row)
        session.commit()
    said = send(db, command("rollback", password, "turn: 0"), at=START + 2 * H)
    assert said.startswith("game gm-1 rolled back to turn 0 (epoch 1); 1 turn kept as undone\n")
    for seat in SEATS:
        [(key, moved)] = [(k, m) for k, m in outbox_mail(db) if k.startswith("shift-") and k.endswith(seat)]
        assert key.split(":")[2:4] == ["1", "1"]  # epoch 1, turn 1 due
        parts = events(moved)
        assert [(method, str(e["UID"])) for method, e in parts] == [
            ("CANCEL", uid("gm-1", 0, 2, seat)),
            ("PUBLISH", uid("gm-1", 1, 1, seat)),
        ]
        assert parts[1][1].decoded("DTSTART") == START + 2 * H + timedelta(days=1)


def test_a_run_that_died_after_the_command_is_finished_without_doing_it_twice(
    db: Engine, game: tuple[dict[str, str], str]
) -> None:
    _issued, password = game
    with Session(db) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None
        row.deadline_at = START + 24 * H
        session.add(row)
        session.commit()
    data = mail(command("extend", password, "by: 1d"), frm=GM, subject="gm").as_bytes()
    msg = reading.parse(data)
    with Session(db) as session:  # the dead run's claim ...
        session.add(
            InboundRow(
                key=reading.message_key(data, msg),
                received_at=START,
                from_address=GM,
                raw_z=b"",
                outcome="processing",
            )
        )
        session.commit()
    found = reading.extract(msg)  # ... and the command it carried out before it died
    dead = commands.run(db, commands.detect("gm", found.text), GM, now=START)  # type: ignore[arg-type]
    assert dead.ok and "deadline extended by 1d" in dead.text
    handled = inbound.handle(db, data, MailSettings(from_addr=HOST), START + 30 * timedelta(minutes=1))
    assert handled.outcome == "command" and handled.replied
    [(_, reply)] = [(k, m) for k, m in outbox_mail(db) if k.startswith("reply:")]
    assert "this mail's extend was carried out already; nothing was done again" in text_of(reply)
    with Session(db) as session:
        row = session.get(GameRow, "gm-1")
        assert row is not None and row.deadline_at.replace(tzinfo=UTC) == START + 48 * H  # type: ignore[union-attr]
    # the same words in a new mail, later, are a copy (see the replay test); changed, a new request
    changed = command("extend", password, "by: 1d") + "# once more\n"
    assert "deadline extended by 1d" in send(db, changed, at=START + H)


def test_a_captured_game_master_mail_sent_again_is_not_carried_out_again(
    db: Engine, game: tuple[dict[str, str], str]
) -> None:
    _issued, password = game
    pause = command("pause", password)
    assert send(db, pause).startswith("game gm-1 paused")
    assert send(db, command("resume", password), at=START + H).startswith("game gm-1 resumed")
    # an eavesdropper sends the pause again, under a new Message-ID, a day later
    replayed = send(db, pause, at=START + 24 * H)
    assert "a copy is not carried out again" in replayed and "change anything" in replayed
    assert status(db) == "active"
    assert send(db, pause + "# pause again\n", at=START + 25 * H).startswith("game gm-1 paused")


# ------------------------------------------------------------------------------------------ the CLI


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    got = capsys.readouterr()
    return code, got.out, got.err


def test_new_with_gm_prints_its_password_once_and_pbem_gm_replaces_it(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["new", "pearl-dive", "--id", "gm-1", "--seed", "3", "--deadline", "1d", "--no-welcome"]
    args += [f"--player={seat}={address}" for seat, address in SEATS.items()]
    code, out, err = run(capsys, *args, "--gm", "Dee@Example.org", "--now", START.isoformat())
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("game master"))
    first = line.split("password, shown this once: ")[1]
    assert line == f"game master {GM}; password, shown this once: {first}"
    with Session(db) as session:
        row = session.get(GameMasterRow, "gm-1")
        assert row is not None and row.email == GM and first not in row.password_hash
    assert send(db, command("pause", first)).startswith("game gm-1 paused")

    code, out, _ = run(capsys, "gm", "gm-1", "--email", GM)
    assert code == 0
    second = out.split("password (shown once): ")[1].strip()
    assert second != first
    assert "do not match" in send(db, command("resume", first))  # the old one stops working
    assert send(db, command("resume", second)).startswith("game gm-1 resumed")

    code, _, err = run(capsys, "gm", "nope", "--email", GM)
    assert code == 1 and err.strip() == "error: there is no game 'nope'"


def test_new_with_a_bad_gm_address_creates_nothing(db: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["new", "pearl-dive", "--id", "gm-2", "--no-welcome", "--gm", "not an address"]
    args += [f"--player={seat}={address}" for seat, address in SEATS.items()]
    code, _out, err = run(capsys, *args)
    assert code == 1 and "Traceback" not in err
    assert (
        err == "pbem: 'not an address' is not a mail address: a mail address has no spaces or control "
        "characters\n"
    )
    with Session(db) as session:
        assert session.get(GameRow, "gm-2") is None
