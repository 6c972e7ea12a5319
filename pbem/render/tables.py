"""A report, and the table in it that the seats of a turn share, each rendered from what it may read.

A game's report (``templates/<game>/report.<format>.j2``, extending ``base.<format>.j2``) is the
seat's page: its events, its ``own`` block (what only the seat sees), what it must send. The table in
it (the boards, the open sea, the players) is a template of its own, ``templates/<game>/table.<format>.j2``,
rendered from the game's :meth:`pbem.core.game.Game.table_inputs` of the seat's view and nothing else:
its context holds those inputs (as ``view``) and the reader's language, besides the environment's
globals. So a table cannot read a seat's hidden holdings that the game did not hand it, not even
through a filter or global that takes the whole context (``@pass_context``): there is nothing else
there. The page is given the table as a finished string (``table``), which ``base.*.j2`` writes where
the table goes.

A table is kept (a cache of :mod:`pbem.core.caches`) by what it was rendered from: the game, the format,
the reader's words, and the inputs (pickled: exact about types, as ``True`` and ``1`` print differently;
equal values pickled apart, in another dict order, only cost a second rendering). Every seat of a turn
whose inputs are equal is handed one rendering; a seat whose inputs differ gets its own.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any

from jinja2 import Template, TemplateNotFound
from markupsafe import Markup

from pbem.core import caches, registry
from pbem.core.game import Game
from pbem.core.i18n import current_language
from pbem.render.environment import _words, environment

FORMATS = ("html", "txt")
#: where a report page holds its table: (start, end) character offsets in the page, ``page[start:end]``
TableAt = tuple[int, int]
#: tables one process keeps (a Reef Encounter table is ~60 KB; a turn has a few distinct ones a language)
TABLES = 64
caches.named("report-tables", TABLES)

#: for a game that ships no templates of its own: its view, as JSON, in the shared frame
_GENERIC_REPORT = {"txt": '{% extends "base.txt.j2" %}', "html": '{% extends "base.html.j2" %}'}
_GENERIC_TABLE = {
    "txt": "{{ view | tojson(indent=1) }}\n",
    "html": '<pre class="orders">{{ view | tojson(indent=1) }}</pre>',
}


def _template(game_name: str, fmt: str, kind: str) -> Template:
    name = f"{game_name}/{kind}.{fmt}.j2"
    try:
        return environment().get_template(name)
    except TemplateNotFound as exc:
        if exc.name != name:
            raise  # the game's template exists but includes something missing: a bug to show
        return environment().from_string((_GENERIC_REPORT if kind == "report" else _GENERIC_TABLE)[fmt])


def table_key(game: Game, view: Mapping[str, Any]) -> tuple[Mapping[str, Any], bytes | None]:
    """The inputs of ``view``'s table, and their key (``None``: they cannot be pickled, so they are
    rendered every time and shared with nobody)."""
    inputs = game.table_inputs(view)
    try:
        return inputs, pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return inputs, None


def table(
    game: Game, fmt: str, view: Mapping[str, Any], key: tuple[Mapping[str, Any], bytes | None] | None = None
) -> str:
    """The shared table of ``view`` in format ``fmt``, rendered once for its inputs in the reader's
    words. ``key``: :func:`table_key` of ``view``, when the caller has it already (one serves both
    formats)."""
    inputs, pickled = table_key(game, view) if key is None else key
    if pickled is None:
        return _render_table(game.name, fmt, inputs)
    found = (game.name, fmt, _words(), pickled)
    return caches.remembered("report-tables", TABLES, found, lambda: _render_table(game.name, fmt, inputs))


def _render_table(game_name: str, fmt: str, inputs: Mapping[str, Any]) -> str:
    # the inputs, the language and the environment's globals: nothing else is there to be read
    text = _template(game_name, fmt, "table").render({"view": inputs, "language": current_language()})
    return Markup(text) if fmt == "html" else text


def table_at_text(table_at: TableAt | None) -> str | None:
    """How a report row keeps where its page holds its table (``ReportRow.table_at``): ``"start:end"``,
    character offsets in the page; ``None``: not known."""
    return None if table_at is None else f"{table_at[0]}:{table_at[1]}"


def table_slice(table_at: str | None) -> slice | None:
    """The slice of its page a report row's ``table_at`` (:func:`table_at_text`) names; ``None`` when
    the row has none (written before it was kept) or it is not two offsets in order."""
    start, colon, end = (table_at or "").partition(":")
    if not (colon and start.isdigit() and end.isdigit()) or int(start) > int(end):
        return None
    return slice(int(start), int(end))


def render(game: Game | str, fmt: str, context: dict[str, Any]) -> str:
    """``templates/<game>/report.<fmt>.j2`` (fmt: ``html`` or ``txt``) of ``context``, its table
    rendered from the view's table inputs (:func:`table`) unless ``context`` has it already; a game
    without templates gets its view printed plainly in the shared frame."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}")
    if isinstance(game, str):
        game = registry.get_game(game)
    if "table" not in context:
        context = {**context, "table": table(game, fmt, context["view"])}
    return _template(game.name, fmt, "report").render(context)


def render_pair(game: Game, context: dict[str, Any]) -> tuple[str, str]:
    """(plain text, HTML) of ``context``: the table's inputs are taken and pickled once for both."""
    text, page, _table_at = render_located(game, context)
    return text, page


def render_located(game: Game, context: dict[str, Any]) -> tuple[str, str, TableAt | None]:
    """:func:`render_pair`, and where the page holds its table (:data:`TableAt`), for the mail to make
    the table mail once for every seat that shares it (:func:`pbem.render.mail_html.mail_page`)."""
    key = table_key(game, context["view"])
    text = _template(game.name, "txt", "report").render(
        {**context, "table": table(game, "txt", context["view"], key)}
    )
    shared = table(game, "html", context["view"], key)
    template = _template(game.name, "html", "report")
    # the page in the pieces the template writes: the table is one of them (``{{ table }}`` in
    # base.html.j2), so where it starts is the length of those before it; "".join of the pieces is what
    # ``render`` returns
    pieces = list(template.generate({**context, "table": shared}))
    page = "".join(pieces)
    if pieces.count(shared) != 1:  # (compared by length first: a look at each piece, in C)
        return text, page, None  # not written, or some other piece reads the same: not told apart
    at = pieces.index(shared)
    start = sum(map(len, pieces[:at]))
    return text, page, (start, start + len(shared))
