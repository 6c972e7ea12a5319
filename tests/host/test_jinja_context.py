"""The reports' context calls as Jinja's own ``Context.call`` does: same arguments, same results."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import (
    Environment,
    StrictUndefined,
    UndefinedError,
    pass_context,
    pass_environment,
    pass_eval_context,
)
from jinja2.runtime import Context, Undefined

from pbem.render.environment import environment
from pbem.render.jinja_context import QuickContext


@pass_context
def _with_context(ctx: Context, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    return ("context", ctx.get("who"), args, tuple(sorted(kwargs.items())))


@pass_eval_context
def _with_eval_context(eval_ctx: Any, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    return ("eval", eval_ctx.autoescape, args, tuple(sorted(kwargs.items())))


@pass_environment
def _with_environment(env: Environment, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    return ("env", type(env).__name__, args, tuple(sorted(kwargs.items())))


def _plain(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
    return ("plain", args, tuple(sorted(kwargs.items())))


class _Callable:
    @pass_context
    def __call__(self, ctx: Context, x: int) -> tuple[Any, ...]:
        return ("callable class", ctx.get("who"), x)


def _stops() -> None:
    raise StopIteration


CALLEES = [_with_context, _with_eval_context, _with_environment, _plain, _Callable(), len, "x".upper]
KWARGS: list[dict[str, Any]] = [
    {},
    {"a": 1},
    {"_loop_vars": {"who": "loop"}},
    {"_block_vars": {"who": "block"}, "b": 2},
    {"_loop_vars": {}, "_block_vars": {}},
]


def _contexts() -> tuple[Context, Context]:
    env = Environment(autoescape=True)
    theirs = Context(env, {"who": "parent"}, None, {})
    ours = QuickContext(env, {"who": "parent"}, None, {})
    return theirs, ours


@pytest.mark.parametrize("callee", CALLEES, ids=lambda c: getattr(c, "__name__", type(c).__name__))
@pytest.mark.parametrize("kwargs", KWARGS, ids=str)
def test_a_call_reaches_its_callee_as_through_jinjas_own(callee: Any, kwargs: dict[str, Any]) -> None:
    theirs, ours = _contexts()
    args: tuple[Any, ...] = ("abc",) if callee is len else (() if callee == "x".upper else (7,))
    try:  # a callee that takes no such keywords fails alike in both
        expected = theirs.call(callee, *args, **dict(kwargs))
    except TypeError as exc:
        with pytest.raises(TypeError):
            ours.call(callee, *args, **dict(kwargs))
        assert str(exc)
        return
    assert ours.call(callee, *args, **dict(kwargs)) == expected


def test_a_stopiteration_becomes_undefined_as_in_jinja() -> None:
    theirs, ours = _contexts()
    assert isinstance(theirs.call(_stops), Undefined)
    assert isinstance(ours.call(_stops), Undefined)


def test_the_reports_templates_use_it() -> None:
    template = environment().from_string(
        "{% macro m(x) %}[{{ x }}]{% endmacro %}{% for i in range(3) %}{{ m(i) }}{{ _('none') }}{% endfor %}"
    )
    assert isinstance(template.new_context({}), QuickContext)
    assert template.render() == "[0]none[1]none[2]none"


def test_calling_an_undefined_name_fails_as_in_jinja() -> None:
    # the reports' environment is strict: a template calling a name it does not have stops there
    template = environment().from_string("{{ nowhere(1) }}")
    with pytest.raises(UndefinedError, match="'nowhere' is undefined"):
        template.render()
    env = Environment(undefined=StrictUndefined)
    theirs = Context(env, {}, None, {})
    ours = QuickContext(env, {}, None, {})
    missing = StrictUndefined(name="missing")
    with pytest.raises(UndefinedError) as expected:
        theirs.call(missing)
    with pytest.raises(UndefinedError) as got:
        ours.call(missing)
    assert str(got.value) == str(expected.value)


class _Dict(dict):  # type: ignore[type-arg]
    """A dict subclass: its attributes may be its own, so it goes the way Jinja's getattr does."""

    colour = "from the attribute"


@pytest.mark.parametrize(
    "obj",
    [
        {"name": "a", "items": "an item named items", "__class__": "x", "get": 1},
        {},
        _Dict(name="a", colour="from the item"),
        ["a", "list"],
        "a string",
        None,
    ],
    ids=["dict", "empty", "subclass", "list", "str", "none"],
)
@pytest.mark.parametrize("name", ["name", "missing", "items", "get", "__class__", "keys", "colour", "upper"])
def test_an_attribute_is_read_as_jinjas_getattr_reads_it(obj: Any, name: str) -> None:
    # ``obj.name``: an item of a plain dict without the exception first; dict's own methods, other
    # types and a missing key as Jinja has them (the reports' environment is strict: undefined fails)
    ours = environment()
    theirs = Environment(undefined=StrictUndefined)
    expected = theirs.getattr(obj, name)
    got = ours.getattr(obj, name)
    if isinstance(expected, Undefined):
        assert isinstance(got, StrictUndefined)
        with pytest.raises(UndefinedError) as want:
            str(expected)
        with pytest.raises(UndefinedError) as have:
            str(got)
        assert str(have.value) == str(want.value)
    else:
        assert got == expected
        assert type(got) is type(expected)


def test_a_template_reads_a_dicts_items_and_methods_as_before() -> None:
    template = environment().from_string("{{ d.name }} {{ d.items()|list|length }} {{ d['items'] }}")
    assert template.render(d={"name": "ann", "items": 3}) == "ann 2 3"
    with pytest.raises(UndefinedError, match="has no attribute 'nowhere'"):
        environment().from_string("{{ d.nowhere }}").render(d={"name": "ann"})


def test_a_templates_globals_are_the_environments_and_its_own() -> None:
    # a plain dict of both (Jinja's ChainMap answers a key at a time in Python); a template's own
    # globals stay its own
    env = environment()
    page = env.get_template("reef-encounter/report.html.j2")
    assert dict(page.globals) == dict(env.globals)
    own = env.from_string("{{ answer }} {{ range(2) | list }} {{ _('none') }}", globals={"answer": 42})
    assert own.render() == "42 [0, 1] none"
    assert "answer" not in env.globals and "answer" not in page.globals
    assert page.new_context({}).globals_keys == set(env.globals)
