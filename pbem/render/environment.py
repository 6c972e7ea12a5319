"""The Jinja environment every report is rendered with.

Templates live in ``templates/`` at the top of the source tree; an installed wheel carries them as
``pbem/templates``. A game's templates are ``templates/<game name>/report.html.j2`` and
``report.txt.j2``, extending ``base.html.j2`` / ``base.txt.j2``; its table, ``table.html.j2`` and
``table.txt.j2``, rendered from the game's table inputs alone (:mod:`pbem.render.tables`); and the pieces
drawn once a process, macros of ``pieces.*.j2`` called through ``piece()`` (:func:`piece`).

The context of a report (what a template may use):

- ``game``: ``{id, title, type, turn}``
- ``seat``: the seat the report is for, or ``None`` for the public (observer) report
- ``colour``: that seat's piece colour (``view["colours"][seat]``), or ``None``
- ``view``: ``Game.view(state, seat)``: the only source of game facts
- ``events``: ``[{turn, text}]`` visible to the seat, since its last report
- ``caught_up``: ``[{turn, text}]`` visible to the seat, of the turns since its own last orders when a
  stand-in played for it (:mod:`pbem.storage.catching_up`); empty otherwise
- ``decision``: the seat's pending :class:`pbem.core.game.Decision`, or ``None``
- ``order_template``: the YAML to send next (envelope filled in), or ``None``
- ``deadline``: the next deadline as text with its time zone, or ``None``
- ``status_note``: a line from the host ("paused by the game master"), or ``None``
- ``assumed``: some of what the view shows was assumed, not recorded (a record's ``unknown``, filled at its
  import): what reveals hidden things says so
- ``outcome``: ``{reason, scores, places, ranking, tie_breaks}`` once the game is over, else ``None``
- ``language``: the reader's language code (``en``, ``hu``, ``cs``, ``zh``, ``ru``; for ``<html lang>``);
  every ``_()`` of the template answers in it
- ``table``: the table, rendered (:mod:`pbem.render.tables`): ``base.*.j2`` writes it in its place

A table's context is ``view`` (the game's table inputs) and ``language``; a piece's, its arguments.
"""

from __future__ import annotations

import pickle
import re
import unicodedata
from collections.abc import Iterable, Mapping, MutableMapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    pass_environment,
    pass_eval_context,
    select_autoescape,
)
from jinja2.filters import do_wordwrap
from jinja2.nodes import EvalContext
from markupsafe import Markup

from pbem.core import caches, forms, i18n
from pbem.render.jinja_context import EscapingCodeGenerator, QuickAttributes, QuickContext, escaped

#: the pbem package (an installed wheel carries the templates inside it)
_HERE = Path(__file__).resolve().parent.parent

#: more template folders, searched after the shipped ones: a game outside this source tree keeps its
#: ``<game name>/report.*.j2`` there (see :func:`add_template_dir`)
_extra_dirs: list[Path] = []


def add_template_dir(path: Path) -> None:
    """Search ``path`` for templates too (a game not shipped with pbem, such as the host's test game)."""
    resolved = Path(path).resolve()
    if resolved not in _extra_dirs:
        _extra_dirs.append(resolved)
        environment.cache_clear()
        caches.clear_all()  # tables and pieces drawn from the templates found before


def template_dirs() -> list[Path]:
    """The installed templates first if present, else the source tree's."""
    candidates = [_HERE / "templates", _HERE.parent / "templates"]
    found = [p for p in candidates if (p / "base.html.j2").is_file()]
    if not found:
        raise FileNotFoundError("report templates missing: looked in pbem/templates and templates/")
    return found[:1]


class _ReportEnvironment(QuickAttributes, Environment):
    """The reports' environment: autoescaped values written by :func:`pbem.render.jinja_context.escaped`
    (the same text), and a dict's items read as ``d.name`` without an exception first
    (:class:`QuickAttributes`)."""

    code_generator_class = EscapingCodeGenerator
    escaped = staticmethod(escaped)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as a plain dict of the environment's and its own, where Jinja's is a
        ``ChainMap`` over them: every report's context copies them (``dict(globals, **ctx)``) and
        takes their names (``set(globals)``), which a ChainMap answers in Python a key at a time
        (~10 us a page, each of a turn's ten). The same names and values: the environment's globals
        are all set in :func:`environment`, before any template loads, and never changed after; a
        template's own (``d``) still go to it alone."""
        return {**self.globals, **(d or {})}


@cache
def environment() -> Environment:
    env = _ReportEnvironment(
        loader=FileSystemLoader([str(p) for p in [*template_dirs(), *_extra_dirs]]),
        extensions=["jinja2.ext.i18n"],
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    # ``_``, ``gettext`` and ``ngettext`` answer in the current language (pbem.core.i18n.language), and fill
    # in Jinja's ``%(name)s`` placeholders themselves.
    env.install_gettext_callables(gettext=i18n.gettext, ngettext=i18n.plural, newstyle=True)
    # ... called directly: Jinja's own ``_`` looks ``gettext`` up in the context and calls it through
    # two more ``Context.call``s (3.4 µs a call, some 400 calls a Reef Encounter turn); these do what
    # jinja2.ext's newstyle callables do, with the evaluation context alone (0.9 µs)
    env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext)
    # every call a template makes goes through its context's ``call``: Jinja's, in fewer steps
    env.context_class = QuickContext
    # a view's words made by T_ in the engine (an end reason, say): ``{{ view.end_reason | translated }}``
    env.filters["translated"] = i18n._
    # a mapping's words each put in the reader's words once, for a table that shows each of them many
    # times: ``{% set words = view.words | translated_values %}`` then ``words[name]`` (a filter call
    # and a catalog look-up a word, 1.2 us, some 150 times in a Reef Encounter table)
    env.filters["translated_values"] = translated_values
    # one value of every cell of a board, row by row: ``b.rows | grid_items(1)`` (Jinja's
    # ``map("map", attribute=…) | map("list") | list`` did the same through two filters a cell, 39 us
    # a Reef Encounter board)
    env.filters["grid_items"] = grid_items
    # the counts of a mapping that are not zero, in a given order, each with its word:
    # ``counts | counted(view.colour_order, words) or _("none")`` (a macro's loop over five colours,
    # with an ``append`` call for each, cost some 10 us; some 30 of them a Reef Encounter turn)
    env.filters["counted"] = counted
    # words a sentence would otherwise join with English punctuation, joined as the reader's language
    # does (Chinese 、 and full-width ：（）): ``items | series``, ``label | labelled(value)``,
    # ``name | noted(note)``
    env.filters["series"] = series
    env.filters["labelled"] = labelled
    env.filters["noted"] = noted
    # a label and the space after it, none after a full-width colon (Chinese ``袋子：122``):
    # ``{{ _("Bag:") | spaced }}{{ bag }}``
    env.filters["spaced"] = spaced
    # how wide a text is in a fixed-width font: a Chinese character takes two columns
    env.filters["columns"] = columns
    # ``text | pad(28)``: ``text`` and spaces to fill 28 columns (``"%-28s"`` counts characters)
    env.filters["pad"] = pad
    # a board's one-character marks in the reader's letters: ``initials(_("G O P W Y"), colours)``
    env.globals["initials"] = initials
    # Jinja's wordwrap breaks at hyphens: a space id (``landsort-deep``), a tile (``white-yellow``) or a
    # game id would be cut in two across lines, and a reader (or a copy into orders) gets half of it
    env.filters["wordwrap"] = wordwrap
    # a piece of a report drawn once a process for its arguments (pbem.render.environment.piece)
    env.globals["piece"] = piece
    return env


@pass_environment
def wordwrap(
    env: Environment,
    text: str,
    width: int = 79,
    break_long_words: bool = True,
    wrapstring: str | None = None,
    break_on_hyphens: bool = False,
) -> str:
    """Jinja's ``wordwrap``, except that a word is not broken at its hyphens unless a template asks."""
    return do_wordwrap(env, text, width, break_long_words, wrapstring, break_on_hyphens)


def grid_items(grid: Iterable[Iterable[Any]], key: Any) -> list[list[Any]]:
    """``cell[key]`` of each cell of ``grid`` (rows of mappings or tuples), row by row."""
    return [[cell[key] for cell in row] for row in grid]


#: the shapes of a count beside its word (``counted``), each a message, so a language adds its
#: measure word (Chinese 灰 4 个)
# Translators: a count after its word in a list of counts ("grey 4, orange 3"); {word} a colour
COUNT_AFTER = i18n.N_("{word} {count}")
# Translators: a count before its word in a list of counts ("4 grey, 3 orange"); {word} a colour
COUNT_BEFORE = i18n.N_("{count} {word}")


def counted(
    counts: Mapping[str, Any], order: Iterable[str], words: Mapping[str, Any], shape: str = COUNT_BEFORE
) -> str:
    """Each ``counts[k]`` that is not zero, for ``k`` in ``order``, as ``shape`` (a message: the
    reader's language's shape) writes it with ``words[k]``, joined by the reader's list comma
    (``""`` when every one is zero)."""
    shape = i18n.gettext(shape)
    return list_comma().join(shape.format(count=counts[k], word=words[k]) for k in order if counts[k])


def list_comma() -> str:
    """The reader's comma between the items of a list: ", ", Chinese "、" (the ``{items}, {item}``
    message's own)."""
    return i18n._("{items}, {item}", items="", item="")


def series(items: Iterable[Any]) -> str:
    """``items`` (each shown in the reader's words) joined by the reader's list comma."""
    return list_comma().join(i18n._(item) if isinstance(item, i18n.Text) else str(item) for item in items)


def labelled(label: str, value: Any) -> str:
    """``label: value`` with the reader's colon (Chinese ``label：value``)."""
    # Translators: a label and its value in a report ("Bag: 122 polyps"); Chinese writes ：
    return i18n._("{label}: {value}", label=label, value=value)


def spaced(label: str) -> str:
    """``label`` and a space, unless it ends in full-width punctuation, which has its own room."""
    return label if label.endswith(FULL_WIDTH_STOPS) else f"{label} "


FULL_WIDTH_STOPS = ("：", "；", "，", "。", "、", "）")


def columns(text: str) -> int:
    """The columns ``text`` takes in a fixed-width font: two for a wide (East Asian) character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """``text`` and the spaces that make it ``width`` columns wide (none when it is wider)."""
    return text + " " * (width - columns(text))


def initials(marks: str, keys: Iterable[str]) -> dict[str, str]:
    """Each of ``keys`` and its mark: ``marks`` is a message of one mark a key, space-separated, in the
    keys' order (``G O P W Y``), so each language marks a board with its own words' initials. A
    translation with another number of marks gives each key its own first letter."""
    keys = list(keys)
    found = marks.split()
    if len(found) != len(keys) or len(set(found)) != len(found):
        found = [key[:1].upper() for key in keys]
    return dict(zip(keys, found, strict=True))


def noted(name: Any, note: Any) -> str:
    """``name (note)`` with the reader's brackets (Chinese ``name（note）``)."""
    # Translators: a word with a note after it in brackets ("alice (purple)"); Chinese writes （）
    return i18n._("{name} ({note})", name=name, note=note)


def translated_values(mapping: Mapping[str, Any], keys: Iterable[str] | None = None) -> dict[str, str]:
    """``mapping`` with each value (of ``keys`` only, when given) as the filter ``translated`` shows
    it, in the current language."""
    return {key: i18n._(mapping[key]) for key in (mapping if keys is None else keys)}


class _Said(NamedTuple):
    """One message in one language, as :func:`_gettext` needs it."""

    found: str  # the catalog's text
    safe: Markup | None  # ``Markup(found)`` when it has no ``%`` (what ``_()`` without values gives)
    named: bool  # every ``%`` a ``%%`` or a ``%(name)s`` (see :func:`_named_only`)
    declines: bool  # asks a term for a form: ``%(colour:gen)s`` (pbem.core.forms)


#: a language's messages as the reports' ``_()`` writes them, each looked up once: by the function
#: that translates (``i18n.gettext``, which a test may stand in for) and the language, each msgid's
#: :class:`_Said`. A Reef Encounter turn's reports call ``_()`` some 280 times for a few dozen
#: messages, and each look-up went through four Python calls (the language, its catalogs, babel's and
#: gettext's ``gettext``) and made a new ``Markup``. A cache of the registry (forgotten with the
#: catalogs), at most :data:`SAID_TABLES` languages of at most :data:`SAID_LIMIT` messages each.
SAID_LIMIT = 4096
SAID_TABLES = 32
_said = caches.named("report-messages", maxsize=SAID_TABLES)


def _learn(string: str) -> _Said:
    """``string``'s :class:`_Said` in the current language, looked up and kept."""
    lookup = i18n.gettext
    table = (lookup, i18n.current_language())
    said = _said.get(table)
    if said is None:
        said = _said[table] = {}
    found = lookup(string)
    entry = _Said(found, None if "%" in found else Markup(found), _named_only(found), forms.asks_forms(found))
    if len(said) >= SAID_LIMIT:
        del said[next(iter(said))]  # the oldest
    said[string] = entry
    return entry


@pass_eval_context
def _gettext(eval_ctx: EvalContext, string: str, /, **variables: Any) -> str:
    """jinja2.ext's newstyle ``gettext``: the message in the current language, escaped when the
    template is, and always a format string (``%%`` is ``%``)."""
    said = _said.get((i18n.gettext, i18n.current_language()))
    entry = said.get(string) if said is not None else None
    found, safe, named, declines = _learn(string) if entry is None else entry
    if declines:
        variables = forms.with_forms(i18n.current_language(), found, variables)
    if not variables and safe is not None:
        # what ``% {}`` would give (it changes only ``%%``), without markupsafe's formatting (4 us)
        return safe if eval_ctx.autoescape else found
    if eval_ctx.autoescape and named:
        # what ``Markup(found) % variables`` gives (each value escaped as markupsafe's %s does), in a
        # quarter of the time
        return Markup(found % {name: escaped(value) for name, value in variables.items()})
    return (Markup(found) if eval_ctx.autoescape else found) % variables


#: what may follow a % in a message :func:`_gettext` formats itself: ``%%`` or ``%(name)s``
_NAMED_S = re.compile(r"%%|%\([^()]*\)s")


@lru_cache(maxsize=4096)
def _named_only(message: str) -> bool:
    """Whether every ``%`` of ``message`` is part of a ``%%`` or a ``%(name)s`` (no ``%d``, ``%r``…,
    whose values markupsafe formats otherwise)."""
    return message.count("%") == sum(found.group().count("%") for found in _NAMED_S.finditer(message))


@pass_eval_context
def _ngettext(eval_ctx: EvalContext, singular: str, plural: str, num: int, /, **variables: Any) -> str:
    """jinja2.ext's newstyle ``ngettext`` (``num`` is a variable too unless given)."""
    variables.setdefault("num", num)
    found = i18n.plural(singular, plural, num)
    if forms.asks_forms(found):
        variables = forms.with_forms(i18n.current_language(), found, variables)
    return (Markup(found) if eval_ctx.autoescape else found) % variables


#: pieces (:func:`piece`) one process keeps: a board's spaces are ~6 KB; the shipped games need a few hundred
PIECES = 4096
caches.named("report-pieces", PIECES)
#: an argument of these exact types is compared as itself, not pickled: equal values of one of these
#: types print the same (not so a float: ``0.0 == -0.0``; nor a ``str`` subclass, a ``Text``, whose
#: words may be another message's)
_PLAIN = frozenset({str, int, bool, type(None)})


def piece(template: str, macro: str, /, *args: Any) -> str:
    """``macro`` of ``template`` (``{% macro %}``s of a template of pieces) called with ``args``, drawn
    once a process for each distinct ``args`` and reader's words, then taken from the cache.

    Private by construction: the macro is taken from the template's module made without any report's
    context (Jinja's ``Template.module``), so it reads its arguments, its template's constants and the
    environment's globals and nothing else, even through a ``@pass_context`` filter. One seat's hidden
    holdings can reach a piece only as an argument, and then its key differs from another seat's.

    The arguments are the key: as they are with their types when all are plain words and numbers
    (``True`` and ``1`` differ), else pickled (equal values pickled apart only cost a second drawing);
    arguments pickle refuses are drawn every time."""
    kinds = tuple(map(type, args))
    if _PLAIN.issuperset(kinds):
        key: tuple[Any, ...] = (template, macro, _words(), kinds, *args)
    else:
        try:
            key = (template, macro, _words(), pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:  # a value pickle refuses: drawn every time
            return _draw(template, macro, args)
    return caches.remembered("report-pieces", PIECES, key, lambda: _draw(template, macro, args))


def _draw(template: str, macro: str, args: tuple[Any, ...]) -> str:
    drawn: str = getattr(environment().get_template(template).module, macro)(*args)
    return drawn


def _words() -> tuple[Any, ...]:
    """Where a piece's words come from: the current language, and the functions that look its
    messages up (read when called, so catalogs stood in for them, as tests do, are other words)."""
    return (i18n.current_language(), i18n.gettext, i18n.pgettext, i18n.plural)
