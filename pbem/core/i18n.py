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

Catalogs: one gettext catalog set per package, Babel-extracted (``make i18n``): the host's
``pbem/locale/<lang>/LC_MESSAGES/pbem.po`` (Python of ``pbem/`` and the shared ``templates/base.*``),
and each game's ``games/<g>/locale/<lang>/LC_MESSAGES/<g>.po`` (its Python and its own template folder,
so a game's words and its glossary travel with the game). The compiled ``.mo`` files are committed
beside them (a test checks they match the ``.po``), so a wheel and a checkout both carry them; a
catalog with no ``.mo`` is compiled from its ``.po`` when first loaded.

A translation whose placeholders are not the original's (``{turn}``, ``%(turn)s``) is dropped when its
catalog loads, so the reader gets the English text rather than a crash. A translation may ask a game's
term for the case and gender its sentence needs (``{colour:gen}``, ``%(colour:f.acc)s``): see
:mod:`pbem.core.forms`; counts meet nouns only through plural entries (:func:`ngettext`, :func:`TN_`).
"""

from __future__ import annotations

import io
import logging
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, tzinfo
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_time
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.support import Translations

from pbem.core import caches, forms
from pbem.core.clock import utc

log = logging.getLogger(__name__)

#: the languages a player may read, English first (the catalogs' source language)
LANGUAGES: tuple[str, ...] = ("en", "hu", "cs", "zh", "ru")
DEFAULT_LANGUAGE = "en"
#: each language's name in itself, for help texts and the ``language:`` mail command's answer
NAMES: dict[str, str] = {"en": "English", "hu": "magyar", "cs": "čeština", "zh": "中文", "ru": "русский"}
#: Babel's locale for each language (Chinese is Simplified)
BABEL_LOCALES: dict[str, str] = {"en": "en", "hu": "hu", "cs": "cs", "zh": "zh_Hans_CN", "ru": "ru"}
#: the host's catalog folder and domain
HOST_LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
HOST_DOMAIN = "pbem"

_current: ContextVar[str] = ContextVar("pbem_language", default=DEFAULT_LANGUAGE)


class UnknownLanguage(ValueError):
    """A language code that is not one of :data:`LANGUAGES`; the message says which are."""

    def __init__(self, code: object) -> None:
        super().__init__(f"unknown language {code!r}: use one of {', '.join(LANGUAGES)}")
        self.code = code


def check_language(code: str) -> str:
    """``code`` normalised (``HU`` → ``hu``, ``zh-CN`` → ``zh``), or :class:`UnknownLanguage`."""
    norm = str(code).strip().lower().replace("_", "-")
    if norm not in LANGUAGES:
        norm = norm.split("-", 1)[0]
    if norm not in LANGUAGES:
        raise UnknownLanguage(code)
    return norm


#: the current language: the context variable's own ``get`` (its default is English), called as a
#: function of no arguments; every ``_()`` and every cached fragment asks it (some 550 times a Reef
#: Encounter turn's reports), and a Python function around it was a frame more each time
current_language: Callable[[], str] = _current.get


@contextmanager
def language(code: str | None) -> Iterator[str]:
    """Within the block, :func:`_` answers in ``code`` (``None`` or ``""``: English)."""
    code = code or DEFAULT_LANGUAGE
    if code not in LANGUAGES:
        raise UnknownLanguage(code)
    token = _current.set(code)
    try:
        yield code
    finally:
        _current.reset(token)


# ------------------------------------------------------------------------------------------- catalogs

_BRACE = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:[!:][^{}]*)?\}")
# a translation may ask a term for a form (``%(colour:gen)s``, see pbem.core.forms): the same placeholder
_PERCENT = re.compile(r"%\(([A-Za-z_][A-Za-z0-9_]*)(?::[a-z.]+)?\)[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc]")


def placeholders(text: str) -> frozenset[str]:
    """The named placeholders of ``text``: ``{name}`` (Python code) and ``%(name)s`` (templates).

    >>> sorted(placeholders("Turn {turn}: %(seat)s, {{literal}}"))
    ['%(seat)s', '{turn}']
    """
    braces = {f"{{{m}}}" for m in _BRACE.findall(text.replace("{{", "").replace("}}", ""))}
    return frozenset(braces | {f"%({m})s" for m in _PERCENT.findall(text)})


#: where catalogs beyond the host's come from: :mod:`pbem.core.registry` adds the registered games'
#: (a hook, because the registry sits above this module: it imports the game contract, which speaks
#: through these catalogs)
_catalog_sources: list[Callable[[], Iterable[tuple[Path, str]]]] = []


def add_catalog_source(source: Callable[[], Iterable[tuple[Path, str]]]) -> None:
    """Read catalogs from the (locale folder, domain) pairs ``source()`` names, after the host's."""
    if source not in _catalog_sources:
        _catalog_sources.append(source)
        reload()


def catalog_dirs() -> list[tuple[Path, str]]:
    """(locale folder, domain) of the host and of every registered game that ships catalogs."""
    found = [(HOST_LOCALE_DIR, HOST_DOMAIN)]
    for source in _catalog_sources:
        found.extend(entry for entry in source() if entry not in found)
    return found


def _load(folder: Path, domain: str, code: str) -> Translations | None:
    """One catalog: its ``.mo``, or its ``.po`` compiled in memory when no ``.mo`` is there."""
    base = folder / code / "LC_MESSAGES" / domain
    mo, po = base.with_suffix(".mo"), base.with_suffix(".po")
    if mo.is_file():
        data = mo.read_bytes()
    elif po.is_file():
        data = compile_po(po)
    else:
        return None
    translations = Translations(io.BytesIO(data), domain=domain)
    _drop_unsafe(translations, f"{base}")
    return translations


def compile_po(po: Path) -> bytes:
    """The ``.mo`` bytes of ``po``, fuzzy entries left out (as ``pybabel compile`` does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


#: the count's own placeholders, filled in by :func:`ngettext` (``{n}``) and Jinja's ``ngettext`` (``num``)
COUNT_PLACEHOLDERS = frozenset({"{n}", "%(num)s"})


def _drop_unsafe(translations: Translations, where: str) -> None:
    """Remove every translation that names a placeholder its original does not have, or is empty."""
    catalog: dict[Any, str] = translations._catalog  # type: ignore[attr-defined]
    originals: dict[str, frozenset[str]] = {}
    for key in list(catalog):
        if key == "":
            continue  # the header
        msgid = key[0] if isinstance(key, tuple) else key
        allowed = originals.setdefault(msgid, placeholders(msgid))
        if isinstance(key, tuple):
            # a plural form is keyed by the singular alone ("the last step"), and any form may name the
            # count, which ngettext always fills in ("the last {n} steps"; Jinja's ``%(num)s``)
            allowed = allowed | COUNT_PLACEHOLDERS
        if not catalog[key] or not placeholders(catalog[key]) <= allowed:
            log.warning("%s: translation of %r dropped: its placeholders differ", where, msgid)
            del catalog[key]


@cache
def _translations(code: str) -> Translations | None:
    """The catalogs of ``code``, the host's and every registered game's merged; English needs none."""
    if code == DEFAULT_LANGUAGE:
        return None
    merged: Translations | None = None
    for folder, domain in catalog_dirs():
        loaded = _load(folder, domain, code)
        if loaded is None:
            continue
        if merged is None:
            merged = loaded
        else:
            merged.merge(loaded)
    return merged


def reload() -> None:
    """Forget the loaded catalogs (after ``make i18n``, or a game registered later), and every cache
    of the process (:mod:`pbem.core.caches`): much of what they keep is in the old catalogs' words."""
    _translations.cache_clear()
    caches.clear_all()


# ------------------------------------------------------------------------------------------- messages


def gettext(message: str, /) -> str:
    """``message`` in the current language, as it stands (no placeholders filled)."""
    catalog = _translations(current_language())
    return catalog.gettext(message) if catalog is not None else message


def pgettext(context: str, message: str, /) -> str:
    """``message`` of ``context`` (a game's term: ``colour``, ``goods``) in the current language."""
    catalog = _translations(current_language())
    return catalog.pgettext(context, message) if catalog is not None else message


def plural(singular: str, plural_form: str, n: int, /) -> str:
    """The form of ``singular``/``plural_form`` for ``n`` in the current language, unfilled."""
    catalog = _translations(current_language())
    if catalog is not None:
        return catalog.ngettext(singular, plural_form, n)
    return singular if n == 1 else plural_form


def _fill(text: str, original: str, params: dict[str, Any]) -> str:
    try:
        if forms.asks_forms(text):  # a term asked for its case: {colour:gen} (pbem.core.forms)
            return forms.format_with_forms(current_language(), text, params)
        return text.format(**params)
    except (KeyError, IndexError, ValueError):  # a translation that slipped past the load-time check
        return original.format(**params)


class Text(str):
    """An English text that remembers its message and parameters (made by :func:`T_`), so the words
    can be put in any reader's language later: ``_(text)`` translates it. Everywhere else it is the
    plain English string (compared, joined, hashed, dumped to JSON as that)."""

    msgid: str
    params: dict[str, Any]
    context: str | None

    def __new__(cls, msgid: str, params: dict[str, Any] | None = None, context: str | None = None) -> Text:
        params = dict(params or {})
        english = _english_form(msgid, params)
        obj = super().__new__(cls, _fill(english, english, params) if params else english)
        obj.msgid = msgid
        obj.params = params
        obj.context = context
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Text, (self.msgid, self.params, self.context))


#: between the singular and the plural of a counted message (see :func:`TN_`), so a stored event keeps
#: both forms in its one ``msgid``: ASCII's unit separator, which no message writes and every store
#: keeps (gettext's own NUL is refused by PostgreSQL's text and JSON columns)
PLURAL_SEPARATOR = "\x1f"


def _english_form(msgid: str, params: dict[str, Any]) -> str:
    # a counted message (TN_) in English: the singular for n == 1, else the plural
    if PLURAL_SEPARATOR not in msgid:
        return msgid
    singular, plural_form = msgid.split(PLURAL_SEPARATOR, 1)
    return singular if params.get("n") == 1 else plural_form


def TN_(singular: str, plural_form: str, n: int, /, **params: Any) -> Text:
    """A counted message for later (an event, a clause of one): :func:`T_` with gettext's plural forms,
    ``{n}`` being the count. The English is the singular or the plural now; when shown, the reader's
    language picks its own form for ``n`` (Czech and Russian have three), so a stored event keeps both
    forms and the count, not one English form: ``TN_("{n} polyp", "{n} polyps", 3)``. Inside a
    sentence it is a clause like any other Text: ``T_("{seat} took {polyps}", polyps=TN_(…))``."""
    if PLURAL_SEPARATOR in singular or PLURAL_SEPARATOR in plural_form:
        raise ValueError("a counted message's forms may not contain the plural separator")
    return Text(singular + PLURAL_SEPARATOR + plural_form, {**params, "n": n})


def T_(message: str, /, **params: Any) -> Text:
    """Marks ``message`` for the catalogs and keeps ``params``: the English text now, any language
    when shown (``_(text)``). For what an engine says without knowing its reader (a rules error, an
    event): ``T_("you have no {colour} larva cube behind your screen", colour=colour)``."""
    return Text(message, params)


def P_(context: str, message: str, /) -> Text:
    """A game's own word (a colour, goods, a kind of coral) as a message of ``context``, shown in the
    reader's language: ``P_("colour", "orange")``. The context keeps one English word apart from its
    namesakes (the colour orange, the fruit), and the catalog's entry for it is the glossary's word
    (``games/<g>/data/glossary/<lang>.yaml``: the word of the player's own rulebook). Passed as a
    parameter of a :func:`T_` sentence it is translated with that sentence; on its own it is the
    English word, so orders, ids and hashes never see the difference."""
    return Text(message, None, context)


def join_texts(parts: Sequence[str], separator: str = ", ") -> Text:
    """``separator.join(parts)`` in English, but each part that is a :class:`Text` stays a message, so
    a list of clauses inside a sentence is translated clause by clause when shown. The joined message
    itself is only placeholders and separators: no catalog holds it, so it is shown as it stands."""
    msgid = separator.replace("{", "{{").replace("}", "}}").join(f"{{p{n}}}" for n in range(len(parts)))
    return Text(msgid, {f"p{n}": part for n, part in enumerate(parts)})


def listed(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: a list joined when it is shown, by CLDR's list patterns
    (:func:`babel.lists.format_list`, style ``standard``) in the reader's language, its items each in
    that language too. Until then a :class:`Text` whose English is the list in British style."""
    if len(items) < 2:
        return items[0] if items else ""
    last = len(items) - 1
    msgid = ", ".join(f"{{p{n}}}" for n in range(last)) + f" and {{p{last}}}"
    return Text(msgid, {f"p{n}": item for n, item in enumerate(items)}, LIST_CONTEXT)


#: the context that marks a :class:`Text` as a list of :func:`listed` (no catalog holds it)
LIST_CONTEXT = "pbem:list"
#: the locale whose list patterns each language's lists take: the host writes British English ("colour"),
#: whose lists have no comma before "and"; the others are :data:`BABEL_LOCALES`'
LIST_LOCALES: dict[str, str] = {**BABEL_LOCALES, "en": "en_GB"}


@cache
def _list_locale(code: str) -> Locale:
    return Locale.parse(LIST_LOCALES[code])


def _joined(items: dict[str, Any]) -> str:
    parts = [items[f"p{n}"] for n in range(len(items))]
    words = [_(part) if isinstance(part, Text) else str(part) for part in parts]
    return format_list(words, style="standard", locale=_list_locale(current_language()))


def series(items: Sequence[str]) -> str:
    """``a, b, c`` with no "and": a run of counts or spaces, each comma the ``{items}, {item}`` message,
    so a language writes its own list comma (Chinese 、). Not CLDR's: it has no list without a
    conjunction in all five languages (its ``unit`` lists are for measures: Russian writes them without
    commas, Chinese runs them together, Hungarian puts "és" before the last)."""
    if not items:
        return ""
    head: str = items[0]
    for item in items[1:]:
        # Translators: a list going on ("A1, B2" + ", C3"); {items} is the list so far
        head = T_("{items}, {item}", items=head, item=item)
    return head


def separated(clauses: Sequence[str]) -> str:
    """Clauses one after another (``a; b; c``), each pair a message (``{items}; {item}``)."""
    if not clauses:
        return ""
    head: str = clauses[0]
    for clause in clauses[1:]:
        head = T_("{items}; {item}", items=head, item=clause)
    return head


def _(message: str, /, **params: Any) -> str:
    """``message`` in the current language, its ``{name}`` placeholders filled from ``params``.

    Python code writes ``{name}`` placeholders; templates use Jinja's own ``%(name)s`` (its ``_()``
    and ``{% trans %}`` fill them in). A :class:`Text` brings its own message and parameters."""
    if isinstance(message, Text):
        if message.context is not None:
            if message.context == LIST_CONTEXT:
                return _joined(message.params)
            return pgettext(message.context, message.msgid)
        if PLURAL_SEPARATOR in message.msgid:
            return _counted(message.msgid, {**message.params, **params})
        return _(message.msgid, **{**message.params, **params})
    # a clause made by T_ and passed as a parameter (an event inside an event) is put in the same
    # language as the sentence around it, not left in its English words
    params = {k: _(v) if isinstance(v, Text) else v for k, v in params.items()}
    text = gettext(message)
    return _fill(text, message, params) if params else text


def _counted(msgid: str, params: dict[str, Any]) -> str:
    # a TN_ message: the reader's form for its count, its clauses in the same language
    singular, plural_form = msgid.split(PLURAL_SEPARATOR, 1)
    params = {k: _(v) if isinstance(v, Text) else v for k, v in params.items()}
    n = params.get("n")
    if not isinstance(n, int):  # a stored count that is not one: the English plural, filled
        return _fill(plural_form, plural_form, params)
    return ngettext(singular, plural_form, n, **params)


def ngettext(singular: str, plural_form: str, n: int, /, **params: Any) -> str:
    """The singular or plural form for ``n`` in the current language; ``{n}`` is filled in too."""
    original = singular if n == 1 else plural_form
    return _fill(plural(singular, plural_form, n), original, {"n": n, **params})


def comment(
    message: str, /, *, lead: str = "# ", follow: str | None = None, width: int = 76, **params: Any
) -> list[str]:
    """``message`` in the current language as comment lines of an order template: wrapped to
    ``width``, the first line led by ``lead``, the others by ``follow`` (default: ``lead``). One
    message per sentence, so a translator sees it whole (CJK text, without spaces, stays one line).
    A counted sentence is a :func:`TN_` (``comment(TN_("{n} polyp goes", "{n} polyps go", n))``)."""
    text = _(message, **params) if params or isinstance(message, Text) else gettext(message)
    follow = lead if follow is None else follow
    lines = _wrapped(text, width - len(lead))
    return [lead + lines[0], *(follow + line for line in lines[1:])]


@lru_cache(maxsize=2048)
def _wrapped(text: str, width: int) -> tuple[str, ...]:
    """``text`` wrapped to ``width`` (at least one line): a pure function of the two, and the same
    sentences (in each language, with the same small numbers) end every order template of every game,
    where textwrap took 8 us a sentence."""
    return tuple(textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)) or ("",)


def N_(message: str, /) -> str:
    """Marks ``message`` for the catalogs without translating it now (see the module's docstring)."""
    return message


# Translators: the end of a list ("ann, bob and cy"), in the events of games stored before lists were
# joined by CLDR's patterns (listed); {items} is the list before the last item
N_("{items} and {item}")


# -------------------------------------------------------------------------------------------- formats


def babel_locale(code: str | None = None) -> Locale:
    """Babel's locale of ``code`` (default: the current language)."""
    return Locale.parse(BABEL_LOCALES[code or current_language()])


def format_number(value: float | int) -> str:
    """``1,234`` / ``1 234`` / ``1 234``: a number as the current language writes it."""
    return format_decimal(value, locale=babel_locale())


def format_deadline(moment: datetime | None, tz: str | tzinfo | None = None) -> str | None:
    """A deadline in the current language's date and time, in ``tz`` (default UTC), naming its zone
    (and UTC beside another zone's time, as :func:`pbem.cron.deadlines.show_deadline` does).

    >>> format_deadline(datetime(2026, 11, 30, 18, 0, tzinfo=UTC))
    'Nov 30, 2026 18:00 UTC'
    >>> with language("hu"):
    ...     format_deadline(datetime(2026, 11, 30, 18, 0, tzinfo=UTC), "Europe/Budapest")
    '2026. nov. 30. 19:00 CET (18:00 UTC)'
    """
    if moment is None:
        return None
    zone = ZoneInfo(tz) if isinstance(tz, str) else tz or UTC
    at_utc = utc(moment)
    local = at_utc.astimezone(zone)
    loc = babel_locale()
    shown = f"{format_date(local, 'medium', locale=loc)} {format_time(local, 'HH:mm', locale=loc)}"
    if local.utcoffset() == at_utc.utcoffset() and getattr(zone, "key", "UTC") in _UTC_NAMES:
        return f"{shown} UTC"
    in_utc = format_time(at_utc, "HH:mm", locale=loc)
    if at_utc.date() != local.date():  # the UTC time of another day says which day
        in_utc = f"{format_date(at_utc, 'medium', locale=loc)} {in_utc}"
    return f"{shown} {local.tzname()} ({in_utc} UTC)"


_UTC_NAMES = ("UTC", "Etc/UTC", "Etc/GMT", "GMT")
