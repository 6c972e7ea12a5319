"""Whatever arrives, reading it never raises: broken MIME, headers and encodings become answers."""

from __future__ import annotations

import tempfile
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from pbem.mail import inbound, reading
from pbem.outbox.settings import MailSettings
from pbem.storage.db import connect
from tests.mail.conftest import HOST, START

HEADERS = st.sampled_from(
    [
        "From: ann@example.org",
        "From: =?utf-8?q?=E2=9C=93?= <ann@example.org>",
        "From: <<>>@@",
        "Subject: =?x-unknown?b?AAAA?=",
        "Message-ID: <" + "x" * 500,
        "Content-Type: multipart/mixed; boundary=",
        'Content-Type: multipart/alternative; boundary="b"',
        "Content-Type: text/plain; charset=utf-99",
        "Content-Type: text/html",
        "Content-Transfer-Encoding: base64",
        "Content-Transfer-Encoding: quoted-printable",
        "Content-Disposition: attachment; filename=orders.yaml",
        "Auto-Submitted: ",
        "Return-Path: <>",
    ]
)
BODIES = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.just(b"--b\r\nContent-Type: text/plain\r\n\r\npassword: abc-def\r\n--b--\r\n"),
    st.just(b"--b\r\nContent-Type: text/html\r\n\r\n<p>password: abc-def</p>\r\n"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(HEADERS, max_size=8), BODIES)
def test_reading_any_message_never_raises(headers: list[str], body: bytes) -> None:
    raw = "\r\n".join(headers).encode() + b"\r\n\r\n" + body
    msg = reading.parse(raw)
    assert len(reading.message_key(raw, msg)) <= 400
    reading.sender(msg)
    reading.automated_reason(msg, ("host@pbem.test",), "host@pbem.test")
    found = reading.extract(msg)
    assert found.problem in ("", "html-only", "empty")
    secrets = reading.passwords_in_message(msg)
    archived = reading.redact(raw, reading.parse(raw), secrets)
    for secret in secrets:
        if len(secret) >= 3:
            assert secret.encode() not in archived


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_reading_raw_noise_never_raises(raw: bytes) -> None:
    msg = reading.parse(raw)
    reading.message_key(raw, msg)
    reading.sender(msg)
    reading.automated_reason(msg)
    reading.extract(msg)
    reading.redact(raw, reading.parse(raw), reading.passwords_in_message(msg))


@settings(max_examples=60, deadline=None)
@given(st.lists(HEADERS, max_size=8), BODIES)
def test_handling_any_message_gives_an_outcome_never_a_traceback(headers: list[str], body: bytes) -> None:
    raw = "\r\n".join(headers).encode() + b"\r\n\r\n" + body
    handled = inbound.handle(_engine(), raw, MailSettings(from_addr=HOST), START)
    assert handled.outcome in ("accepted", "rejected", "command", "ignored", "duplicate")


@cache
def _engine() -> Engine:
    # one database for all examples (hypothesis reruns the test body, not the fixtures)
    return connect(f"sqlite:///{tempfile.mkdtemp(prefix='pbem-hostile-')}/pbem.sqlite")
