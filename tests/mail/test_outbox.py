"""The outbox: queued once, sent once, delayed (never lost or doubled) by a server that is down or refuses."""

from __future__ import annotations

import mailbox
import threading
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.outbox import sending
from pbem.outbox.message import header_fields, new_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import MaildirTransport, SmtpTransport
from pbem.storage.models import OutboxRow
from tests.mail.conftest import START, Certificate, Recorder, SmtpServer, _start_smtp, free_port, stored_bytes


def put(engine: Engine, settings: MailSettings, key: str, to: str = "ann@example.org") -> bool:
    msg = new_message(header_fields(settings, to=to, subject=f"about {key}", key=key, now=START))
    msg.set_content(f"mail {key}\n")
    with Session(engine) as session:
        added = outbox.queue(session, key=key, to=to, message=msg, now=START)
        session.commit()
    return added


def at(moment: datetime | None) -> datetime | None:
    """A stored moment: aware UTC, as SQLModel's columns give it back (so comparable with the tests')."""
    assert moment is None or moment.utcoffset() is not None
    return moment


def rows(engine: Engine) -> list[OutboxRow]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow).order_by(OutboxRow.id)))  # type: ignore[arg-type]


def test_a_dedupe_key_is_queued_once(engine: Engine, settings: MailSettings) -> None:
    assert put(engine, settings, "reply:1") is True
    assert put(engine, settings, "reply:1") is False
    assert [r.dedupe_key for r in rows(engine)] == ["reply:1"]


def test_a_packed_mail_is_an_ordinary_zlib_stream_of_its_exact_bytes() -> None:
    import os
    import zlib

    # a report mail's shape: text that packs well, then base64 pictures that hardly do
    raw = b"Subject: turn 3\r\n\r\n" + b"<p>the reef</p>\r\n" * 500 + os.urandom(30_000).hex().encode()
    blob = outbox.pack_message(raw)
    assert len(blob) < len(raw) * 0.75
    assert outbox.unpack_message(blob) == raw
    assert zlib.decompress(blob) == raw  # any zlib reads what the outbox stores
    assert outbox.unpack_message(zlib.compress(raw, 1)) == raw  # and rows packed by the stdlib still read
    for damaged in (b"\x00" + blob[1:], blob[: len(blob) // 2]):  # as the stdlib would say it
        with pytest.raises(zlib.error):
            outbox.unpack_message(damaged)


def test_send_delivers_each_due_mail_once_and_marks_it_sent(
    engine: Engine, settings: MailSettings, smtp: SmtpServer
) -> None:
    put(engine, settings, "a")
    put(engine, settings, "b", to="bob@example.org")
    result = outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    assert len(result.sent) == 2 and not result.delayed
    assert [r.recipients for r in smtp.handler.received] == [["ann@example.org"], ["bob@example.org"]]
    assert {r.sender for r in smtp.handler.received} == {settings.from_addr}
    assert [(r.status, r.attempts, at(r.sent_at)) for r in rows(engine)] == [("sent", 1, START)] * 2
    again = outbox.send(engine, SmtpTransport(smtp.url), START + timedelta(hours=1), settings=settings)
    assert again.sent == [] and len(smtp.handler.received) == 2


def test_the_message_sent_is_the_stored_one_with_our_loop_headers(
    engine: Engine, settings: MailSettings, smtp: SmtpServer
) -> None:
    put(engine, settings, "a")
    outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    got = message_from_bytes(smtp.handler.received[0].data, policy=policy.default)
    assert got["X-Loop"] == settings.loop_tag
    assert got["Auto-Submitted"] == "auto-generated"
    assert got["Subject"] == "about a"


def test_a_server_that_refuses_then_accepts_delays_the_mail_never_loses_or_doubles_it(
    engine: Engine, settings: MailSettings
) -> None:
    controller, server = _start_smtp(Recorder(script=["451 4.3.0 try again later", "421 4.3.2 closing"]))
    try:
        put(engine, settings, "a")
        put(engine, settings, "b")
        transport = SmtpTransport(server.url)
        first = outbox.send(engine, transport, START, settings=settings)
        assert first.sent == [] and len(first.delayed) == 2
        a, b = rows(engine)
        assert (a.status, a.attempts, at(a.next_attempt_at)) == ("pending", 1, START + timedelta(seconds=60))
        assert "451" in (a.last_error or "") and "421" in (b.last_error or "")
        early = outbox.send(engine, transport, START + timedelta(seconds=30), settings=settings)
        assert early.sent == [] and early.delayed == []  # not due yet: no attempt at all
        later = outbox.send(engine, transport, START + timedelta(seconds=61), settings=settings)
        assert len(later.sent) == 2
        assert len(server.handler.received) == 2
        assert [r.status for r in rows(engine)] == ["sent", "sent"]
        assert outbox.send(engine, transport, START + timedelta(days=1), settings=settings).sent == []
        assert len(server.handler.received) == 2
    finally:
        controller.stop()


def test_a_server_that_is_down_delays_with_growing_waits(engine: Engine, settings: MailSettings) -> None:
    put(engine, settings, "a")
    transport = SmtpTransport(f"smtp://127.0.0.1:{free_port()}")
    now = START
    waits = []
    for _ in range(4):
        result = outbox.send(engine, transport, now, settings=settings)
        assert len(result.delayed) == 1
        (row,) = rows(engine)
        assert row.status == "pending" and "unreachable" in (row.last_error or "")
        assert row.next_attempt_at is not None
        waits.append(at(row.next_attempt_at) - now)
        now = at(row.next_attempt_at)
    assert waits == [timedelta(seconds=s) for s in (60, 120, 240, 480)]
    assert rows(engine)[0].attempts == 4  # a transient failure never gives up


def test_backoff_is_capped() -> None:
    capped = MailSettings(retry_seconds=60, retry_max_seconds=3600)
    assert outbox.backoff(capped, 1) == timedelta(seconds=60)
    assert outbox.backoff(capped, 7) == timedelta(seconds=3600)
    assert outbox.backoff(capped, 500) == timedelta(seconds=3600)


def test_a_permanent_refusal_gives_up_after_max_attempts(engine: Engine, settings: MailSettings) -> None:
    controller, server = _start_smtp(Recorder(refuse_rcpt={"nobody@example.org"}))
    try:
        put(engine, settings, "lost", to="nobody@example.org")
        put(engine, settings, "fine")
        transport = SmtpTransport(server.url)
        now = START
        for attempt in range(1, settings.max_attempts + 1):
            result = outbox.send(engine, transport, now, settings=settings)
            if attempt < settings.max_attempts:
                assert len(result.delayed) == 1
            now += timedelta(days=1)
        assert len(result.failed) == 1
        lost, fine = rows(engine)
        assert (lost.status, lost.attempts) == ("failed", settings.max_attempts)
        assert "550" in (lost.last_error or "")
        assert fine.status == "sent"  # one refused recipient does not hold up the others
        assert [r.recipients for r in server.handler.received] == [["ann@example.org"]]
    finally:
        controller.stop()


def test_two_senders_at_once_deliver_each_mail_once(
    engine: Engine, settings: MailSettings, smtp: SmtpServer
) -> None:
    for i in range(12):
        put(engine, settings, f"m{i}")
    results = []

    def run() -> None:
        results.append(outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(r.sent) for r in results) == 12
    assert len(smtp.handler.received) == 12
    assert all(r.status == "sent" for r in rows(engine))


def test_smtp_login_uses_the_password_from_the_environment_and_never_stores_it(
    engine: Engine, db_path: Path, smtp: SmtpServer
) -> None:
    settings = MailSettings(from_addr="host@pbem.test", smtp_password="smtp-secret-9")
    put(engine, settings, "a")
    url = f"smtp://pbem-user@127.0.0.1:{smtp.port}"
    assert (
        len(outbox.send(engine, SmtpTransport(url, settings.smtp_password), START, settings=settings).sent)
        == 1
    )
    assert smtp.logins == [("pbem-user", "smtp-secret-9")]
    put(engine, settings, "b")
    wrong = outbox.send(engine, SmtpTransport(url, "wrong-pass-1", timeout=3), START, settings=settings)
    assert len(wrong.delayed) == 1  # a refused login delays the mail: fixing the setting delivers it
    assert rows(engine)[1].status == "pending"
    assert "wrong-pass-1" not in (rows(engine)[1].last_error or "")
    engine.dispose()
    assert b"smtp-secret-9" not in stored_bytes(db_path)


def test_maildir_transport_drops_each_mail_into_new(
    engine: Engine, settings: MailSettings, tmp_path: Path
) -> None:
    put(engine, settings, "a")
    put(engine, settings, "b")
    box_dir = tmp_path / "outbox"
    assert len(outbox.send(engine, MaildirTransport(box_dir), START, settings=settings).sent) == 2
    box = mailbox.Maildir(box_dir, create=False)
    assert sorted(str(m["Subject"]) for m in box) == ["about a", "about b"]
    files = list((box_dir / "new").iterdir())
    assert len(files) == 2
    assert all(b"\r" not in f.read_bytes() and b"\n\n" in f.read_bytes() for f in files)  # LF, not CRLF


def test_mails_claimed_by_a_run_that_died_are_due_again_once_the_lease_runs_out(
    engine: Engine, settings: MailSettings, tmp_path: Path
) -> None:
    for key in "abcde":
        put(engine, settings, key)
    assert len(sending._claim(engine, START, 3)) == 3  # a run claims three, then is killed
    box = MaildirTransport(tmp_path / "box")
    first = outbox.send(engine, box, START + timedelta(seconds=1), settings=settings, batch=2)
    assert len(first.sent) == 2  # the two nobody held
    assert (
        outbox.send(engine, box, START + timedelta(seconds=outbox.CLAIM_SECONDS - 1), settings=settings).sent
        == []
    )
    later = outbox.send(
        engine, box, START + timedelta(seconds=outbox.CLAIM_SECONDS), settings=settings, batch=2
    )
    assert len(later.sent) == 3
    assert [(r.status, r.attempts) for r in rows(engine)] == [("sent", 1)] * 5
    assert len(list((tmp_path / "box" / "new").iterdir())) == 5


def test_a_maildir_batch_cut_short_marks_what_it_delivered(
    engine: Engine, settings: MailSettings, tmp_path: Path
) -> None:
    for key in "abcd":
        put(engine, settings, key)

    class Breaks(MaildirTransport):
        """Delivers two, then fails as a full disk's write would, not as a refusal."""

        def deliver(self, sender: str, recipient: str, message: bytes) -> None:
            if len(list((self.path / "new").iterdir())) == 2:
                raise OSError("no space left")
            super().deliver(sender, recipient, message)

    with pytest.raises(OSError):
        outbox.send(engine, Breaks(tmp_path / "box"), START, settings=settings)
    assert [r.status for r in rows(engine)] == ["sent", "sent", "pending", "pending"]
    later = START + timedelta(seconds=outbox.CLAIM_SECONDS)
    assert len(outbox.send(engine, MaildirTransport(tmp_path / "box"), later, settings=settings).sent) == 2
    assert len(list((tmp_path / "box" / "new").iterdir())) == 4


def test_a_maildir_mail_read_since_is_not_delivered_again(tmp_path: Path) -> None:
    first = b"Subject: a\r\nMessage-ID: <one@example.org>\r\n\r\nbody\r\n"
    second = b"Subject: b\r\nMessage-ID: <two@example.org>\r\n\r\nbody\r\n"
    box_dir = tmp_path / "box"

    def read_all() -> None:  # a mail reader moves what it read to cur/, with flags
        for path in (box_dir / "new").iterdir():
            path.rename(box_dir / "cur" / f"{path.name}:2,S")

    with MaildirTransport(box_dir) as box:
        box.deliver("host@example.org", "ann@example.org", first)
        read_all()
        box.deliver("host@example.org", "ann@example.org", first)  # again, in the same run
    with MaildirTransport(box_dir) as box:  # a later run, after a crash
        box.deliver("host@example.org", "ann@example.org", second)
        read_all()
        for raw in (first, second):
            box.deliver("host@example.org", "ann@example.org", raw)
    assert not list((box_dir / "new").iterdir())
    assert len(list((box_dir / "cur").iterdir())) == 2


def test_send_stops_at_its_limit_across_batches(
    engine: Engine, settings: MailSettings, tmp_path: Path
) -> None:
    for key in "abcdefg":
        put(engine, settings, key)
    box = MaildirTransport(tmp_path / "box")
    assert len(outbox.send(engine, box, START, settings=settings, batch=2, limit=5).sent) == 5
    assert [r.status for r in rows(engine)] == ["sent"] * 5 + ["pending"] * 2


def test_a_maildir_file_is_named_by_the_message_id_in_the_headers_only(tmp_path: Path) -> None:
    body_id = b"\r\n\r\nMessage-ID: <not-a-header@example.org>\r\n"
    first = b"Subject: a\r\nMessage-ID: <one@example.org>" + body_id
    again = b"Subject: a, sent again\r\nMessage-ID: <one@example.org>" + body_id + b"more\r\n"
    other = b"Subject: b\r\nMessage-ID: <two@example.org>" + body_id
    unix = b"Subject: c\nMessage-ID: <three@example.org>\n\nMessage-ID: <one@example.org>\n"
    with MaildirTransport(tmp_path / "box") as box:
        for raw in (first, again, other, unix, b"Subject: no id\r\n\r\nMessage-ID: <one@example.org>\r\n"):
            box.deliver("host@example.org", "ann@example.org", raw)
    names = sorted(p.name for p in (tmp_path / "box" / "new").iterdir())
    assert len(names) == 4  # one, two, three and the message without an id; "sent again" added nothing
    assert sum(name.startswith("pbem-") for name in names) == 3


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://example.org", "not an SMTP URL"),
        ("smtp://user:pw@example.org", "holds a password"),
        ("smtp://user@example.org", "PBEM_SMTP_PASSWORD"),
        ("smtp://example.org:99999", "bad port"),
    ],
)
def test_bad_smtp_urls_are_refused_with_a_clear_message(url: str, problem: str) -> None:
    from pbem.outbox.errors import MailError

    with pytest.raises(MailError, match=problem):
        SmtpTransport(url)


def test_smtp_url_forms_pick_tls_starttls_and_default_ports() -> None:
    assert (SmtpTransport("smtp://mx.example.org").port, SmtpTransport("smtp://mx.example.org").tls) == (
        25,
        False,
    )
    starttls = SmtpTransport("smtp://mx.example.org?starttls=1")
    assert (starttls.port, starttls.starttls) == (587, True)
    tls = SmtpTransport("smtps://u@mx.example.org", "pw")
    assert (tls.port, tls.tls, tls.user) == (465, True, "u")
    assert "pw" not in repr(tls)


def test_starttls_upgrades_before_the_login_and_verifies_the_certificate(
    engine: Engine, smtp_starttls: SmtpServer, certificate: Certificate
) -> None:
    settings = MailSettings(from_addr="host@pbem.test", smtp_password="smtp-secret-9")
    put(engine, settings, "a")
    url = f"smtp://pbem-user@127.0.0.1:{smtp_starttls.port}?starttls=1&cafile={certificate.cert}"
    assert len(outbox.send(engine, SmtpTransport(url, "smtp-secret-9"), START, settings=settings).sent) == 1
    assert smtp_starttls.logins == [("pbem-user", "smtp-secret-9")]
    assert len(smtp_starttls.handler.received) == 1


def test_a_server_demanding_starttls_delays_plain_mail_and_never_gets_the_password(
    engine: Engine, smtp_starttls: SmtpServer
) -> None:
    settings = MailSettings(from_addr="host@pbem.test", max_attempts=1)
    put(engine, settings, "a")
    result = outbox.send(
        engine, SmtpTransport(f"smtp://127.0.0.1:{smtp_starttls.port}"), START, settings=settings
    )
    assert len(result.delayed) == 1  # a settings problem: the mail waits, it is not given up
    assert "530" in (rows(engine)[0].last_error or "")
    assert smtp_starttls.handler.received == []


def test_smtps_speaks_tls_from_the_start(engine: Engine, smtps: SmtpServer, certificate: Certificate) -> None:
    settings = MailSettings(from_addr="host@pbem.test")
    put(engine, settings, "a")
    url = f"smtps://127.0.0.1:{smtps.port}?cafile={certificate.cert}"
    assert len(outbox.send(engine, SmtpTransport(url), START, settings=settings).sent) == 1
    assert len(smtps.handler.received) == 1


def test_an_untrusted_certificate_delays_the_mail(engine: Engine, smtps: SmtpServer) -> None:
    settings = MailSettings(from_addr="host@pbem.test")
    put(engine, settings, "a")
    result = outbox.send(engine, SmtpTransport(f"smtps://127.0.0.1:{smtps.port}"), START, settings=settings)
    assert len(result.delayed) == 1
    assert "CERTIFICATE_VERIFY_FAILED" in (rows(engine)[0].last_error or "")
    assert smtps.handler.received == []


def test_a_missing_cafile_is_a_clear_error(tmp_path: Path) -> None:
    from pbem.outbox.errors import MailError

    with pytest.raises(MailError, match="does not exist"):
        SmtpTransport(f"smtps://127.0.0.1:465?cafile={tmp_path / 'none.pem'}")


def test_a_server_that_is_down_costs_one_attempt_per_run_not_one_per_mail(
    engine: Engine, settings: MailSettings
) -> None:
    for key in ("a", "b", "c"):
        put(engine, settings, key)
    result = outbox.send(engine, SmtpTransport(f"smtp://127.0.0.1:{free_port()}"), START, settings=settings)
    assert len(result.delayed) == 1 and result.sent == []
    assert [(r.status, r.attempts) for r in rows(engine)] == [("pending", 1), ("pending", 0), ("pending", 0)]
