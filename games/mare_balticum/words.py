"""Mare Balticum's own words inside sentences and tables, in the reader's language when shown.

Goods and seat colours are English ids in the state, the orders and the stored events; where a player
reads one it is a :func:`~pbem.core.i18n.P_` term (the glossary's word of their box, ``lazac`` for salmon),
still the English id to everything else. Lists are whole messages too (``{items} and {item}``), so a
language puts its own ``és``/``и``/``和`` between the words. Counts go beside a goods word as ``cod ×2``
so no language needs a noun's plural agreement with a number."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pbem.core.i18n import P_, T_, Text, listed, separated  # noqa: F401 (listed, separated: for the game's modules)

#: each goods kind's word (a term of data/glossary/)
GOODS_WORDS: dict[str, Text] = {
    "salmon": P_("goods", "salmon"),
    "flatfish": P_("goods", "flatfish"),
    "herring": P_("goods", "herring"),
    "cod": P_("goods", "cod"),
    "amber": P_("goods", "amber"),
}
#: each seat colour's word (data/components.yaml's colours; terms of data/glossary/)
COLOUR_WORDS: dict[str, Text] = {
    "red": P_("colour", "red"),
    "blue": P_("colour", "blue"),
    "green": P_("colour", "green"),
    "yellow": P_("colour", "yellow"),
    "black": P_("colour", "black"),
}


def goods(kind: str) -> str:
    """``kind`` as a term (an unknown id stays as it is: an old stored event, a bad order's word)."""
    return GOODS_WORDS.get(kind, kind)


def colour(name: str) -> str:
    return COLOUR_WORDS.get(name, name)


def goods_list(kinds: Iterable[str]) -> list[str]:
    return [goods(k) for k in kinds]


def counted(kind: str, n: int) -> Text:
    """``cod ×2``: a count beside a goods word, read alike in every language."""
    return T_("{goods} ×{n}", goods=goods(kind), n=n)


def counted_list(kinds: Iterable[str], order: Sequence[str]) -> str:
    """``salmon ×2 and amber ×1`` for a list of goods ids, kinds in ``order``."""
    kinds = list(kinds)
    return listed([counted(k, kinds.count(k)) for k in order if k in kinds])
