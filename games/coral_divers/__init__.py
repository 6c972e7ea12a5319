"""Coral Divers: plant coral reefs around underwater stations (2-4 players).

Rules: ``shared/rules/coral-divers.md``; order grammar in this package's README.

>>> from pbem.core.game import Game
>>> isinstance(GAME, Game)
True
"""

from __future__ import annotations

from pathlib import Path

from pbem.core.glossary import load_glossary

from .game import CoralDivers

GAME = CoralDivers()

#: the game's own words in every language (data/glossary/), checked as the package loads
GLOSSARY = load_glossary(Path(__file__).resolve().parent / "data" / "glossary")

__all__ = ["GAME", "GLOSSARY", "CoralDivers"]
