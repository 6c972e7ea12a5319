"""The mail layer's one error for people: bad settings, an unreachable mailbox, a bad URL."""

from __future__ import annotations

from pbem.errors import UserError


class MailError(UserError):
    """A message for a person (the CLI prints it and exits 1), never a traceback."""
