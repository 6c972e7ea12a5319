"""Inbound sources: a Maildir, an mbox file, and a real IMAP server (Dovecot)."""

from __future__ import annotations

import mailbox
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path
from urllib.parse import quote

import pytest
from imapclient import IMAPClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import inbound, reading, sources
from pbem.outbox.errors import MailError
from pbem.outbox.settings import MailSettings
from pbem.storage.models import InboundRow, SubmissionRow
from tests.mail.conftest import HOST, START, Certificate, Dovecot, Game, bot_orders, mail


def count(engine: Engine, table: type) -> int:
    with Session(engine) as session:
        return len(session.exec(select(table)).all())


def test_maildir_reads_new_and_unread_mail_and_marks_it_seen(tmp_path: Path) -> None:
    box = mailbox.Maildir(tmp_path / "in", create=True)
    box.add(mail("one").as_bytes())
    seen = mailbox.MaildirMessage(mail("two").as_bytes())
    seen.set_subdir("cur")
    seen.add_flag("S")
    box.add(seen)
    unread = mailbox.MaildirMessage(mail("three").as_bytes())
    unread.set_subdir("cur")
    unread.add_flag("F")
    box.add(unread)
    got = list(sources.read_maildir(tmp_path / "in"))
    bodies = sorted(b"one" in m.raw or b"three" in m.raw for m in got)
    assert len(got) == 2 and all(bodies)
    for item in got:
        item.mark_read()
    assert list((tmp_path / "in" / "new").iterdir()) == []
    flags = sorted(p.name.split(":2,")[1] for p in (tmp_path / "in" / "cur").iterdir())
    assert flags == ["FS", "S", "S"]
    assert list(sources.read_maildir(tmp_path / "in")) == []


def test_a_folder_that_is_not_a_maildir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MailError, match="not a Maildir"):
        list(sources.read_maildir(tmp_path))


def test_mbox_is_read_whole_and_the_key_table_keeps_it_exactly_once(
    engine: Engine, game: Game, settings: MailSettings, tmp_path: Path
) -> None:
    box = mailbox.mbox(tmp_path / "orders.mbox")
    box.add(mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP))
    box.add(mail(bot_orders(engine, game, "blue"), frm="bob@example.org").as_bytes(policy=policy.SMTP))
    box.close()
    first = inbound.fetch(engine, sources.read_mbox(tmp_path / "orders.mbox"), settings, START)
    second = inbound.fetch(engine, sources.read_mbox(tmp_path / "orders.mbox"), settings, START)
    assert [h.outcome for h in first] == ["accepted", "accepted"]
    assert [h.outcome for h in second] == ["duplicate", "duplicate"]
    assert count(engine, SubmissionRow) == 2


def test_a_missing_mbox_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MailError, match="no mbox file"):
        list(sources.read_mbox(tmp_path / "none.mbox"))


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("pop3://u@host", "not an IMAP URL"),
        ("imap://host/INBOX", "not an IMAP URL"),
        ("imap://u:pw@host/INBOX", "holds a password"),
        ("imap://u@host:0x/INBOX", "bad port"),
    ],
)
def test_bad_imap_urls_are_refused_with_a_clear_message(url: str, problem: str) -> None:
    with pytest.raises(MailError, match=problem):
        list(sources.read_imap(url, "pw"))


def test_imap_url_defaults() -> None:
    assert sources.parse_imap_url("imaps://pbem%40x.org@mail.x.org") == sources.ImapUrl(
        True, False, "mail.x.org", 993, "pbem@x.org", "INBOX"
    )
    plain = sources.parse_imap_url("imap://u@h:1143/Orders%20In?starttls=1")
    assert (plain.port, plain.mailbox, plain.starttls) == (1143, "Orders In", True)


def test_imap_without_a_password_says_which_variable_to_set(dovecot: Dovecot) -> None:
    with pytest.raises(MailError, match="PBEM_IMAP_PASSWORD"):
        list(sources.read_imap(dovecot.url(HOST), None))


def test_imap_with_a_wrong_password_is_a_clear_error_without_the_password(dovecot: Dovecot) -> None:
    with pytest.raises(MailError, match="cannot log in") as caught:
        list(sources.read_imap(dovecot.url(HOST), "not-the-password-5"))
    assert "not-the-password-5" not in str(caught.value)


def test_imap_fetches_unseen_mail_once_and_marks_it_seen(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    dovecot.append(HOST, mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP))
    dovecot.append(HOST, mail("help", frm="cy@example.org").as_bytes(policy=policy.SMTP))
    password = dovecot.passwords[HOST]
    assert dovecot.unseen(HOST) == 2
    handled = inbound.fetch(engine, sources.read_imap(dovecot.url(HOST), password), settings, START)
    assert [h.outcome for h in handled] == ["accepted", "command"]
    assert dovecot.unseen(HOST) == 0
    assert inbound.fetch(engine, sources.read_imap(dovecot.url(HOST), password), settings, START) == []
    assert count(engine, InboundRow) == 2


def test_the_same_message_in_two_imap_mailboxes_is_handled_once(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    data = mail(bot_orders(engine, game, "blue"), frm="bob@example.org").as_bytes(policy=policy.SMTP)
    dovecot.append(HOST, b"Delivered-To: host@pbem.test\r\n" + data)
    dovecot.append(HOST, b"Delivered-To: orders@pbem.test\r\n" + data, mailbox="Orders")
    password = dovecot.passwords[HOST]
    first = inbound.fetch(engine, sources.read_imap(dovecot.url(HOST), password), settings, START)
    second = inbound.fetch(engine, sources.read_imap(dovecot.url(HOST, "Orders"), password), settings, START)
    assert [h.outcome for h in first + second] == ["accepted", "duplicate"]
    assert count(engine, SubmissionRow) == 1
    assert dovecot.unseen(HOST, "Orders") == 0


# ``INBOX/Входящие`` as it goes over the wire (RFC 3501 5.1.3, modified UTF-7), written out here so that
# the mailbox is made without the library pbem reads it with
INCOMING_WIRE = "INBOX/&BBIERQQ+BDQETwRJBDgENQ-"


def test_a_mailbox_with_a_non_ascii_name_is_read(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST, INCOMING_WIRE)
    dovecot.append(HOST, mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP), INCOMING_WIRE)
    url = dovecot.url(HOST, quote("INBOX/Входящие"))
    handled = inbound.fetch(engine, sources.read_imap(url, dovecot.passwords[HOST]), settings, START)
    assert [h.outcome for h in handled] == ["accepted"]
    assert dovecot.unseen(HOST, INCOMING_WIRE) == 0
    assert count(engine, SubmissionRow) == 1


def test_imap_reads_many_unseen_messages_in_batches_oldest_first(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    total = sources.FETCH_BATCH * 2 + 3
    for n in range(total):
        dovecot.append(HOST, mail("help", subject=f"n{n}").as_bytes(policy=policy.SMTP))
    got = list(sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]))
    subjects = [message_from_bytes(item.raw, policy=policy.default)["Subject"] for item in got]
    assert subjects == [f"n{n}" for n in range(total)]
    uids = [int(item.label.rsplit("/", 1)[1]) for item in got]
    assert uids == sorted(uids) and len(set(uids)) == total
    assert dovecot.unseen(HOST) == total  # reading marks nothing; mark_read does


def test_a_message_another_run_holds_is_left_unread(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    from pbem.mail import reading

    dovecot.clear(HOST)
    data = mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP)
    dovecot.append(HOST, data)
    stored = dovecot.messages(HOST)[0]
    with Session(engine) as session:
        key = reading.message_key(stored, reading.parse(stored))
        session.add(InboundRow(key=key, received_at=START, raw_z=b"", outcome="processing"))
        session.commit()
    handled = inbound.fetch(
        engine, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings, START
    )
    assert [h.outcome for h in handled] == ["busy"]
    assert dovecot.unseen(HOST) == 1


def test_a_message_that_trips_a_fault_is_left_unread_and_the_rest_are_read(
    engine: Engine, game: Game, settings: MailSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.mail import commands

    box = mailbox.Maildir(tmp_path / "in", create=True)
    box.add(mail("help", subject="a").as_bytes(policy=policy.SMTP))
    box.add(mail(bot_orders(engine, game, "red"), subject="b").as_bytes(policy=policy.SMTP))

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(commands, "run", broken)
    handled = inbound.fetch(engine, sources.read_maildir(tmp_path / "in"), settings, START)
    assert sorted(h.outcome for h in handled) == ["accepted", "error"]
    assert len(list((tmp_path / "in" / "new").iterdir())) == 1  # the faulty one, unread
    monkeypatch.undo()
    later = inbound.fetch(engine, sources.read_maildir(tmp_path / "in"), settings, START + timedelta(hours=1))
    assert [h.outcome for h in later] == ["command"]


@pytest.mark.parametrize("form", ["imaps://{user}@127.0.0.1:{tls_port}", "imap://{user}@127.0.0.1:{port}"])
def test_imap_over_tls_verifies_the_server_with_the_given_ca(
    form: str, engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot, certificate: Certificate
) -> None:
    dovecot.clear(HOST)
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    base = form.format(user=HOST, port=dovecot.port, tls_port=dovecot.tls_port)
    query = "?cafile=" if base.startswith("imaps") else "?starttls=1&cafile="
    with pytest.raises(MailError, match="CERTIFICATE_VERIFY_FAILED"):  # not trusted without the CA
        list(
            sources.read_imap(
                base + ("" if base.startswith("imaps") else "?starttls=1"), dovecot.passwords[HOST]
            )
        )
    url = base + query + str(certificate.cert)
    handled = inbound.fetch(engine, sources.read_imap(url, dovecot.passwords[HOST]), settings, START)
    assert [h.outcome for h in handled] == ["command"]


# ---------------------------------------------------------------- what becomes of mail once read (IMAP)


def _fetch(engine: Engine, dovecot: Dovecot, settings: MailSettings, **after: str) -> list[str]:
    incoming = sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST], **after)
    return [h.outcome for h in inbound.fetch(engine, incoming, settings, START)]


def test_imap_mail_once_read_can_be_moved_to_a_folder_made_for_it(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    dovecot.clear(HOST, "pbem-read-1")
    dovecot.append(HOST, mail("help", subject="one").as_bytes(policy=policy.SMTP))
    dovecot.append(HOST, mail("help", subject="two").as_bytes(policy=policy.SMTP))
    assert _fetch(engine, dovecot, settings, after="move", move_to="pbem-read-1") == ["command", "command"]
    assert dovecot.messages(HOST) == []
    moved = [message_from_bytes(m)["Subject"] for m in dovecot.messages(HOST, "pbem-read-1")]
    assert moved == ["one", "two"]
    assert dovecot.unseen(HOST, "pbem-read-1") == 0


def test_without_move_the_server_copies_and_deletes_only_the_message_read(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = IMAPClient.has_capability
    monkeypatch.setattr(IMAPClient, "has_capability", lambda self, name: name != "MOVE" and real(self, name))
    dovecot.clear(HOST)
    dovecot.clear(HOST, "pbem-read-2")
    dovecot.append(HOST, mail("help", subject="read").as_bytes(policy=policy.SMTP))
    holder = mail(bot_orders(engine, game, "red"), subject="held").as_bytes(policy=policy.SMTP)
    dovecot.append(HOST, holder)
    with Session(engine) as session:  # another run is handling this one: it must stay where it is
        stored = dovecot.messages(HOST)[1]
        key = reading.message_key(stored, reading.parse(stored))
        session.add(InboundRow(key=key, received_at=START, raw_z=b"", outcome="processing"))
        session.commit()
    assert _fetch(engine, dovecot, settings, after="move", move_to="pbem-read-2") == ["command", "busy"]
    assert [message_from_bytes(m)["Subject"] for m in dovecot.messages(HOST)] == ["held"]
    assert [message_from_bytes(m)["Subject"] for m in dovecot.messages(HOST, "pbem-read-2")] == ["read"]


def test_imap_mail_once_read_can_be_deleted(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    assert _fetch(engine, dovecot, settings, after="delete") == ["command"]
    assert dovecot.messages(HOST) == []


def test_read_mail_is_moved_to_a_folder_with_a_non_ascii_name(
    engine: Engine, game: Game, settings: MailSettings, dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    assert _fetch(engine, dovecot, settings, after="move", move_to="Feldolgozott/Прочитано") == ["command"]
    wire = "Feldolgozott/&BB8EQAQ+BEcEOARCBDAEPQQ+-"  # modified UTF-7, as another client writes it
    assert len(dovecot.messages(HOST, wire)) == 1
    assert dovecot.messages(HOST) == []


def test_a_mailbox_that_is_not_there_is_named_with_those_that_are(dovecot: Dovecot) -> None:
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP), INCOMING_WIRE)
    with pytest.raises(MailError, match="no mailbox 'Beérkezett'; the mailboxes there are: ") as caught:
        list(sources.read_imap(dovecot.url(HOST, quote("Beérkezett")), dovecot.passwords[HOST]))
    assert "INBOX/Входящие" in str(caught.value) and "&" not in str(caught.value)
