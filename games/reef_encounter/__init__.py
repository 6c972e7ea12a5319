"""Reef Encounter (Richard Breese, 2004) for 2-4 players: the rules engine, its views and a bot.

The rules implemented are ``shared/rules/reef-encounter.md``; the order grammar is in this package's
README. ``GAME`` is what the host's ``pbem.games`` entry point names.
"""

from pathlib import Path

from pbem.core.glossary import load_glossary

from .engine import GAME, Options, ReefEncounter

#: the game's own words in every language (data/glossary/), checked as the package loads
GLOSSARY = load_glossary(Path(__file__).resolve().parent / "data" / "glossary")

__all__ = ["GAME", "GLOSSARY", "Options", "ReefEncounter"]
