"""Coral Divers: plant coral reefs around underwater stations (2-4 players).

Rules: ``shared/rules/coral-divers.md``; order grammar in this package's README.

>>> from pbem.game import Game
>>> isinstance(GAME, Game)
True
"""

from __future__ import annotations

from .game import CoralDivers

GAME = CoralDivers()

__all__ = ["GAME", "CoralDivers"]
