"""The outbox: every mail waits in a table until a server accepted it.

A mail is queued once per dedupe key (the unique constraint decides, not a check in code), so deriving
the outbox twice, or from two hosts at once, queues nothing twice. :func:`send` claims each due row before
delivering it (a short lease in ``next_attempt_at``, so a second sender running at the same time skips
it), marks it sent only after the server accepted it, and otherwise records the error and pushes the
next try back exponentially. A refusal never loses a mail: only a permanent refusal (5xx), repeated
``max_attempts`` times, gives up, and leaves the row with its error for a person to look at.

The queueing is :mod:`pbem.outbox.queueing`, the sending :mod:`pbem.outbox.sending`; this module names
both, the one name every caller imports.
"""

from pbem.outbox.queueing import (
    address_key,
    begin_write,
    enqueue_reports,
    message_bytes,
    pack_message,
    queue,
    report_key,
    unmailed_reports,
    unpack_message,
)
from pbem.outbox.sending import CLAIM_SECONDS, SECRET_PREFIXES, SendResult, backoff, forget_secrets, send

__all__ = [
    "CLAIM_SECONDS",
    "SECRET_PREFIXES",
    "SendResult",
    "address_key",
    "backoff",
    "begin_write",
    "enqueue_reports",
    "forget_secrets",
    "message_bytes",
    "pack_message",
    "queue",
    "report_key",
    "send",
    "unmailed_reports",
    "unpack_message",
]
