"""Finding the installed games: the ``pbem.games`` entry-point group, so a third party can add a game
without touching pbem."""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from pbem.core import i18n
from pbem.core.errors import UserError
from pbem.core.game import Game

GROUP = "pbem.games"
#: more games as ``module:attribute`` (comma-separated), for games not installed as a distribution:
#: a game under development, or the host's own test game in every process a test starts
ENV = "PBEM_GAMES"

_extra: dict[str, Game] = {}


class UnknownGame(LookupError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown game {name!r}; installed games: {', '.join(known) or 'none'}")
        self.name = name


#: entry points that failed to load, with why: shown by ``pbem new`` instead of breaking every command
broken: dict[str, str] = {}


@cache
def _installed() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for ep in entry_points(group=GROUP):
        try:
            game = ep.load()
        except Exception as exc:  # a third party's broken game must not take the host down
            broken[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        if not isinstance(game, Game):
            broken[ep.name] = f"{ep.value} is not a pbem Game"
            continue
        games[game.name] = game
    for spec in filter(None, (part.strip() for part in os.environ.get(ENV, "").split(","))):
        module, _, attribute = spec.partition(":")
        try:
            game = getattr(importlib.import_module(module), attribute or "GAME")
        except Exception as exc:
            broken[spec] = f"{type(exc).__name__}: {exc}"
            continue
        if isinstance(game, Game):
            games[game.name] = game
        else:
            broken[spec] = f"{spec} is not a pbem Game"
    return games


def register(game: Game) -> None:
    """Make a game known without installing it (tests, embedding)."""
    _extra[game.name] = game
    i18n.reload()  # its catalogs join the merged ones


def games() -> dict[str, Game]:
    """Every known game by its id, sorted."""
    merged = {**_installed(), **_extra}
    return dict(sorted(merged.items()))


def require(name: str) -> Game:
    """The game ``name``, or a :class:`~pbem.core.errors.UserError` listing the installed ones."""
    try:
        return get_game(name)
    except UnknownGame as exc:
        raise UserError(str(exc)) from None


def get_game(name: str) -> Game:
    known = games()
    try:
        return known[name]
    except KeyError:
        raise UnknownGame(name, list(known)) from None


def catalog_dirs() -> list[tuple[Path, str]]:
    """(locale folder, domain) of every known game that ships catalogs: its package's ``locale/``."""
    found = []
    for game in games().values():
        module = sys.modules.get(type(game).__module__)
        package = (module.__package__ or "") if module else ""
        root = sys.modules.get(package)
        files = getattr(root, "__file__", None) if root else None
        if files is None:
            continue
        folder = Path(files).resolve().parent / "locale"
        if folder.is_dir():
            found.append((folder, package.rsplit(".", 1)[-1]))
    return found


i18n.add_catalog_source(catalog_dirs)
