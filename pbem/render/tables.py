"""The table of a turn's reports, rendered once for every seat that sees the same table.

A game's ``report.html.j2`` and ``report.txt.j2`` fill the ``table`` block (the boards, the open sea,
the players) and the ``own`` block (what only the seat sees). Most of a report's rendering is the
table, and the seats of a turn mostly see the same one, so :class:`TableCache` renders each distinct
table once and hands the string to the other reports in its place.

Which seats see the same table is read from the template, not assumed: the table block, the top-level
code and every macro of the game's template are parsed, and the table's key is every context value they
read (``view`` only by the keys they name, when they name them). A seat's view that differs in a key the
table reads (Mare Balticum shows a seat its own warehouse in the players' table) gets a table of its
own, so nothing hidden from one seat reaches another's report. Anything the analysis cannot follow
(``super()``, ``self``, an ``include``, ``view`` passed whole) makes the key the whole context.

The rendering itself is Jinja's own (``Template.new_context`` and ``root_render_func``, as
``Template.render`` does); only the table block's function is swapped for one that yields the stored
string, so a report is byte-for-byte what it would be rendered whole.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jinja2 import Template, nodes
from jinja2.runtime import Context

from pbem.core.i18n import current_language
from pbem.render.environment import _template, environment

_BLOCK = "table"
#: numbers for keys that match nothing else (an id() could be reused once its context is freed)
_UNSHARED = itertools.count()
#: names whose use the analysis cannot follow: the key is then the whole context
_OPAQUE = {"self", "super", "caller", "varargs", "kwargs"}


@dataclass(frozen=True)
class _Reads:
    """What the table reads: context names, and the view's keys (``None``: the whole view)."""

    names: frozenset[str]
    view_keys: frozenset[str] | None
    everything: bool = False
    #: ``names`` but ``view``, and ``view_keys``, in order: a key lists them so (sorted once here, not
    #: for each reader's key)
    ordered_names: tuple[str, ...] = field(init=False)
    ordered_view_keys: tuple[str, ...] | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ordered_names", tuple(sorted(self.names - {"view"})))
        keys = None if self.view_keys is None else tuple(sorted(self.view_keys))
        object.__setattr__(self, "ordered_view_keys", keys)


def _analyse(tree: nodes.Template) -> _Reads:
    names: set[str] = set()
    view_keys: set[str] | None = set()
    everything = False

    def visit(node: nodes.Node, local: frozenset[str]) -> None:
        nonlocal view_keys, everything
        if isinstance(node, nodes.Block) and node.name != _BLOCK:
            return  # rendered elsewhere in the page; its assignments do not reach the table
        if isinstance(node, nodes.Include | nodes.Import | nodes.FromImport):
            everything = True
            return
        if isinstance(node, nodes.Macro):
            local = local | {a.name for a in node.args}
        if isinstance(node, nodes.Getattr | nodes.Getitem) and _is_view(node.node, local):
            key = node.attr if isinstance(node, nodes.Getattr) else _const(node.arg)
            if key is None:
                view_keys = None
            elif view_keys is not None:
                view_keys.add(key)
            names.add("view")
            if isinstance(node, nodes.Getitem):
                visit(node.arg, local)
            return
        if isinstance(node, nodes.Name) and node.ctx == "load" and node.name not in local:
            if node.name in _OPAQUE:
                everything = True
            names.add(node.name)
            if node.name == "view":
                view_keys = None  # the view used whole (passed on, filtered, printed)
        for child in node.iter_child_nodes():
            visit(child, local)

    visit(tree, frozenset())
    return _Reads(frozenset(names), None if view_keys is None else frozenset(view_keys), everything)


def _is_view(node: nodes.Node, local: frozenset[str]) -> bool:
    return isinstance(node, nodes.Name) and node.name == "view" and "view" not in local


def _const(node: nodes.Node) -> str | None:
    return node.value if isinstance(node, nodes.Const) and isinstance(node.value, str) else None


@cache
def _reads(game_name: str, fmt: str = "html") -> _Reads:
    template = _template(game_name, fmt)
    if template.filename is None:  # the generic template of a game with none of its own: a string
        return _Reads(frozenset(), None, everything=True)
    env = environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, template.name or "")
    return _analyse(env.parse(source))


@cache
def _reads_both(game_name: str) -> _Reads:
    """What the table of either format reads: one key serves both of a reader's tables."""
    html, txt = _reads(game_name, "html"), _reads(game_name, "txt")
    keys = None if html.view_keys is None or txt.view_keys is None else html.view_keys | txt.view_keys
    return _Reads(html.names | txt.names, keys, html.everything or txt.everything)


def table_key(game_name: str, ctx: dict[str, Any], fmt: str | None = None) -> bytes:
    """Equal for two report contexts only when the table block reads the same values in both (of
    format ``fmt``; ``None``: of either format, so one key serves a reader's text and HTML tables).

    The values are pickled: that is exact about types (``True`` and ``1`` differ, as they print
    differently) and five times cheaper than JSON. Equal values pickled apart (another dict order, a
    shared object) only cost a second rendering; a context that cannot be pickled shares nothing."""
    reads = _reads_both(game_name) if fmt is None else _reads(game_name, fmt)
    if reads.everything:
        picked: dict[str, Any] = dict(ctx)
    else:
        picked = {name: ctx[name] for name in reads.ordered_names if name in ctx}
        if "view" in reads.names:
            view = ctx.get("view")
            if reads.ordered_view_keys is None or not isinstance(view, dict):
                picked["view"] = view
            else:
                picked["view"] = {k: view[k] for k in reads.ordered_view_keys if k in view}
    try:
        return pickle.dumps(picked, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # anything pickle refuses: a key no other context has
        return b"unshared:%d" % next(_UNSHARED)


@dataclass
class TableCache:
    """Renders one turn's reports, each distinct table of each format once."""

    game_name: str
    tables: dict[tuple[str, str, bytes], str] = field(default_factory=dict)
    rendered: int = 0  # how many tables were rendered (the rest were reused)
    #: the game's template of each format, asked of the environment once a turn, not once a report
    templates: dict[str, Template] = field(default_factory=dict)

    def render(self, ctx: dict[str, Any], fmt: str = "html", key: bytes | None = None) -> str:
        """The report of ``ctx`` (``html`` or ``txt``), its table taken from an earlier report that
        reads the same. ``key``: ``table_key(game_name, ctx)``, when the caller has it already."""
        template = self.templates.get(fmt)
        if template is None:
            template = self.templates[fmt] = _template(self.game_name, fmt)
        # the language too: the same table in other words is another table
        found = (fmt, current_language(), table_key(self.game_name, ctx) if key is None else key)
        context = template.new_context(dict(ctx))
        blocks = context.blocks.get(_BLOCK)
        if blocks:
            stored = self.tables.get(found)
            blocks[0] = _replay(stored) if stored is not None else self._capture(blocks[0], found)
        return _render(template, context)

    def render_pair(self, ctx: dict[str, Any]) -> tuple[str, str]:
        """(plain text, HTML) of ``ctx``, keyed once for both: pickling the view's parts is most of a
        key's cost."""
        key = table_key(self.game_name, ctx)
        return self.render(ctx, "txt", key), self.render(ctx, "html", key)

    def _capture(
        self, block: Callable[[Context], Iterator[str]], key: tuple[str, str, bytes]
    ) -> Callable[[Context], Iterator[str]]:
        def capture(context: Context) -> Iterator[str]:
            text = "".join(block(context))
            self.tables[key] = text
            self.rendered += 1
            yield text

        return capture


def _replay(text: str) -> Callable[[Context], Iterator[str]]:
    def replay(context: Context) -> Iterator[str]:
        yield text

    return replay


def _render(template: Template, context: Context) -> str:
    # what Template.render does once it has its context
    try:
        return template.environment.concat(template.root_render_func(context))  # type: ignore[attr-defined]
    except Exception:
        template.environment.handle_exception()
        raise  # handle_exception always raises; this line tells the type checker so
