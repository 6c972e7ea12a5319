"""Coral Divers' own words inside sentences and tables, in the reader's language when shown.

Coral kinds, seat colours and shell kinds are English ids in the state, the orders and the stored
events; where a player reads one it is a :func:`~pbem.i18n.P_` term (the glossary's word: *мозговой
коралл* for brain), still the English id to everything else. Lists are whole messages (``{items} and
{item}``), and a count stands beside its label (``tiles: 3``), so no language needs an English plural."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.i18n import P_, T_, Text

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


def listed(items: Sequence[str]) -> str:
    """``a, b and c`` as whole messages (``{items}, {item}`` and ``{items} and {item}``)."""
    if not items:
        return ""
    head: str = items[0]
    for item in items[1:-1]:
        head = T_("{items}, {item}", items=head, item=item)
    return head if len(items) == 1 else T_("{items} and {item}", items=head, item=items[-1])


def separated(clauses: Sequence[str]) -> str:
    """Clauses one after another (``a; b``), each pair a message (``{items}; {item}``)."""
    if not clauses:
        return ""
    head: str = clauses[0]
    for clause in clauses[1:]:
        head = T_("{items}; {item}", items=head, item=clause)
    return head
