"""Coral Divers' own words inside sentences and tables, in the reader's language when shown.

Coral kinds, seat colours and shell kinds are English ids in the state, the orders and the stored
events; where a player reads one it is a :func:`~pbem.core.i18n.P_` term (the glossary's word: *мозговой
коралл* for brain), still the English id to everything else. Lists are whole messages (``{items} and
{item}``), and a count stands beside its label (``tiles: 3``), so no language needs an English plural."""

from __future__ import annotations

from pbem.core.i18n import P_, T_, Text, listed, separated  # noqa: F401 (listed, separated: for the game's modules)

#: each coral kind's word (data.CORALS; terms of data/glossary/)
CORAL_WORDS: dict[str, Text] = {
    "brain": P_("coral", "brain"),
    "fan": P_("coral", "fan"),
    "staghorn": P_("coral", "staghorn"),
    "tube": P_("coral", "tube"),
}
#: each seat colour's word (state.COLOURS)
COLOUR_WORDS: dict[str, Text] = {
    "red": P_("colour", "red"),
    "blue": P_("colour", "blue"),
    "yellow": P_("colour", "yellow"),
    "white": P_("colour", "white"),
}
#: each shell kind's word (what a seabed token may be; `shell:` orders name the id)
SHELL_WORDS: dict[str, Text] = {
    "pearl": P_("shell", "pearl"),
    "discount": P_("shell", "discount"),
    "free-start": P_("shell", "free-start"),
    "extra-tile": P_("shell", "extra-tile"),
}


def coral_word(kind: str) -> str:
    """``kind`` as a term (an unknown id stays as it is)."""
    return CORAL_WORDS.get(kind, kind)


def colour_word(name: str) -> str:
    return COLOUR_WORDS.get(name, name)


def shell_word(kind: str) -> str:
    return SHELL_WORDS.get(kind, kind)


def line_word(line: str) -> Text:
    """A nursery line (the order's ``row 2`` / ``column 3``) as words of the reader's language, to sit
    inside a sentence as one of its parameters."""
    kind, _, number = line.partition(" ")
    if kind == "row":
        # Translators: a row of the nursery, inside a sentence ("row 2 of the nursery holds no tile")
        return T_("row {n}", n=int(number))
    # Translators: a column of the nursery, inside a sentence
    return T_("column {n}", n=int(number))


def slot_word(row: int, column: int) -> Text:
    """One nursery slot (row and column from 1) as words of the reader's language."""
    # Translators: one slot of the nursery ("the tile from row 2 column 3")
    return T_("row {row} column {column}", row=row, column=column)
