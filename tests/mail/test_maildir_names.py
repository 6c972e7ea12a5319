"""The outbox Maildir names each file from its message's Message-ID, read without the email parser when
the head is plain: the name must be the one the parser's reading gives, for every head."""

from __future__ import annotations

from email import policy
from email.parser import BytesHeaderParser

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.outbox import transport


def parsed(message: bytes) -> str | None:
    """What the transport read before: the compat32 parser over the head (ends at the first empty line)."""
    ends = [at for at in (message.find(b"\r\n\r\n"), message.find(b"\n\n")) if at >= 0]
    head = message[: min(ends) + 2] if ends else message
    value = BytesHeaderParser(policy=policy.compat32).parsebytes(head).get("Message-ID")
    return None if value is None else str(value)


LINES = st.sampled_from(
    [
        b"Message-ID: <a.1@pbem.test>",
        b"message-id:<b.2@pbem.test>   ",
        b"MESSAGE-ID: \t<c.3@pbem.test>",
        b"Message-Id:",
        b"Message-ID: <folded",
        b"  .continued@pbem.test>",
        b"\tcontinued",
        b"X-Message-ID: <not.this@pbem.test>",
        b"Subject: turn 3 \xc3\xa9",
        b"Message-ID: <caf\xc3\xa9@pbem.test>",
        b"Subject: a bare\rCR",
        b"no colon on this line",
        b"From someone",
        b"Message-ID : <spaced@pbem.test>",
        b"To: ann@example.org",
        b"",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=8), st.sampled_from([b"\r\n", b"\n"]), st.binary(max_size=40))
@example([b"Subject: x", b"Message-ID: <a.1@pbem.test>"], b"\r\n", b"body\n\nMessage-ID: <no@x>")
@example([b"no colon on this line", b"Message-ID: <a.1@pbem.test>"], b"\r\n", b"")
@example([b"Message-ID: <folded", b"  .continued@pbem.test>"], b"\r\n", b"")
def test_a_message_is_named_from_the_message_id_the_parser_reads(
    lines: list[bytes], end: bytes, body: bytes
) -> None:
    message = end.join(lines) + end + end + body
    expected = parsed(message)
    assert transport._message_id(transport._head(message)) == expected
    named = transport._unique_name(message)
    assert (named is None) == (not expected)
