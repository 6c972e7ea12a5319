"""Orders inside ordinary mail, as Gmail, Outlook, Thunderbird and Apple Mail write it.

Each message is built byte for byte in the shape its client writes (headers, MIME structure, the
attribution line or header block above the quoted message, the signature), from the clients'
documented and commonly seen output, and quotes the host's real report (which carries the template
with its placeholder password): the reader must take the player's orders, never the quoted template.
"""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import markers
from pbem.mail import extract, inbound, reading
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.render import reports
from pbem.storage.models import OutboxRow, SubmissionRow
from tests.mail.conftest import HOST, START, Game, new_game

REPORT_SUBJECT = "[pbem] pd-1 · turn 1 · your move"


@pytest.fixture
def game(engine: Engine) -> Game:
    """Seed 4 deals red the pearls 2 and 4 that these mails bid (the dice derive from the seed and
    each turn's orders, pbem.core.dice)."""
    return new_game(engine, seed=4)


def orders_of(game: Game, seat: str, bid: int = 4, *, framed: bool = False) -> str:
    doc = (
        f"game: {game.id}\nplayer: {seat}\nturn: 1\npassword: {game.passwords[seat]}\n"
        f"orders:\n  - bid: {bid}\n"
    )
    return markers.frame(doc) if framed else doc


def quoted(text: str, prefix: str = "> ") -> str:
    return "\n".join((prefix + line).rstrip() for line in text.split("\n"))


def report_text(engine: Engine, game: Game, seat: str = "red") -> str:
    return reports.report(engine, game.id, seat, fmt="txt")


def crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def gmail(body_text: str, body_html: str) -> bytes:
    """Gmail's web client: multipart/alternative, a ``CA…@mail.gmail.com`` id, the quote under an
    "On …, … wrote:" line in the text and in a ``gmail_quote`` div in the HTML."""
    return crlf(
        "MIME-Version: 1.0\n"
        "References: <root.red.pd-1@pbem.test>\n"
        "In-Reply-To: <report.red.pd-1@pbem.test>\n"
        "From: Ann Example <ann@example.org>\n"
        "Date: Mon, 2 Mar 2026 10:12:31 +0100\n"
        "Message-ID: <CAF=k7QmXc1Yv5n2Tq0zR8bLw3pJ@mail.gmail.com>\n"
        f"Subject: Re: {REPORT_SUBJECT}\n"
        f"To: pbem test host <{HOST}>\n"
        'Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f60718"\n\n'
        "--000000000000a1b2c3d4e5f60718\n"
        'Content-Type: text/plain; charset="UTF-8"\n\n'
        f"{body_text}\n\n"
        "--000000000000a1b2c3d4e5f60718\n"
        'Content-Type: text/html; charset="UTF-8"\n\n'
        f"{body_html}\n\n"
        "--000000000000a1b2c3d4e5f60718--\n"
    )


def outlook(body_text: str) -> bytes:
    """Outlook (Microsoft 365): the earlier message pasted unquoted under a rule and a
    From:/Sent:/To:/Subject: block, Windows-1252 quoted-printable, Thread-Index headers."""
    encoded = body_text.replace("=", "=3D")
    return crlf(
        "From: Ann Example <ann@example.org>\n"
        f"To: pbem test host <{HOST}>\n"
        f"Subject: RE: {REPORT_SUBJECT}\n"
        f"Thread-Topic: {REPORT_SUBJECT}\n"
        "Thread-Index: AQHaXk1Yb2c3ZGVmZ2hpamtsbW5vcA==\n"
        "Date: Mon, 2 Mar 2026 09:12:31 +0000\n"
        "Message-ID: <AM0PR07MB6145A1B2C3D4E5F6@AM0PR07MB6145.eurprd07.prod.outlook.com>\n"
        "References: <root.red.pd-1@pbem.test>\n"
        "In-Reply-To: <report.red.pd-1@pbem.test>\n"
        "Accept-Language: en-US\n"
        "Content-Language: en-US\n"
        "X-MS-Has-Attach:\n"
        'Content-Type: text/plain; charset="Windows-1252"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "MIME-Version: 1.0\n\n"
        f"{encoded}\n"
    )


def thunderbird(body_text: str) -> bytes:
    """Thunderbird: format=flowed, "On 3/2/26 09:00, … wrote:" and ``>`` quotes, a "-- " signature."""
    return crlf(
        "Message-ID: <5d0e8f3a-6b1c-4e2a-9f77-1c2d3e4f5a6b@example.org>\n"
        "Date: Mon, 2 Mar 2026 10:12:31 +0100\n"
        "MIME-Version: 1.0\n"
        "User-Agent: Mozilla Thunderbird\n"
        f"Subject: Re: {REPORT_SUBJECT}\n"
        "Content-Language: en-US\n"
        f"To: pbem test host <{HOST}>\n"
        "References: <root.red.pd-1@pbem.test> <report.red.pd-1@pbem.test>\n"
        "From: Ann Example <ann@example.org>\n"
        "In-Reply-To: <report.red.pd-1@pbem.test>\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Transfer-Encoding: 8bit\n\n"
        f"{body_text}\n"
    )


def apple_mail(body_text: str) -> bytes:
    """Apple Mail: "Mime-Version: 1.0 (Mac OS X Mail …)", a quote that starts with a quoted
    "> On 2 Mar 2026, at 09:00, … wrote:" line."""
    return crlf(
        "Content-Type: text/plain;\n\tcharset=us-ascii\n"
        "Content-Transfer-Encoding: 7bit\n"
        "Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3774.300.61.1.2\\))\n"
        f"Subject: Re: {REPORT_SUBJECT}\n"
        "From: Ann Example <ann@example.org>\n"
        "In-Reply-To: <report.red.pd-1@pbem.test>\n"
        "Date: Mon, 2 Mar 2026 10:12:31 +0100\n"
        "Message-Id: <8C1F0E2A-4B3D-4C5E-9A6F-7B8C9D0E1F2A@example.org>\n"
        "References: <root.red.pd-1@pbem.test> <report.red.pd-1@pbem.test>\n"
        f"To: pbem test host <{HOST}>\n\n"
        f"{body_text}\n"
    )


def accepted_bid(engine: Engine, raw: bytes, settings: MailSettings) -> int:
    handled = inbound.handle(engine, raw, settings, START)
    assert handled.outcome == "accepted", reply_text(engine)
    with Session(engine) as session:
        row = session.exec(select(SubmissionRow).order_by(SubmissionRow.id.desc())).first()  # type: ignore[union-attr]
    assert row is not None and row.orders_json is not None
    found = re.search(r'"bid":\s*(\d+)', row.orders_json)
    assert found is not None
    return int(found.group(1))


def reply_text(engine: Engine) -> str:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id.desc())).all()  # type: ignore[union-attr]
    for row in rows:
        if row.dedupe_key.startswith("reply:"):
            msg = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
            assert isinstance(msg, EmailMessage)
            part = msg.get_body(preferencelist=("plain",))
            assert part is not None and part.get_param("format") == "flowed"
            return reading.unflow(part.get_content().replace("\r\n", "\n"))
    return ""


def test_gmail_reply_with_greeting_and_signature_above_the_quoted_report(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = (
        f"Hi,\n\nhere is my bid:\n\n{orders_of(game, 'red')}\nThanks,\nAnn\n\n"
        "On Mon, Mar 2, 2026 at 9:00 AM pbem test host <host@pbem.test> wrote:\n\n"
        + quoted(report_text(engine, game))
    )
    html = (
        '<div dir="ltr">Hi,<div><br></div><div>here is my bid:</div><div><br></div>'
        f"<div>{orders_of(game, 'red').replace(chr(10), '<br>')}</div><div>Thanks,</div><div>Ann</div></div>"
        '<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Mar 2, 2026 at 9:00 AM '
        "pbem test host &lt;host@pbem.test&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">'
        f"<pre>{report_text(engine, game)}</pre></blockquote></div>"
    )
    assert accepted_bid(engine, gmail(text, html), settings) == 4


def test_gmail_html_only_body_is_read_from_its_text(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    lines = orders_of(game, "red", framed=True).rstrip("\n").split("\n")
    html = (
        '<div dir="ltr"><div>Hello!</div>'
        + "".join(f"<div>{line.replace('  ', '&nbsp;&nbsp;')}</div>" for line in lines)
        + "<div>--</div><div>Ann</div></div>"
    )
    raw = crlf(
        "MIME-Version: 1.0\nFrom: Ann <ann@example.org>\nDate: Mon, 2 Mar 2026 10:12:31 +0100\n"
        "Message-ID: <CAF=html0nly@mail.gmail.com>\nSubject: my orders\n"
        f'To: {HOST}\nContent-Type: text/html; charset="UTF-8"\n\n{html}\n'
    )
    assert accepted_bid(engine, raw, settings) == 4


def test_outlook_reply_with_the_report_unquoted_under_from_sent(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    # the report below holds the template, markers and placeholder password and all, unquoted
    text = (
        f"Hello,\n\n{orders_of(game, 'red', bid=2)}\nRegards\nAnn Example\n\n"
        "________________________________\n"
        "From: pbem test host <host@pbem.test>\n"
        "Sent: Monday, March 2, 2026 9:00 AM\n"
        "To: Ann Example <ann@example.org>\n"
        f"Subject: {REPORT_SUBJECT}\n\n" + report_text(engine, game)
    )
    assert accepted_bid(engine, outlook(text), settings) == 2


def test_outlook_classic_original_message_separator(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = (
        f"{orders_of(game, 'red', bid=2)}\n\n-----Original Message-----\n"
        "From: pbem test host [mailto:host@pbem.test]\nSent: Monday, March 2, 2026 9:00 AM\n"
        f"To: Ann Example\nSubject: {REPORT_SUBJECT}\n\n" + report_text(engine, game)
    )
    assert accepted_bid(engine, outlook(text), settings) == 2


def test_thunderbird_reply_with_the_template_filled_in_between_markers(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = (
        f"On 3/2/26 09:00, pbem test host wrote:\n{quoted(report_text(engine, game))}\n\n"
        f"My turn:\n\n{orders_of(game, 'red', framed=True)}\n-- \nAnn Example\nhttps://ann.example.org\n"
    )
    assert accepted_bid(engine, thunderbird(text), settings) == 4


def test_apple_mail_reply_that_only_quotes_the_template_sends_no_orders(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    # the quoted template is the host's, password filled in (as in a welcome): "thanks" is no order
    report = report_text(engine, game).replace("YOUR-PASSWORD", game.passwords["red"])
    text = (
        "Thanks, got it!\n\nSent from my iPhone\n\n"
        "> On 2 Mar 2026, at 09:00, pbem test host <host@pbem.test> wrote:\n>\n" + quoted(report)
    )
    assert inbound.handle(engine, apple_mail(text), settings, START).outcome == "rejected"
    with Session(engine) as session:
        assert session.exec(select(SubmissionRow).where(SubmissionRow.status == "accepted")).all() == []


def test_outlook_reply_that_only_says_thanks_above_the_pasted_welcome_sends_no_orders(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    pasted = report_text(engine, game).replace("YOUR-PASSWORD", game.passwords["red"])
    text = (
        "Thanks!\n\n________________________________\nFrom: pbem test host <host@pbem.test>\n"
        f"Sent: Monday, March 2, 2026 9:00 AM\nTo: Ann Example\nSubject: {REPORT_SUBJECT}\n\n{pasted}"
    )
    assert inbound.handle(engine, outlook(text), settings, START).outcome == "rejected"
    with Session(engine) as session:
        assert session.exec(select(SubmissionRow).where(SubmissionRow.status == "accepted")).all() == []


def test_outlook_forward_reads_the_forwarded_orders(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = (
        "FYI\n\n________________________________\nFrom: Ann Example <ann@work.example>\n"
        f"Sent: Monday, March 2, 2026 9:30 AM\nTo: {HOST}\nSubject: orders\n\n"
        f"{orders_of(game, 'red', bid=2, framed=True)}"
    )
    raw = outlook(text).replace(f"Subject: RE: {REPORT_SUBJECT}".encode(), b"Subject: FW: orders")
    assert accepted_bid(engine, raw, settings) == 2


def test_apple_mail_inline_forward_of_an_order_mail(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = (
        "Forwarding the orders I sent from my other address.\n\nBegin forwarded message:\n\n"
        "From: Ann Example <ann@work.example>\nSubject: orders\nDate: 2 March 2026 at 09:30:00 CET\n"
        f"To: {HOST}\n\n{orders_of(game, 'red')}\nAnn\n"
    )
    assert accepted_bid(engine, apple_mail(text), settings) == 4


def test_gmail_inline_forward(engine: Engine, game: Game, settings: MailSettings) -> None:
    text = (
        "---------- Forwarded message ---------\nFrom: Ann Example <ann@work.example>\n"
        f"Date: Mon, Mar 2, 2026 at 9:30 AM\nSubject: orders\nTo: <{HOST}>\n\n\n{orders_of(game, 'red')}\n"
    )
    assert accepted_bid(engine, gmail(text, "<div>(see text)</div>"), settings) == 4


def test_thunderbird_forward_as_attachment_is_read_from_the_message_rfc822_part(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    original = (
        "From: Ann Example <ann@work.example>\nTo: host@pbem.test\nSubject: orders\n"
        "Date: Mon, 2 Mar 2026 09:30:00 +0100\nMessage-ID: <orig-1@work.example>\n"
        "Content-Type: text/plain; charset=UTF-8\n\n"
        f"Dear host,\n\n{orders_of(game, 'red', bid=2)}\nAnn\n"
    )
    raw = crlf(
        "Message-ID: <fwd-1@example.org>\nDate: Mon, 2 Mar 2026 10:12:31 +0100\nMIME-Version: 1.0\n"
        "User-Agent: Mozilla Thunderbird\nSubject: Fwd: orders\nFrom: Ann Example <ann@example.org>\n"
        f'To: {HOST}\nContent-Type: multipart/mixed; boundary="------------x7Yq2Lk9Rm"\n\n'
        "This is a multi-part message in MIME format.\n--------------x7Yq2Lk9Rm\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed\n\nSee the attached mail.\n\n"
        '--------------x7Yq2Lk9Rm\nContent-Type: message/rfc822; name="orders.eml"\n'
        'Content-Disposition: attachment; filename="orders.eml"\n\n'
        f"{original}\n--------------x7Yq2Lk9Rm--\n"
    )
    assert accepted_bid(engine, raw, settings) == 2


def test_a_bad_line_is_quoted_with_a_caret_and_the_markers_are_advised(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    doc = orders_of(game, "red").replace("orders:\n", "orders:\n - bid: 3\n   bad: [\n")
    raw = thunderbird(f"Hi,\n\n{doc}\nThanks, Ann\n")
    assert inbound.handle(engine, raw, settings, START).outcome == "rejected"
    answer = reply_text(engine)
    assert "Hi," not in answer.split("Where the reading stopped")[0].split("NOT accepted")[0]
    pointer = re.search(r"line (\d+): (.*)\n +\^", answer)
    assert pointer is not None, answer
    assert markers.BEGIN in answer and markers.END in answer
    assert "Put your orders between the two lines of the template" in answer


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "Hi,\n\ngame: g\nplayer: red\norders:\n  - pass\n\nThanks, Ann",
            "game: g\nplayer: red\norders:\n  - pass",
        ),
        ("report\ngame: g\nplayer: red\n\nCheers", "report\ngame: g\nplayer: red"),
        ("Hello\n\n-----begin pbem orders-----\n  x: 1\n-----END PBEM ORDERS-----\nbye", "  x: 1"),
        ("game: g\norders:\n- a\n-- \n- signature line", "game: g\norders:\n- a"),
        # a step's "from:" key is not the header of an earlier message
        (
            "Hi\n\ngame: g\norders:\n  - move_shrimp:\n      from: De3\n      to: Cb4\n  - take: grey\n\nAnn",
            "game: g\norders:\n  - move_shrimp:\n      from: De3\n      to: Cb4\n  - take: grey",
        ),
        (
            f"Hi\n{markers.BEGIN}\norders:\n  - m:\n      from: De3\n      to: Cb4\n{markers.END}\nAnn",
            "orders:\n  - m:\n      from: De3\n      to: Cb4",
        ),
    ],
)
def test_find_takes_the_document_and_nothing_around_it(body: str, expected: str) -> None:
    found = extract.find(body, ("report",))
    assert found is not None and found.text == expected


def test_find_gives_nothing_for_prose() -> None:
    assert extract.find("Hi, I will send my orders tomorrow.\n\nAnn", ("report",)) is None


def test_point_at_puts_the_caret_under_the_column() -> None:
    shown = extract.point_at("game: g\norders: [x", "yaml: line 2, column 9: did not find")
    assert shown == "    line 2: orders: [x\n                    ^"


def test_reading_keeps_the_forward_origin(game: Game) -> None:
    raw = crlf(
        "From: a@example.org\nTo: h@example.org\nSubject: Fwd\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nfyi\n'
        "--b\nContent-Type: message/rfc822\n\n"
        "From: a@example.org\nSubject: o\n\ngame: g\nplayer: red\n--b--\n"
    )
    found = reading.extract(reading.parse(raw))
    assert (found.text, found.origin) == ("game: g\nplayer: red", "forwarded message")
