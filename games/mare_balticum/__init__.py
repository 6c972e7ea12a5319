"""Mare Balticum (Filip Miłuński), 3 to 5 players: fish the Baltic, unload where ports demand, and
choose in secret what each fish is worth. Rules: shared/rules/mare-balticum.md; grammar: README.md."""

from .game import GAME, MareBalticum, Options

__all__ = ["GAME", "MareBalticum", "Options"]
