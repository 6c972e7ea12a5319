"""Passwords at rest: no stored raw form keeps one, whatever the YAML or mail shape; migration 0009
cleans the rows an older pbem stored."""

from __future__ import annotations

import zlib
from email import policy
from email.header import Header

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.codec import unpack
from pbem.intake.redaction import keyed_passwords, redact_text
from pbem.mail import inbound
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import InboundRow, OutboxRow, SubmissionRow
from tests.mail.conftest import START, Game, mail


def shapes(game: Game) -> dict[str, tuple[str, str]]:
    """(subject, body) of order mails that carry red's password in every way a player may write it."""
    pw = game.passwords["red"]
    escaped = pw.replace("a", "\\x61").replace("e", "\\x65")  # a YAML escape: the same password, read
    head = f"game: {game.id}\nplayer: red\nturn: 1\n"
    return {
        "json": (
            "orders",
            f'{{"game": "{game.id}", "player": "red", "turn": 1, "password": "{pw}", "orders": []}}',
        ),
        "flow": ("orders", f"{{game: {game.id}, player: red, turn: 1, password: {pw}, orders: []}}"),
        "quoted key": ("orders", f'{head}"password": {pw}\norders: []\n'),
        "next line": ("orders", f"{head}password:\n  {pw}\norders: []\n"),
        "subject": (f"orders, password {pw}", f"{head}password: {pw}\norders: []\n"),
        "escape in flow": (
            "orders",
            f'{{game: {game.id}, player: red, turn: 1, password: "{escaped}", orders: []}}',
        ),
        "single quotes": ("orders", f"{head}password: '{pw}'  # mine\norders: []\n"),
    }


def readable(blob: bytes) -> bytes:
    """The stored bytes, and every part and header as a mail program would decode them."""
    msg = inbound.reading.parse(blob)
    texts = [inbound.reading.header(msg, h) for h in ("Subject",)]
    texts += [inbound.reading.decode_part(p) for p in msg.walk() if not p.is_multipart()]
    return blob + "\n".join(texts).encode()


def stored(engine: Engine) -> list[bytes]:
    with Session(engine) as session:
        kept = [readable(zlib.decompress(r.raw_z)) for r in session.exec(select(InboundRow))]
        kept += [unpack(r.raw_z).encode() for r in session.exec(select(SubmissionRow))]
    return kept


@pytest.mark.parametrize(
    "shape", ["json", "flow", "quoted key", "next line", "subject", "escape in flow", "single quotes"]
)
def test_no_stored_raw_form_keeps_the_password(
    engine: Engine, game: Game, settings: MailSettings, shape: str
) -> None:
    subject, body = shapes(game)[shape]
    msg = mail(body, subject=subject)
    inbound.handle(engine, msg.as_bytes(policy=policy.SMTP), settings, START)
    pw = game.passwords["red"].encode()
    kept = stored(engine)
    assert len(kept) == 2 and kept[0]  # the message is archived, not dropped
    for blob in kept:
        assert pw not in blob and pw.replace(b"a", b"\\x61") not in blob, blob[-400:]
        assert b"[redacted]" in blob or b"[password redacted]" in blob


def test_a_password_in_an_encoded_subject_is_redacted(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    pw = game.passwords["red"]
    msg = mail(f"game: {game.id}\nplayer: red\nturn: 1\npassword: {pw}\norders: []\n")
    del msg["Subject"]
    msg["Subject"] = Header(f"pässword {pw}", "utf-8").encode()
    inbound.handle(engine, msg.as_bytes(policy=policy.SMTP), settings, START)
    for blob in stored(engine):
        assert pw.encode() not in blob
        assert pw not in str(inbound.reading.parse(blob)["Subject"] or "")


def test_the_text_redactor_finds_the_key_anywhere_and_reads_escapes() -> None:
    assert (
        redact_text('{"a": 1, "password": "x\\"y-secret", "b": 2}')
        == '{"a": 1, "password": "[redacted]", "b": 2}'
    )
    assert (
        redact_text("{game: g, password: tulip-frog, orders: []}")
        == "{game: g, password: [redacted], orders: []}"
    )
    assert keyed_passwords('{password: "tu\\x6cip-frog"}') == ["tu\\x6cip-frog", "tulip-frog"]
    assert (
        redact_text("password: 'it''s-mine' # c\nsubject it's-mine", [])
        == "password: '[redacted]' # c\nsubject [redacted]"
    )
    assert redact_text("x" * 100_000 + "password: " + "y" * 100_000).endswith("password: [redacted]")


@pytest.mark.parametrize("body", ["help", "report\ngame: pd-1\nplayer: red\n"])
def test_a_password_shaped_word_without_a_password_key_is_redacted_in_the_archive_and_the_reply(
    engine: Engine, game: Game, settings: MailSettings, body: str
) -> None:
    pw = game.passwords["red"]
    inbound.handle(engine, mail(body, subject=f"orders {pw}").as_bytes(policy=policy.SMTP), settings, START)
    (archived,) = stored(engine)
    assert pw.encode() not in archived and b"[password redacted]" in archived
    with Session(engine) as session:
        (reply,) = session.exec(select(OutboxRow)).all()
    assert pw not in reply.subject and pw.encode() not in unpack_message(reply.message_z)
    assert reply.subject == "Re: orders [password redacted]"
