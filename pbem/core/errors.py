"""The one error type a person sees: the CLI prints its message on one line and exits 1."""

from __future__ import annotations


class UserError(Exception):
    """A message for a person (a player or a game master), not a bug: bad input, an unknown game, a
    stale turn. The CLI prints it and exits 1; mail replies with it."""
