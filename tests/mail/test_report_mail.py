"""Report mail: one per stored report and address, plain text plus the self-contained HTML."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.codec import unpack
from pbem.create import create_game
from pbem.mail import compose, outbox
from pbem.mail.settings import MailSettings
from pbem.models import ObserverRow, OutboxRow, ReportRow
from pbem.registry import register
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, Game


def queued(engine: Engine) -> dict[str, tuple[str, EmailMessage]]:
    with Session(engine) as session:
        found = session.exec(select(OutboxRow)).all()
    return {
        r.dedupe_key: (
            r.to_addr,
            message_from_bytes(outbox.unpack_message(r.message_z), policy=policy.default),
        )  # type: ignore[misc]
        for r in found
    }


def test_each_seat_gets_its_own_report_and_observers_the_public_one(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    with Session(engine) as session:
        session.add(ObserverRow(game_id=game.id, email="Kibitz@Example.org"))
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 3
    mails = queued(engine)
    assert {k: to for k, (to, _) in mails.items()} == {
        f"report:{game.id}:0:0:red": "ann@example.org",
        f"report:{game.id}:0:0:blue": "bob@example.org",
        f"report:{game.id}:0:0:observer=kibitz@example.org": "kibitz@example.org",
    }
    _, red = mails[f"report:{game.id}:0:0:red"]
    assert red["Subject"] == f"[pbem {game.id}] turn 0: report for red"
    assert red.get_content_type() == "multipart/alternative"
    assert red["From"].addresses[0].addr_spec == HOST
    assert red["X-Loop"] == HOST and red["Auto-Submitted"] == "auto-generated"
    with Session(engine) as session:
        row = session.exec(select(ReportRow).where(ReportRow.seat == "red")).one()
    text, html = red.get_body(("plain",)), red.get_body(("html",))
    assert text is not None and html is not None
    assert text.get_content().replace("\r\n", "\n") == unpack(row.text_z)
    assert html.get_content().replace("\r\n", "\n") == unpack(row.html_z)
    _, public = mails[f"report:{game.id}:0:0:observer=kibitz@example.org"]
    assert public["Subject"] == f"[pbem {game.id}] turn 0: public report"
    assert outbox.unmailed_reports(engine) == []  # nothing left to look at, whatever the case of an address


def test_html_reports_are_self_contained(engine: Engine, game: Game, settings: MailSettings) -> None:
    outbox.enqueue_reports(engine, START, settings=settings)
    for _, msg in queued(engine).values():
        html = msg.get_body(("html",))
        assert html is not None
        content = str(html.get_content()).lower()
        assert "<style" in content
        for external in ('src="http', "src='http", 'href="http', "@import", "<link"):
            assert external not in content


def test_enqueue_reports_is_idempotent(engine: Engine, game: Game, settings: MailSettings) -> None:
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    assert outbox.unmailed_reports(engine) == []  # nothing left to look at, whatever the case of an address
    assert len(queued(engine)) == 2


def test_a_seat_without_an_address_gets_no_mail(engine: Engine, settings: MailSettings) -> None:
    register(PEARL_DIVE)
    create_game(
        engine, PEARL_DIVE.name, "pd-quiet", [("red", "ann@example.org"), ("blue", "")], seed=3, now=START
    )
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert [to for to, _ in queued(engine).values()] == ["ann@example.org"]


def test_a_seat_with_a_broken_address_is_skipped_without_stopping_the_others(
    engine: Engine, settings: MailSettings
) -> None:
    register(PEARL_DIVE)
    players = [("red", "ann@example.org"), ("blue", "bob@example.org>,victim@elsewhere.org")]
    create_game(engine, PEARL_DIVE.name, "pd-broken", players, seed=3, now=START)
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert [to for to, _ in queued(engine).values()] == ["ann@example.org"]


def test_the_mail_pass_marks_each_report_and_reads_only_the_unmarked(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    with Session(engine) as session:
        assert all(r.mail_queued for r in session.exec(select(ReportRow)))  # the public one too: no observer
        for row in session.exec(select(OutboxRow)):
            session.delete(row)  # were the pass to look at every report again, it would queue these anew
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    with Session(engine) as session:
        red = session.exec(select(ReportRow).where(ReportRow.seat == "red")).one()
        red.mail_queued = False
        session.add(red)
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert list(queued(engine)) == [f"report:{game.id}:0:0:red"]


def test_the_html_part_is_quoted_printable_as_the_email_package_writes_it(settings: MailSettings) -> None:
    html = "<p>Reef — turn 3 ◀ " + "x" * 120 + " </p>\n.dot at a line start\n<td>a=b</td>\n" * 50
    msg = compose.report_message(
        settings,
        to="ann@example.org",
        key="k",
        game_id="g",
        turn=3,
        seat="red",
        text="t",
        html=html,
        now=START,
    )
    reference = EmailMessage()
    reference.add_alternative(html, subtype="html", cte="quoted-printable")
    ours, theirs = msg.get_body(("html",)), reference.get_body(("html",))
    assert ours is not None and theirs is not None
    assert list(ours.items()) == list(theirs.items())
    assert ours["Content-Transfer-Encoding"] == "quoted-printable"
    raw = ours.as_bytes(policy=policy.SMTP).split(b"\r\n\r\n", 1)[1]
    assert raw.isascii() and max(len(line) for line in raw.split(b"\r\n")) <= 76
    parsed = message_from_bytes(outbox.unpack_message(outbox.pack_message(msg)), policy=policy.default)
    body = parsed.get_body(("html",))
    assert body is not None and body.get_content().replace("\r\n", "\n") == html


def test_a_mail_is_stored_as_the_email_package_serialises_it(settings: MailSettings) -> None:
    for text in ["plain", "naïve\ntext — with\r\nevery\rline break\n"]:
        html = "<p>Reef — turn 3 ◀ " + "x" * 120 + " </p>\n.dot\r\n<td>a=b</td>\r" * 40
        msg = compose.report_message(
            settings,
            to="ann@example.org",
            key="k",
            game_id="g",
            turn=3,
            seat="red",
            text=text,
            html=html,
            now=START,
        )
        assert outbox.message_bytes(msg) == msg.as_bytes(policy=policy.SMTP)
        assert outbox.unpack_message(outbox.pack_message(msg)) == msg.as_bytes(policy=policy.SMTP)
