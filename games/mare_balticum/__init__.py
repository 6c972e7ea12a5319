"""Mare Balticum (Filip Miłuński), 3 to 5 players: fish the Baltic, unload where ports demand, and
choose in secret what each fish is worth. Rules: shared/rules/mare-balticum.md; grammar: README.md."""

from pathlib import Path

from pbem.core.glossary import load_glossary

from .game import GAME, MareBalticum, Options

#: the game's own words in every language (data/glossary/), checked as the package loads
GLOSSARY = load_glossary(Path(__file__).resolve().parent / "data" / "glossary")

__all__ = ["GAME", "GLOSSARY", "MareBalticum", "Options"]
