"""The poison-mail paths end to end on SQLite and on PostgreSQL: a fuzzer's MIME never raises or sticks,
a message that keeps failing is quarantined after bounded tries, and no raw form keeps the password."""

from __future__ import annotations

import random
import zlib
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound, poison, sources
from pbem.outbox.settings import MailSettings
from pbem.storage.models import InboundRow, SubmissionRow
from proof.mime_fuzz import fuzzed
from tests.cron.conftest import START, new_game
from tests.mail.conftest import mail

SETTINGS = MailSettings(from_addr="host@pbem.example.org")


def maildir(tmp_path: Path, messages: list[bytes]) -> Path:
    root = tmp_path / "in"
    for sub in ("new", "cur", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for n, raw in enumerate(messages):
        (root / "new" / f"m{n:05d}").write_bytes(raw)
    return root


def test_fuzzed_mime_never_raises_or_sticks(engine: Engine, tmp_path: Path) -> None:
    new_game(engine, "g")
    rng = random.Random(7)
    folder = maildir(tmp_path, [fuzzed(rng, n) for n in range(60)])
    handled = inbound.fetch(engine, sources.read_maildir(folder), SETTINGS, START)
    assert len(handled) == 60 and not [h for h in handled if h.outcome in ("error", poison.QUARANTINED)]
    with Session(engine) as session:
        assert session.exec(select(InboundRow).where(InboundRow.outcome == "processing")).all() == []


def test_a_failing_message_is_quarantined_and_passwords_stay_out(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passwords = new_game(engine, "g")
    pw = passwords["red"]
    good = mail(
        f'{{"game": "g", "player": "red", "turn": 1, "password": "{pw}", "orders": []}}',
        frm="red@example.org",
    )
    bad = mail("game: g\n", frm="blue@example.org", subject="POISON")
    folder = maildir(tmp_path, [good.as_bytes(policy=policy.SMTP), bad.as_bytes(policy=policy.SMTP)])
    real = inbound._decide

    def decide(engine: Engine, raw: bytes, *args: object, **kwargs: object) -> object:
        if b"POISON" in raw:
            raise RuntimeError("a fault of ours")
        return real(engine, raw, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(inbound, "_decide", decide)
    for _ in range(poison.MAX_TRIES + 1):
        inbound.fetch(engine, sources.read_maildir(folder), SETTINGS, START)
    assert [r.from_address for r in poison.held(engine)] == ["blue@example.org"]
    with Session(engine) as session:
        blobs = [zlib.decompress(r.raw_z) for r in session.exec(select(InboundRow))]
        blobs += [zlib.decompress(r.raw_z) for r in session.exec(select(SubmissionRow))]
    assert len(blobs) == 3 and all(pw.encode() not in b for b in blobs)
