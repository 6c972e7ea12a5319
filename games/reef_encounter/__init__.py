"""Reef Encounter (Richard Breese, 2004) for 2-4 players: the rules engine, its views and a bot.

The rules implemented are ``shared/rules/reef-encounter.md``; the order grammar is in this package's
README. ``GAME`` is what the host's ``pbem.games`` entry point names.
"""

from .engine import GAME, Options, ReefEncounter

__all__ = ["GAME", "Options", "ReefEncounter"]
