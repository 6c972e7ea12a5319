"""Decoding a hostile mail (issue 33, findings 7, 11 and 14): every text a command sees is valid (no lone
surrogate), only text codecs decode a part, and a mail's parameters and parts are bounded before the
parser sees them; the player who sent valid orders gets the receipt whatever the rest of the mail."""

from __future__ import annotations

from email import message_from_bytes, policy

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound, limits, reading
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import OutboxRow
from tests.mail.conftest import START, Game, bot_orders, on_both_databases

engine = on_both_databases()

HEAD = (
    "From: Ann <ann@example.org>\r\nTo: host@pbem.test\r\nSubject: {subject}\r\n"
    "Date: Mon, 2 Mar 2026 10:00:00 +0000\r\nMessage-ID: <{id}@example.org>\r\nMIME-Version: 1.0\r\n"
)


def raw_mail(content_type: str, body: bytes, *, subject: str = "orders", id_: str = "m1") -> bytes:
    head = HEAD.format(subject=subject, id=id_) + f"Content-Type: {content_type}\r\n\r\n"
    return head.encode() + body


def receipts(engine: Engine) -> list[str]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key.startswith("reply:"))).all()  # type: ignore[attr-defined]
    return [
        str(message_from_bytes(unpack_message(r.message_z), policy=policy.default)["Subject"]) for r in rows
    ]


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


@pytest.mark.parametrize(
    ("word", "body"),
    [
        ("report", "report\ngame: {game}\nplayer: red\npassword: {password}\n# +3P8-\n"),
        ("report", "report\ngame: {game}+3P8-\nplayer: red\npassword: {password}\n"),
        ("password", "password\ngame: {game}+3P8-\nplayer: red+3P8-\n"),
        ("orders", "{orders}# +3P8-\n"),
    ],
)
def test_a_utf7_lone_surrogate_leaves_every_mail_answered(
    engine: Engine, game: Game, settings: MailSettings, word: str, body: str
) -> None:
    text = body.format(game=game.id, password=game.passwords["red"], orders=bot_orders(engine, game, "red"))
    handled = inbound.handle(engine, raw_mail("text/plain; charset=utf-7", crlf(text)), settings, START)
    assert handled.outcome == ("accepted" if word == "orders" else "command") and handled.replied
    (reply,) = receipts(engine)
    assert "\udcff" not in reply


def test_every_text_taken_from_a_mail_is_valid() -> None:
    assert reading.valid("orders \udcff\ud800 x") == "orders \ufffd\ufffd x"
    part = reading.parse(raw_mail("text/plain; charset=utf-7", b"game: g+3P8-"))
    assert reading.decode_part(part) == "game: g\ufffd"


@pytest.mark.parametrize("charset", ["punycode", "rot13", "zlib_codec", "base64_codec", "unicode_escape"])
def test_a_part_declared_in_a_codec_that_is_no_charset_is_read_as_utf8(
    engine: Engine, game: Game, settings: MailSettings, charset: str
) -> None:
    assert reading.text_codec(charset) is None
    body = crlf(bot_orders(engine, game, "red"))
    handled = inbound.handle(engine, raw_mail(f"text/plain; charset={charset}", body), settings, START)
    assert handled.outcome == "accepted" and handled.replied


@pytest.mark.parametrize(
    ("charset", "codec"),
    [("utf-8", "utf-8"), ("us-ascii", "ascii"), ("iso-8859-2", "iso8859-2"), ("windows-1251", "cp1251"),
     ("koi8-r", "koi8-r"), ("gb18030", "gb18030"), ("big5", "big5"), ("shift_jis", "shift_jis"),
     ("euc-kr", "euc_kr"), ("iso-2022-jp", "iso2022_jp"), ("utf-16", "utf-16"), ("utf-7", "utf-7")],
)  # fmt: skip
def test_text_charsets_decode_with_their_codec(charset: str, codec: str) -> None:
    assert reading.text_codec(charset) == codec


def test_thousands_of_rfc2231_parameters_are_cut_before_parsing_and_the_mail_is_read(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    params = "".join(f";\r\n x{i}*{i}*=utf-8''%41" for i in range(3000))
    part = f"--BB\r\nContent-Type: text/plain; charset=utf-8{params}\r\n\r\n".encode()
    body = part + crlf(bot_orders(engine, game, "red")) + b"\r\n--BB--\r\n"
    raw = raw_mail('multipart/mixed; boundary="BB"', body)
    bounded = limits.bounded(raw, settings.max_message_bytes)
    (text_part,) = [p for p in reading.parse(bounded).walk() if not p.is_multipart()]
    assert len(text_part.get_params()) == 1 + limits.MAX_PARAMS  # the type and the parameters kept
    assert text_part.get_content_charset() == "utf-8"
    handled = inbound.handle(engine, raw, settings, START)
    assert handled.outcome == "accepted" and handled.replied


def test_thousands_of_mime_parts_are_cut_before_parsing_and_the_orders_in_the_first_are_read(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    first = b"--BB\r\nContent-Type: text/plain\r\n\r\n" + crlf(bot_orders(engine, game, "red")) + b"\r\n"
    body = first + b"--BB\r\nContent-Type: text/plain\r\n\r\nx\r\n" * 3000 + b"--BB--\r\n"
    raw = raw_mail('multipart/mixed; boundary="BB"', body)
    parts = list(reading.parse(limits.bounded(raw, settings.max_message_bytes)).walk())
    assert len(parts) == 1 + limits.MAX_PARTS  # the multipart and the parts kept
    handled = inbound.handle(engine, raw, settings, START)
    assert handled.outcome == "accepted" and handled.replied


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("timezone: " + "Europe/" * 700, "unknown time zone"),  # 4,900 characters: no file name (OSError)
        ("timezone: " + "x" * 5000, "unknown time zone"),
        ("away: {until: 9999-12-31}", "is too far away"),  # no day after it (OverflowError)
        ("away: {until: 9999-12-30}", "is too far away"),
    ],
)
def test_a_seat_setting_out_of_every_range_is_answered_in_words(
    engine: Engine, game: Game, settings: MailSettings, setting: str, said: str
) -> None:
    text = f"game: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n{setting}\n"
    handled = inbound.handle(engine, raw_mail("text/plain; charset=utf-8", crlf(text)), settings, START)
    assert handled.outcome == "command" and handled.replied
    with Session(engine) as session:
        (row,) = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key.startswith("reply:"))).all()  # type: ignore[attr-defined]
    answer = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    body = answer.get_body(preferencelist=("plain",))
    assert body is not None and said in body.get_content()
    assert len(body.get_content()) < 2000  # the 5,000 characters are not sent back


def test_a_long_body_is_read_as_far_as_orders_can_stand_and_its_orders_taken(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    quoted = "\n\nOn Mon, 2 Mar 2026, pbem <host@pbem.test> wrote:\n" + "> a line of the report\n" * 40_000
    raw = raw_mail("text/plain; charset=utf-8", crlf(bot_orders(engine, game, "red") + quoted))
    assert len(reading.body_text(reading.parse(raw))) == reading.MAX_TEXT  # not the 900 KB
    handled = inbound.handle(engine, raw, settings, START)
    assert handled.outcome == "accepted" and handled.replied
