"""The words a player reads, in the player's language.

Every text a player reads is a gettext message: Python code writes ``_("Your orders for turn {turn}
were accepted.", turn=12)``, a template writes ``{{ _("Scores") }}`` or ``{% trans %}…{% endtrans %}``.
Which language ``_`` answers in is the *current language*, set around the work done for one reader::

    with language("hu"):
        body = render_report(...)

so the code that builds a message never passes a language along; the code that knows the reader (a
seat's report, a reply to a mail) sets it once. Outside any ``language(...)`` block the language is
English, the source language of every catalog.

A message whose words must wait for the reader (a rules error raised by an engine, a notice stored
with a game) is marked with :func:`N_` where it is written and translated with :func:`_` where it is
shown, so extraction finds it and the reader still gets their own language.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

#: the languages a player may read, English first (the catalogs' source language)
LANGUAGES: tuple[str, ...] = ("en", "hu", "cs", "zh", "ru")
DEFAULT_LANGUAGE = "en"

_current: ContextVar[str] = ContextVar("pbem_language", default=DEFAULT_LANGUAGE)


def current_language() -> str:
    return _current.get()


@contextmanager
def language(code: str | None) -> Iterator[str]:
    """Within the block, :func:`_` answers in ``code`` (``None``: English)."""
    code = code or DEFAULT_LANGUAGE
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}: one of {', '.join(LANGUAGES)}")
    token = _current.set(code)
    try:
        yield code
    finally:
        _current.reset(token)


def _translations(code: str) -> Any:
    """The catalogs of ``code`` (host and games merged); English needs none."""
    return None


def gettext(message: str, /) -> str:
    """``message`` in the current language, as it stands (no placeholders filled)."""
    catalog = _translations(current_language())
    return catalog.gettext(message) if catalog is not None else message


def plural(singular: str, plural_form: str, n: int, /) -> str:
    """The form of ``singular``/``plural_form`` for ``n`` in the current language, unfilled."""
    catalog = _translations(current_language())
    if catalog is not None:
        return catalog.ngettext(singular, plural_form, n)
    return singular if n == 1 else plural_form


def _(message: str, /, **params: Any) -> str:
    """``message`` in the current language, its ``{name}`` placeholders filled from ``params``.

    Python code writes ``{name}`` placeholders; templates use Jinja's own ``%(name)s`` (its ``_()``
    and ``{% trans %}`` fill them in)."""
    text = gettext(message)
    return text.format(**params) if params else text


def ngettext(singular: str, plural_form: str, n: int, /, **params: Any) -> str:
    """The singular or plural form for ``n`` in the current language; ``{n}`` is filled in too."""
    return plural(singular, plural_form, n).format(n=n, **params)


def N_(message: str, /) -> str:
    """Marks ``message`` for the catalogs without translating it now (see the module's docstring)."""
    return message
