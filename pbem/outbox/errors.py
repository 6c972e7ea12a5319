"""The mail layer's one error for people: bad settings, an unreachable mailbox, a bad URL."""

from __future__ import annotations

import re

from pbem.core.errors import UserError


class MailError(UserError):
    """A message for a person (the CLI prints it and exits 1), never a traceback."""


def masked_url(url: str) -> str:
    """``url`` as an error may quote it: a password written into it is never echoed."""
    return re.sub(r"(//[^/@:]*):[^/@]*@", r"\1:***@", url)
