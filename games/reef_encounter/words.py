"""Reef Encounter's own words inside its sentences: colours, coral tiles, counts and lists.

Each is a :class:`pbem.core.i18n.Text` that is the English word (orders, ids, hashes and stored data see
only that) and is put in the reader's language with the sentence around it. The colours' words in
every language are the glossary's (``data/glossary/``): ``make i18n`` writes them into the catalogs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.i18n import P_, T_, Text, join_texts, listed, series

#: every colour of the game, as a term: the polyps', larvae's and open sea's (grey … yellow), the
#: algae's (blue … red), the seats' (purple, green, red, yellow). Written out, so extraction finds them.
COLOURS: dict[str, Text] = {
    "grey": P_("colour", "grey"),
    "orange": P_("colour", "orange"),
    "pink": P_("colour", "pink"),
    "white": P_("colour", "white"),
    "yellow": P_("colour", "yellow"),
    "blue": P_("colour", "blue"),
    "green": P_("colour", "green"),
    "purple": P_("colour", "purple"),
    "red": P_("colour", "red"),
}


def colour(name: str) -> Text:
    """The colour ``name`` as a term (a name the game does not know stays as it is, untranslated)."""
    return COLOURS.get(name) or P_("colour", name)


def tile(name: str) -> Text:
    """A coral tile's name (``white-yellow``) in the reader's colour words; English unchanged."""
    return join_texts([colour(part) for part in name.split("-")], "-")


def and_list(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: the ``and`` in the reader's words."""
    return listed(parts)


def counts(numbers: Mapping[str, int]) -> Text:
    """``1 grey, 2 white`` (colours by their English name, as ever), or ``none``."""
    # Translators: a count of polyps of one colour in a list ("1 grey, 2 white")
    parts = [T_("{n} {colour}", n=n, colour=colour(c)) for c, n in sorted(numbers.items()) if n]
    return series(parts) if parts else T_("none")
