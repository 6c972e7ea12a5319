"""Fragments of a report drawn once per process: ``{% cache key, … %}…{% endcache %}``.

Much of a report's picture does not change from game to game: a Reef Encounter board's spaces depend
only on where its sand and starfish lie, a coral tile's picture only on its face. A template marks such
a fragment with the values it depends on::

    {% cache kinds %}…the spaces, drawn from ``kinds`` alone…{% endcache %}

and the fragment is rendered the first time those values (and the reader's language, which every
``_()`` inside answers in) are seen, and taken from the cache after that.

A cache is only safe if the fragment reads nothing but its key, so this is checked when the template
is parsed (:func:`check`), and a template that breaks the rule does not load. Inside a fragment, and
inside every macro it calls, a name must be

- one of the key's values: a key that is a name (``kinds``) covers all of it; a key that is a path
  (``t.name``) covers only what is read through that path (``t.name``, not ``t.lock``);
- a constant of the template: a name set once, to a literal (``{% set S = 36 %}``, a dict of colours,
  ``_("extra")``), at the top level of the template or of one of its blocks, and never changed or
  handed on, so it is the same in every rendering of the template in one language;
- a macro of the template that itself reads only constants, its own arguments and such macros;
- one of the environment's globals (``_``, ``range``, ``namespace``);
- or set within the fragment (or macro) itself.

Nor may a fragment change anything outside itself (a cached fragment would not change it a second
time): a mutating method (``append``, ``update`` …) or ``{% set ns.x %}`` is allowed only on a name the
fragment or macro made itself from a literal (``{% set parts = [] %}``). So one seat's hidden holdings
can reach a cached fragment only through its key, and then the key differs from another seat's.

The key's values are pickled (exact about types: ``True`` and ``1`` differ, as they print differently;
equal values pickled apart only cost a second rendering), or, when all are plain words and numbers, kept
as they are with their types; a value that cannot be pickled is not cached.
The cache lives in the Jinja environment and holds at most :data:`LIMIT` fragments, the oldest dropped.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateAssertionError
from jinja2.ext import Extension
from jinja2.meta import find_undeclared_variables
from jinja2.parser import Parser
from jinja2.sandbox import _mutable_spec  # Jinja's own list of the methods that change a value

from pbem.core import i18n

#: fragments one process keeps (a board's spaces are ~6 KB; the shipped games need a few hundred)
LIMIT = 4096
#: methods that change the value they are called on (list.append, dict.update, set.add …)
_MUTATING = frozenset(itertools.chain.from_iterable(names for _type, names in _mutable_spec))
_METHOD = "_fragment"
#: a key's values of these exact types are compared as themselves, not pickled: equal values of one of
#: these types print the same (not so a float: ``0.0 == -0.0``; nor a ``str`` subclass, a ``Text``,
#: whose words may be another message's)
_PLAIN = frozenset({str, int, bool, type(None)})


class FragmentCache(Extension):
    """The ``{% cache %}`` tag; the fragments drawn so far are in :attr:`fragments`."""

    tags: ClassVar[set[str]] = {"cache"}

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.fragments: dict[tuple[Any, ...], str] = {}
        self.rendered = 0  # fragments rendered (the rest came from the cache)
        self._tags = itertools.count()

    def parse(self, parser: Parser) -> nodes.Node:
        token = next(parser.stream)
        keys = [parser.parse_expression()]
        while parser.stream.skip_if("comma"):
            keys.append(parser.parse_expression())
        body = parser.parse_statements(("name:endcache",), drop_needle=True)
        # the fragment's own name: two on one line, or in two templates from strings, are two
        where = nodes.Const(f"{parser.name}:{token.lineno}:{next(self._tags)}")
        call = self.call_method(_METHOD, [where, nodes.List(keys)], lineno=token.lineno)
        return nodes.CallBlock(call, [], [], body, lineno=token.lineno)

    def _fragment(self, where: str, keys: list[Any], caller: Callable[[], str]) -> str:
        kinds = tuple(map(type, keys))
        if _PLAIN.issuperset(kinds):
            # words and numbers (a piece's place and colour): the values themselves and their types
            # are the key, as exact as their pickle (``True`` and ``1`` differ by their type), without
            # pickling them (a board piece's fragment, some 50 a turn)
            key: tuple[Any, ...] = (where, _words(), kinds, *keys)
        else:
            try:
                key = (where, _words(), pickle.dumps(keys, protocol=pickle.HIGHEST_PROTOCOL))
            except Exception:  # a value pickle refuses: drawn every time
                return caller()
        found = self.fragments.get(key)
        if found is None:
            found = caller()
            self.rendered += 1
            if len(self.fragments) >= LIMIT:
                del self.fragments[next(iter(self.fragments))]
            self.fragments[key] = found
        return found

    def clear(self) -> None:
        self.fragments.clear()


def _words() -> tuple[Any, ...]:
    """Where a fragment's words come from: the current language, and the functions that look its
    messages up (read when called, so catalogs stood in for them, as tests do, are other words)."""
    return (i18n.current_language(), i18n.gettext, i18n.pgettext, i18n.plural)


class CheckedEnvironment(Environment):
    """An environment whose templates' cached fragments are checked when parsed (:func:`check`)."""

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        check(tree, self, name, filename)
        return tree


def _fail(node: nodes.Node, message: str, name: str | None, filename: str | None) -> None:
    raise TemplateAssertionError(message, node.lineno, name, filename)


def _is_fragment(node: nodes.Node) -> bool:
    return (
        isinstance(node, nodes.CallBlock)
        and isinstance(node.call, nodes.Call)
        and isinstance(node.call.node, nodes.ExtensionAttribute)
        and node.call.node.identifier == FragmentCache.identifier
        and node.call.node.name == _METHOD
    )


def _literal(node: nodes.Node, translators: frozenset[str]) -> bool:
    """A value the same in every rendering in one language: constants, and lists, dicts and
    ``_("…")`` of them."""
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.List | nodes.Tuple):
        return all(_literal(item, translators) for item in node.items)
    if isinstance(node, nodes.Dict):
        return all(_literal(p.key, translators) and _literal(p.value, translators) for p in node.items)
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) and node.node.name in translators:
        return not node.kwargs and not node.dyn_args and all(_literal(a, translators) for a in node.args)
    return False


def _stores(tree: nodes.Node) -> Iterator[tuple[str, nodes.Node | None]]:
    """Every name ``tree`` binds, with the value it is set to (``None``: not a plain assignment)."""
    for node in tree.find_all((nodes.Assign, nodes.AssignBlock, nodes.For, nodes.Macro, nodes.With)):
        if isinstance(node, nodes.Macro):
            yield node.name, None
            for arg in node.args:
                yield arg.name, None
            continue
        targets = node.targets if isinstance(node, nodes.With) else [node.target]
        for target in targets:
            for name in target.find_all(nodes.Name) if not isinstance(target, nodes.Name) else [target]:
                plain = isinstance(node, nodes.Assign) and isinstance(target, nodes.Name)
                yield name.name, node.node if plain else None
    for node in tree.find_all(nodes.CallBlock):
        for arg in node.args:
            yield arg.name, None


def _path(node: nodes.Node) -> tuple[str, ...] | None:
    """``("t", "name")`` for ``t.name`` or ``t["name"]``; ``None`` for anything else."""
    if isinstance(node, nodes.Name):
        return (node.name,)
    if isinstance(node, nodes.Getattr):
        head = _path(node.node)
        return None if head is None else (*head, node.attr)
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
        head = _path(node.node)
        return None if head is None else (*head, str(node.arg.value))
    return None


def _handed_on(tree: nodes.Node) -> set[str]:
    """Names whose value may be changed somewhere in ``tree``: a mutating method called on them,
    ``{% set name.attr %}``, or the value itself handed on (to a call, to another name)."""
    found: set[str] = set()
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Getattr) and call.node.attr in _MUTATING:
            root = _path(call.node.node)
            found.update(root[:1] if root else ())
        values = [*call.args, *(k.value for k in call.kwargs), call.dyn_args, call.dyn_kwargs]
        found.update(v.name for v in values if isinstance(v, nodes.Name))
    found.update(ref.name for ref in tree.find_all(nodes.NSRef))
    for node in tree.find_all((nodes.Assign, nodes.With)):
        values = node.values if isinstance(node, nodes.With) else [node.node]
        found.update(v.name for v in values if isinstance(v, nodes.Name))
    return found


class _Checker:
    def __init__(self, tree: nodes.Template, env: Environment, name: str | None, filename: str | None):
        self.env, self.name, self.filename = env, name, filename
        translators = frozenset({"_", "gettext", "ngettext"}) & set(env.globals)
        values: dict[str, list[nodes.Node | None]] = {}
        for bound, value in _stores(tree):
            values.setdefault(bound, []).append(value)
        # set once, to a literal, where nothing decides whether it is set: the template's top level, or
        # the top level of one of its blocks (a name set to 1 or 2 by an ``if`` would tell the ``if``)
        top = [*tree.body, *(n for b in tree.body if isinstance(b, nodes.Block) for n in b.body)]
        once = {
            a.target.name
            for a in top
            if isinstance(a, nodes.Assign)
            and isinstance(a.target, nodes.Name)
            and _literal(a.node, translators)
            and len(values.get(a.target.name, ())) == 1
        }
        self.constants = once - _handed_on(tree)
        self.macros = {
            m.name: m for m in tree.body if isinstance(m, nodes.Macro) and len(values[m.name]) == 1
        }
        self.checked: set[str] = set()
        self.translators = translators

    def free(self, body: list[nodes.Node], macro: nodes.Macro | None = None) -> set[str]:
        """The names ``body`` (of ``macro``, else of a fragment) reads from outside itself, as Jinja's
        compiler sees them: a fragment is compiled as a macro (its ``caller``) too."""
        scope = nodes.Template([macro or nodes.Macro("fragment", [], [], body)]).set_environment(self.env)
        # Jinja also fetches a name set in one branch of an ``if`` from outside, for the other branch:
        # that value is only seen if the name is read
        loaded = {n.name for n in scope.find_all(nodes.Name) if n.ctx == "load"}
        return find_undeclared_variables(scope) & loaded

    def fragment(self, node: nodes.CallBlock) -> None:
        assert isinstance(node.call, nodes.Call)
        keys = node.call.args[1]
        assert isinstance(keys, nodes.List)
        covered: dict[str, list[tuple[str, ...]]] = {}
        for key in keys.items:
            path = _path(key)
            if path is not None:
                covered.setdefault(path[0], []).append(path[1:])
        stored = {n for n, _v in _stores(nodes.Template(node.body))}
        for root in covered:
            if root in stored:
                _fail(node, f"cached fragment: its key {root!r} is set inside it", self.name, self.filename)
        for free in sorted(self.free(node.body)):
            if free in covered:
                continue
            self.allowed(free, node, "cached fragment")
        self.reads(node, node.body, covered)
        self.changes(node.body, node, "cached fragment")

    def allowed(self, free: str, where: nodes.Node, what: str) -> None:
        if free in self.constants:
            return
        if free in self.macros:
            self.macro(self.macros[free])
            return
        _fail(
            where,
            f"{what} reads {free!r}, which is not in its key: add it to the key or pass it in",
            self.name,
            self.filename,
        )

    def reads(
        self, where: nodes.Node, body: list[nodes.Node], covered: dict[str, list[tuple[str, ...]]]
    ) -> None:
        """Every read of a key's name goes through one of the key's paths (a key ``t.name`` covers
        ``t.name`` and what is read past it, not ``t.lock`` nor ``t`` whole)."""

        def visit(node: nodes.Node) -> None:
            if isinstance(node, nodes.Getattr | nodes.Getitem | nodes.Name):
                path = _path(node)
                if path is not None and path[0] in covered:
                    if any(path[1 : 1 + len(p)] == p for p in covered[path[0]]):
                        return
                    if isinstance(node, nodes.Name):
                        shown = ", ".join(".".join((node.name, *p)) for p in covered[node.name])
                        _fail(
                            where,
                            f"cached fragment reads {node.name!r} beyond its key ({shown})",
                            self.name,
                            self.filename,
                        )
            for child in node.iter_child_nodes():
                visit(child)

        for node in body:
            visit(node)

    def macro(self, macro: nodes.Macro) -> None:
        if macro.name in self.checked:
            return
        self.checked.add(macro.name)  # before the body: a macro that calls itself is checked once
        args = {a.name for a in macro.args}
        for default in macro.defaults:
            if not _literal(default, self.translators):
                _fail(
                    macro,
                    f"macro {macro.name!r}, used in a cached fragment, has a default that is not a literal",
                    self.name,
                    self.filename,
                )
        for free in sorted(self.free(macro.body, macro) - args):
            self.allowed(free, macro, f"macro {macro.name!r}, used in a cached fragment,")
        self.changes(macro.body, macro, f"macro {macro.name!r}, used in a cached fragment,")

    def changes(self, body: list[nodes.Node], where: nodes.Node, what: str) -> None:
        """Only what the fragment made itself from a literal may be changed in it."""
        scope = nodes.Template(body)
        made: dict[str, bool] = {}
        for bound, value in _stores(scope):
            own = value is not None and (
                _literal(value, self.translators)
                or (
                    isinstance(value, nodes.Call)
                    and isinstance(value.node, nodes.Name)
                    and value.node.name == "namespace"
                )
            )
            made[bound] = made.get(bound, True) and own
        for call in scope.find_all(nodes.Call):
            if isinstance(call.node, nodes.Getattr) and call.node.attr in _MUTATING:
                root = _path(call.node.node)
                if root is None or not made.get(root[0], False):
                    _fail(
                        where,
                        f"{what} changes a value it did not make ({call.node.attr})",
                        self.name,
                        self.filename,
                    )
        for ref in scope.find_all(nodes.NSRef):
            if not made.get(ref.name, False):
                _fail(where, f"{what} sets {ref.name}.{ref.attr} outside itself", self.name, self.filename)


def check(tree: nodes.Template, env: Environment, name: str | None, filename: str | None) -> None:
    """Raise :class:`TemplateAssertionError` if a cached fragment of ``tree`` may read more than its key
    or change anything outside itself (the rules in this module's docstring)."""
    fragments = [n for n in tree.find_all(nodes.CallBlock) if _is_fragment(n)]
    if not fragments:
        return
    checker = _Checker(tree, env, name, filename)
    for node in fragments:
        checker.fragment(node)
