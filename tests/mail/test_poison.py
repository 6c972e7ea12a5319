"""Poison mail: no message stops the others; one that keeps failing is quarantined, the operator told."""

from __future__ import annotations

import logging
import mailbox
import random
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound, poison, sources
from pbem.outbox.settings import MailSettings
from pbem.storage.models import InboundRow, SubmissionRow
from proof.mime_fuzz import fuzzed
from tests.mail.conftest import START, Game, bot_orders, mail


def inbound_rows(engine: Engine) -> list[InboundRow]:
    with Session(engine) as session:
        return list(session.exec(select(InboundRow).order_by(InboundRow.id)))  # type: ignore[arg-type]


def raw_orders(
    engine: Engine, game: Game, extra: bytes = b"", ctype: bytes = b"text/plain; charset=utf-8"
) -> bytes:
    body = bot_orders(engine, game, "red").encode()
    return (
        b"From: Ann <ann@example.org>\r\nTo: host@pbem.example.org\r\nSubject: orders\r\n"
        b"Message-ID: <m1@example.org>\r\n"
        + extra
        + b"MIME-Version: 1.0\r\nContent-Type: "
        + ctype
        + b"\r\n\r\n"
        + body
    )


@pytest.mark.parametrize(
    "extra",
    [
        b"References: <a\x0bb@example.org>\r\n",
        "References: <a\u2028b@example.org>\r\n".encode(),
        b"In-Reply-To: <a\x0cb@x>\r\n",
    ],
    ids=["VT", "U+2028", "FF"],
)
def test_orders_in_a_mail_with_unwritable_threading_headers_get_their_receipt(
    engine: Engine, game: Game, settings: MailSettings, extra: bytes
) -> None:
    handled = inbound.handle(engine, raw_orders(engine, game, extra), settings, START)
    assert handled.outcome == "accepted" and handled.replied
    assert [r.outcome for r in inbound_rows(engine)] == ["accepted"]


def test_a_mail_in_the_punycode_charset_is_read_not_raised(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    handled = inbound.handle(
        engine, raw_orders(engine, game, ctype=b"text/plain; charset=punycode"), settings, START
    )
    assert handled.outcome in ("accepted", "rejected") and handled.replied


def maildir_with(tmp_path: Path, *messages: bytes) -> Path:
    box = mailbox.Maildir(tmp_path / "in", create=True)
    for raw in messages:
        box.add(raw)
    return tmp_path / "in"


def test_a_message_that_keeps_failing_is_quarantined_after_bounded_tries_and_the_rest_go_on(
    engine: Engine,
    game: Game,
    settings: MailSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    poisoned = mail("game: x\n", frm="eve@example.org", subject="POISON").as_bytes(policy=policy.SMTP)
    good = mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP)
    folder = maildir_with(tmp_path, poisoned, good)
    real = inbound._decide

    def decide(engine: Engine, raw: bytes, *args: object, **kwargs: object) -> object:
        if b"POISON" in raw:  # a fault of ours that this one message trips, every time
            raise RuntimeError("composition blew up")
        return real(engine, raw, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(inbound, "_decide", decide)
    outcomes = []
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        for _ in range(poison.MAX_TRIES + 2):
            outcomes.append(
                sorted(
                    h.outcome for h in inbound.fetch(engine, sources.read_maildir(folder), settings, START)
                )
            )
    assert outcomes[0] == ["accepted", "error"]
    assert outcomes[1:3] == [["error"], [poison.QUARANTINED]]
    assert outcomes[3:] == [[], []]  # marked read: not fetched again
    rows = {r.from_address: r for r in inbound_rows(engine)}
    assert rows["eve@example.org"].outcome == poison.QUARANTINED
    assert rows["eve@example.org"].attempts == poison.MAX_TRIES
    assert "composition blew up" in (rows["eve@example.org"].error or "")
    assert rows["ann@example.org"].outcome == "accepted"
    assert [h.from_address for h in poison.held(engine)] == ["eve@example.org"]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("quarantined" in r.getMessage() for r in errors)
    assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.WARNING)  # no traceback


def test_orders_are_taken_once_across_the_tries_of_a_failing_message(
    engine: Engine, game: Game, settings: MailSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A try that fails after the orders were stored (the archive) finishes on the next one: the orders
    once, the receipt once."""
    folder = maildir_with(tmp_path, mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP))
    real = poison.archive
    calls = []

    def archive(*args: object, **kwargs: object) -> bytes:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk hiccup")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(poison, "archive", archive)
    first = inbound.fetch(engine, sources.read_maildir(folder), settings, START)
    second = inbound.fetch(engine, sources.read_maildir(folder), settings, START)
    assert [h.outcome for h in first] == ["error"] and [h.outcome for h in second] == ["accepted"]
    assert second[0].replied
    with Session(engine) as session:
        assert len(session.exec(select(SubmissionRow).where(SubmissionRow.source == "mail")).all()) == 1


def test_a_fuzzer_s_mime_never_raises_never_sticks(
    engine: Engine, game: Game, settings: MailSettings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(20)
    folder = maildir_with(tmp_path, *(fuzzed(rng, i) for i in range(150)))
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        handled = inbound.fetch(engine, sources.read_maildir(folder), settings, START)
    assert len(handled) == 150
    assert [h for h in handled if h.outcome in ("error", poison.QUARANTINED)] == []
    assert all(r.outcome != "processing" for r in inbound_rows(engine))
    assert inbound.fetch(engine, sources.read_maildir(folder), settings, START) == []  # every one marked read


def test_pbem_mail_fetch_never_prints_a_traceback_and_held_lists_the_quarantined(
    engine: Engine, game: Game, tmp_path: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from pbem.cli.mail import app

    folder = maildir_with(tmp_path, mail("game: x\n", frm="eve@example.org").as_bytes(policy=policy.SMTP))

    def decide(*args: object, **kwargs: object) -> object:
        raise RuntimeError("boom in composition")

    monkeypatch.setattr(inbound, "_decide", decide)
    config = tmp_path / "pbem.toml"
    config.write_text('[mail]\nfrom = "host@pbem.example.org"\n')
    env = {"PBEM_DB": f"sqlite:///{db_path}", "PBEM_CONFIG": str(config)}
    runner = CliRunner()
    results = [
        runner.invoke(app, ["fetch", "--maildir", str(folder)], env=env) for _ in range(poison.MAX_TRIES)
    ]
    assert [r.exit_code for r in results] == [1] * poison.MAX_TRIES
    assert all(
        ("Traceback" not in r.output and r.exception is None) or isinstance(r.exception, SystemExit)
        for r in results
    )
    assert results[-1].stdout.startswith("quarantined eve@example.org")
    listing = runner.invoke(app, ["held"], env=env)
    assert listing.exit_code == 0
    assert "eve@example.org" in listing.stdout and "boom in composition" in listing.stdout
    assert "1 messages quarantined" in listing.stdout
