"""Press (issue 14): players write each other through the host, signed with their seat, never with an
address; the game's ``press`` option; press kept with the game, hidden while it runs and in its
archive once it is over."""

from __future__ import annotations

import json
import smtplib
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.archive import files
from pbem.archive import page as archive_page
from pbem.cli.app import main
from pbem.core import i18n
from pbem.core.errors import UserError
from pbem.core.registry import register
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import inbound, press, reading, sources
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import orders, status, turns
from pbem.storage.db import connect
from pbem.storage.models import GameRow, ObserverRow, OutboxRow, PressRow, SeatRow
from tests.cron.conftest import pg_url  # noqa: F401  (a fixture)
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, Dovecot, Received, Recorder, _start_smtp, mail

SEATS = {"ann": "ann@example.org", "bo": "bob@example.org", "cy": "cy@example.org"}
OBSERVER = "dee@example.org"  # Dovecot users of the fixture
SETTINGS = MailSettings(from_addr=HOST, from_name="pbem test host", retry_seconds=60, max_attempts=3)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def db(url: str) -> Iterator[Engine]:
    register(PEARL_DIVE)
    engine = connect(url)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Engine]:
    register(PEARL_DIVE)
    engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    yield engine
    engine.dispose()


def new_game(engine: Engine, mode: str = "private", game_id: str = "pr-1", **kw: object) -> dict[str, str]:
    from pbem.play.create import create_game

    issued = create_game(
        engine,
        PEARL_DIVE.name,
        game_id,
        list(SEATS.items()),
        seed=3,
        options={"rounds": "1"},
        now=START,
        press=mode,
        **kw,  # type: ignore[arg-type]
    )
    with Session(engine) as session:
        session.add(ObserverRow(game_id=game_id, email=OBSERVER))
        session.commit()
    return issued


def press_mail(
    issued: dict[str, str],
    body: str,
    *,
    seat: str = "ann",
    to: str = "[bo]",
    game_id: str = "pr-1",
    subject: str = "a word",
    frm: str | None = None,
) -> bytes:
    text = f"press\ngame: {game_id}\nplayer: {seat}\npassword: {issued[seat]}\nto: {to}\n\n{body}"
    return mail(text, frm=frm or f"Ann Example <{SEATS[seat]}>", subject=subject).as_bytes()


def queued(engine: Engine) -> list[tuple[OutboxRow, EmailMessage]]:
    with Session(engine) as session:
        rows = list(session.exec(select(OutboxRow).order_by(OutboxRow.id)))  # type: ignore[arg-type]
    return [(row, parse(outbox.unpack_message(row.message_z))) for row in rows]


def parse(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def press_mails(engine: Engine) -> list[tuple[OutboxRow, EmailMessage]]:
    return [(row, msg) for row, msg in queued(engine) if row.dedupe_key.startswith("press:")]


def replies(engine: Engine) -> list[str]:
    return [text(msg) for row, msg in queued(engine) if row.dedupe_key.startswith("reply:")]


def press_rows(engine: Engine) -> list[PressRow]:
    with Session(engine) as session:
        return list(session.exec(select(PressRow).order_by(PressRow.id)))  # type: ignore[arg-type]


def assert_no_address_of(msg: EmailMessage, raw: bytes, address: str) -> None:
    assert address.encode() not in raw
    assert address not in msg.as_string()
    assert msg["From"].addresses[0].addr_spec == HOST  # type: ignore[union-attr]
    assert msg.get("Reply-To") in (None, HOST)
    assert msg.get("Sender") is None


# ------------------------------------------------------------------------------------ sending


def test_private_press_reaches_the_named_seat_signed_with_the_seat_and_no_address(db: Engine) -> None:
    issued = new_game(db)
    with Session(db) as session:  # bo reads in Hungarian: the frame is in bo's language
        seat = session.exec(select(SeatRow).where(SeatRow.name == "bo")).one()
        seat.language = "hu"
        session.add(seat)
        session.commit()
    body = (
        "Bo, shall we leave the gold pearls alone?\n"
        "Write me at ann@example.org if you like.\n"
        "\n"
        "On Mon, 2 Mar 2026 at 09:00, pbem <host@pbem.test> wrote:\n"
        "> an old report quoted below\n"
    )
    handled = inbound.handle(db, press_mail(issued, body), SETTINGS, START)
    assert handled.outcome == "command" and handled.replied

    ((row, msg),) = press_mails(db)
    raw = outbox.unpack_message(row.message_z)
    assert row.to_addr == SEATS["bo"] and msg["To"].addresses[0].addr_spec == SEATS["bo"]  # type: ignore[union-attr]
    assert_no_address_of(msg, raw, SEATS["ann"])
    with i18n.language("hu"):  # the frame's words are bo's
        subject = i18n._("press from {seat}", seat="ann")
    assert subject != "press from ann"
    assert str(msg["Subject"]) == f"[pbem] pr-1 · {subject}"
    assert str(msg["References"]).split()[0] == thread_root(SETTINGS, "pr-1", "bo")
    assert str(msg["In-Reply-To"]) == thread_root(SETTINGS, "pr-1", "bo")
    assert msg["Content-Language"] == "hu"
    said = text(msg)
    assert "Bo, shall we leave the gold pearls alone?" in said
    assert "[address removed]" in said  # the sender's own address, written in the text, is not passed on
    assert "an old report quoted below" not in said and "wrote:" not in said
    assert "\n-- \nann\n" in said  # signed with the seat's name alone, no English word beside it

    (receipt,) = replies(db)
    assert "went to: bo" in receipt
    (stored,) = press_rows(db)
    assert (stored.sender, stored.to_all, json.loads(stored.recipients_json), stored.turn) == (
        "ann",
        False,
        ["bo"],
        1,
    )
    assert "gold pearls" in stored.text and "quoted below" not in stored.text


def test_press_to_several_seats_names_the_others_and_leaves_out_the_sender(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db)
    inbound.handle(sqlite_db, press_mail(issued, "Hello both.", to="bo, cy, ann"), SETTINGS, START)
    mails = press_mails(sqlite_db)
    assert sorted(row.to_addr for row, _msg in mails) == [SEATS["bo"], SEATS["cy"]]
    for row, msg in mails:
        reader = "bo" if row.to_addr == SEATS["bo"] else "cy"
        other = "cy" if reader == "bo" else "bo"
        assert f"to you and {other}" in text(msg)
        assert str(msg["References"]).split()[0] == thread_root(SETTINGS, "pr-1", reader)
        assert msg["Content-Language"] == "en"
    assert "went to: bo, cy" in replies(sqlite_db)[0]


def test_public_press_goes_to_every_seat_and_the_observers_and_refuses_named_seats(db: Engine) -> None:
    issued = new_game(db, "public")
    inbound.handle(db, press_mail(issued, "Peace to all divers.", to="all"), SETTINGS, START)
    mails = press_mails(db)
    assert sorted(row.to_addr for row, _ in mails) == sorted([SEATS["bo"], SEATS["cy"], OBSERVER])
    for row, msg in mails:
        assert_no_address_of(msg, outbox.unpack_message(row.message_z), SEATS["ann"])
        assert "Press from ann to every player" in text(msg)
    assert "observers read it too" in replies(db)[0]

    inbound.handle(db, press_mail(issued, "Just you, Bo.", to="[bo]"), SETTINGS, START + timedelta(minutes=1))
    assert len(press_mails(db)) == 3 and len(press_rows(db)) == 1
    assert "takes only public press: write to: all" in replies(db)[-1]


def test_private_press_is_never_sent_to_observers(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db, "private")
    inbound.handle(sqlite_db, press_mail(issued, "Hello all.", to="all"), SETTINGS, START)
    assert sorted(row.to_addr for row, _ in press_mails(sqlite_db)) == [SEATS["bo"], SEATS["cy"]]


def test_a_game_without_press_refuses_it_and_sends_nothing(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db, "none")
    inbound.handle(sqlite_db, press_mail(issued, "Hello.", to="all"), SETTINGS, START)
    assert press_mails(sqlite_db) == [] and press_rows(sqlite_db) == []
    assert "game pr-1 takes no press" in replies(sqlite_db)[0]


@pytest.mark.parametrize(
    ("to", "body", "said"),
    [
        ("[dee]", "Hi.", "to: names dee, which is no seat of this game; seats: ann, bo, cy"),
        ("", "Hi.", "the to: line is missing"),
        ("[bo]", "", "the message is empty: write it below the to: line"),
        ("[bo]", "x" * (press.MAX_PRESS_CHARS + 1), f"at most {press.MAX_PRESS_CHARS} are sent"),
        ("ann", "Note to self.", "to: names only your own seat"),
    ],
)
def test_bad_press_is_answered_in_words_and_nothing_is_sent(
    sqlite_db: Engine, to: str, body: str, said: str
) -> None:
    issued = new_game(sqlite_db)
    raw = press_mail(issued, body, to=to)
    if not to:
        raw = raw.replace(b"to: \n", b"")
    handled = inbound.handle(sqlite_db, raw, SETTINGS, START)
    assert handled.outcome == "command" and handled.replied
    assert press_mails(sqlite_db) == [] and press_rows(sqlite_db) == []
    (answer,) = replies(sqlite_db)
    assert said in answer
    assert "Traceback" not in answer


def test_a_wrong_password_sends_no_press(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db)
    issued = {**issued, "ann": "not-the-password"}
    inbound.handle(sqlite_db, press_mail(issued, "Hello."), SETTINGS, START)
    assert press_mails(sqlite_db) == [] and press_rows(sqlite_db) == []
    assert "that password do not match" in replies(sqlite_db)[0]


def test_press_is_bounded_per_seat_per_hour(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db)
    for n in range(press.MAX_PER_HOUR):
        raw = press_mail(issued, f"Message {n}.")
        assert inbound.handle(sqlite_db, raw, SETTINGS, START + timedelta(minutes=n)).outcome == "command"
    late = START + timedelta(minutes=30)
    inbound.handle(sqlite_db, press_mail(issued, "One too many."), SETTINGS, late)
    assert len(press_rows(sqlite_db)) == press.MAX_PER_HOUR
    assert "the most the host sends for one seat; send this one later" in replies(sqlite_db)[-1]
    # an hour after the first, the seat may write again
    inbound.handle(sqlite_db, press_mail(issued, "Later."), SETTINGS, START + timedelta(minutes=61))
    assert len(press_rows(sqlite_db)) == press.MAX_PER_HOUR + 1


def test_press_from_another_address_of_the_player_shows_neither_and_ends_an_absence(
    sqlite_db: Engine,
) -> None:
    issued = new_game(sqlite_db)
    with Session(sqlite_db) as session:
        seat = session.exec(select(SeatRow).where(SeatRow.name == "ann")).one()
        seat.away_until = START + timedelta(days=5)
        session.add(seat)
        session.commit()
    body = "Hello Bo.\nAnn (ann.work@example.net, or ann@example.org)"
    raw = press_mail(issued, body, frm="Ann at work <ann.work@example.net>")
    inbound.handle(sqlite_db, raw, SETTINGS, START)
    ((row, msg),) = press_mails(sqlite_db)
    sent = outbox.unpack_message(row.message_z)
    assert b"ann.work@example.net" not in sent and b"ann@example.org" not in sent
    assert "Hello Bo." in text(msg)
    with Session(sqlite_db) as session:
        assert session.exec(select(SeatRow).where(SeatRow.name == "ann")).one().away_until is None


def test_press_given_as_the_subject_reads_the_whole_message(sqlite_db: Engine) -> None:
    issued = new_game(sqlite_db)
    body = f"game: pr-1\nplayer: ann\npassword: {issued['ann']}\nto: cy\nFirst line.\nSecond line.\n-- \nAnn"
    inbound.handle(sqlite_db, mail(body, frm=SEATS["ann"], subject="Re: press").as_bytes(), SETTINGS, START)
    ((row, msg),) = press_mails(sqlite_db)
    assert row.to_addr == SEATS["cy"]
    said = text(msg)
    assert "First line.\nSecond line." in said and "\nAnn" not in said.split("-- ")[0]


def test_no_doubled_press_after_a_run_killed_before_it_recorded_the_mail(
    db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    issued = new_game(db)
    raw = press_mail(issued, "Only once, please.", to="all")
    real_queue = inbound.queue

    def dies(session: Session, *, key: str, **kw: object) -> bool:
        raise RuntimeError("killed")  # the run dies after the press is written, before the commit

    monkeypatch.setattr(inbound, "queue", dies)
    assert inbound.handle(db, raw, SETTINGS, START).outcome == "error"
    assert press_rows(db) == [] and press_mails(db) == []  # rolled back whole with the inbound record
    monkeypatch.setattr(inbound, "queue", real_queue)
    assert inbound.handle(db, raw, SETTINGS, START + timedelta(minutes=1)).outcome == "command"
    assert inbound.handle(db, raw, SETTINGS, START + timedelta(minutes=2)).outcome == "duplicate"
    assert len(press_rows(db)) == 1
    assert sorted(row.to_addr for row, _ in press_mails(db)) == [SEATS["bo"], SEATS["cy"]]


# ------------------------------------------------------------------------- secrets and archive


def finish(engine: Engine, issued: dict[str, str], game_id: str = "pr-1") -> None:
    for _ in range(20):
        with Session(engine) as session:
            if session.get(GameRow, game_id).status == "finished":  # type: ignore[union-attr]
                return
        for seat in SEATS:
            try:
                order_file = orders.template(engine, game_id, seat, suggest=True)
            except UserError:
                continue
            receipt = orders.submit(engine, order_file.replace(PASSWORD_PLACEHOLDER, issued[seat]))
            assert receipt.accepted, receipt.errors
        turns.process(engine, game_id)
    pytest.fail("the game did not finish")


def test_private_press_stays_hidden_while_the_game_runs_and_shows_in_its_archive_after(
    db: Engine, tmp_path: Path
) -> None:
    issued = new_game(db)
    secret = "Bo, I hold the five: bid low."
    inbound.handle(db, press_mail(issued, secret), SETTINGS, START)
    assert len(press_rows(db)) == 1

    running_page = archive_page.build_page(db, "pr-1")
    assert "bid low" not in running_page and "I hold the five" not in running_page
    (entry,) = status.status(db, "pr-1")
    assert entry["press_sent"] == {"ann": 1}
    shown = json.dumps(entry) + status.describe(entry)
    assert "bid low" not in shown and "bo" not in json.dumps(entry["press_sent"])
    assert "press (private) sent: ann 1" in status.describe(entry)
    with Session(db) as session:  # no seat's report carries it
        from pbem.storage.models import ReportRow

        reports = session.exec(select(ReportRow)).all()
    from pbem.core.codec import unpack

    assert all("bid low" not in unpack(r.text_z) + unpack(r.html_z) for r in reports)

    finish(db, issued)
    inbound.handle(db, press_mail(issued, "Too late."), SETTINGS, START + timedelta(days=1))
    assert "game pr-1 is over: press is no longer sent" in replies(db)[-1]
    assert len(press_rows(db)) == 1
    page = archive_page.build_page(db, "pr-1")
    assert "Bo, I hold the five: bid low." in page
    assert "Turn 1: ann to bo" in page
    data = files.build_archive(db, "pr-1")
    assert data["game"]["press"] == "private"
    (kept,) = data["press"]
    assert (kept["sender"], kept["to"], kept["turn"], kept["text"]) == ("ann", ["bo"], 1, secret)
    assert secret in files.public_archive(db, "pr-1")

    path = tmp_path / "pr-1.yaml"
    files.export(db, "pr-1", str(path))
    new_id, _passwords = files.import_archive(db, str(path), game_id="pr-2")
    with Session(db) as session:
        again = session.exec(select(PressRow).where(PressRow.game_id == new_id)).all()
        assert session.get(GameRow, new_id).press == "private"  # type: ignore[union-attr]
    assert [(p.sender, json.loads(p.recipients_json), p.text) for p in again] == [("ann", ["bo"], secret)]


def test_an_archive_whose_press_names_no_seat_is_refused(sqlite_db: Engine, tmp_path: Path) -> None:
    issued = new_game(sqlite_db)
    inbound.handle(sqlite_db, press_mail(issued, "Hi."), SETTINGS, START)
    finish(sqlite_db, issued)
    data = files.build_archive(sqlite_db, "pr-1")
    data["press"][0]["sender"] = "mallory"
    path = tmp_path / "bad.yaml"
    path.write_text(files.dump(data), encoding="utf-8")
    with pytest.raises(UserError, match=r"press\[0\] names mallory, which is no seat"):
        files.import_archive(sqlite_db, str(path), game_id="pr-3")
    with Session(sqlite_db) as session:
        assert session.get(GameRow, "pr-3") is None


def run_cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_welcome_tells_how_to_write_press_when_the_game_takes_it(sqlite_db: Engine) -> None:
    from pbem.mail.welcome import _press_line

    with Session(sqlite_db) as session:
        for mode in ("none", "public", "private"):
            new_game(sqlite_db, mode, game_id=f"w-{mode}")
        found = {
            mode: _press_line(session.get(GameRow, f"w-{mode}")) for mode in ("none", "public", "private")
        }  # type: ignore[arg-type]
    assert found["none"] == []
    assert "to: all, then your message" in found["public"][0] and "choose" not in found["public"][0]
    assert "to: the seats you choose" in found["private"][0]


def test_new_sets_the_press_option_and_refuses_a_bad_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    register(PEARL_DIVE)
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    monkeypatch.setenv("PBEM_DB", url)
    monkeypatch.setenv("PBEM_MAIL_FROM", HOST)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    base = ["new", "pearl-dive", "--seed", "5", "--no-welcome", "--player", "ann=a@example.org"]
    base += ["--player", "bo=b@example.org"]
    code, out = run_cli(*base, "--id", "c-1", "--press", "loud", capsys=capsys)
    assert code == 1 and "--press 'loud': use one of none, public, private" in out
    assert "Traceback" not in out
    assert run_cli(*base, "--id", "c-2", "--press", "public", capsys=capsys)[0] == 0
    base = [a for a in base if a != "--no-welcome"]  # the welcome says how to write press
    assert run_cli(*base, "--id", "c-3", capsys=capsys)[0] == 0
    engine = connect(url)
    with Session(engine) as session:
        assert session.get(GameRow, "c-1") is None
        assert session.get(GameRow, "c-2").press == "public"  # type: ignore[union-attr]
        assert session.get(GameRow, "c-3").press == press.DEFAULT_PRESS  # type: ignore[union-attr]
        welcomes = session.exec(
            select(OutboxRow).where(OutboxRow.dedupe_key.startswith("welcome:c-3:"))
        ).all()  # type: ignore[attr-defined]
    assert len(welcomes) == 2
    assert all(
        "to: the seats you choose" in text(parse(outbox.unpack_message(w.message_z))) for w in welcomes
    )
    engine.dispose()


# -------------------------------------------------------------------- over the real servers


def test_press_by_mail_through_smtp_and_imap_parses_back_in_the_readers_mailbox(
    db: Engine, dovecot: Dovecot
) -> None:
    for user in [HOST, *SEATS.values(), OBSERVER]:
        dovecot.clear(user)

    def deliver(got: Received) -> None:
        for rcpt in got.recipients:
            dovecot.append(rcpt.lower(), got.data)

    controller, smtp = _start_smtp(Recorder(deliver=deliver))
    settings = MailSettings(from_addr=HOST, from_name="pbem", imap_password=dovecot.passwords[HOST])
    try:
        issued = new_game(db, "public")
        with smtplib.SMTP("127.0.0.1", smtp.port) as client:
            client.send_message(
                parse(press_mail(issued, "Good luck, everyone.\n\nAnn", to="all", subject="press"))
            )
        handled = inbound.fetch(db, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings)
        assert [h.outcome for h in handled] == ["command"]
        result = outbox.send(db, SmtpTransport(smtp.url), settings=settings)
        assert result.delayed == [] and result.failed == []
        for reader in ["bo", "cy"]:
            (got,) = [parse(raw) for raw in dovecot.messages(SEATS[reader])]
            raw = got.as_bytes()
            assert_no_address_of(got, raw, SEATS["ann"])
            assert b"ann@example.org" not in raw
            assert str(got["References"]).split()[0] == thread_root(settings, "pr-1", reader)
            assert got["Content-Language"] == "en"
            assert "Good luck, everyone.\n\nAnn" in text(got)
        (watched,) = [parse(raw) for raw in dovecot.messages(OBSERVER)]
        assert "Good luck, everyone." in text(watched) and b"ann@example.org" not in watched.as_bytes()
        (receipt,) = [parse(raw) for raw in dovecot.messages(SEATS["ann"])]
        assert "went to: every player" in text(receipt)
        assert str(receipt["Subject"]) == "Re: press"
    finally:
        controller.stop()
