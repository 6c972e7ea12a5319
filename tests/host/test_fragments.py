"""Cached fragments (pbem.render.fragments): a ``{% cache %}`` reads nothing but its key, or its template does
not load; a cached report is byte for byte the report drawn afresh, in every language, for every seat."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import TemplateAssertionError
from pbem.render.fragments import LIMIT, CheckedEnvironment, FragmentCache

from host.test_shared_table import SEATS, positions
from pbem.core import i18n, registry
from pbem.core.chance import Recorder
from pbem.core.i18n import P_
from pbem.render.environment import _gettext, _ngettext, environment, fragments, render
from pbem.render.reports import context


def fresh() -> tuple[CheckedEnvironment, FragmentCache]:
    env = CheckedEnvironment(extensions=["jinja2.ext.i18n", FragmentCache], autoescape=True)
    env.install_gettext_callables(gettext=i18n.gettext, ngettext=i18n.plural, newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(
        _=_gettext, gettext=_gettext, ngettext=_ngettext
    )  # as pbem.render.environment's environment
    ext = env.extensions[FragmentCache.identifier]
    assert isinstance(ext, FragmentCache)
    return env, ext


REJECTED = {
    "a name not in the key": ("{% cache a %}{{ b }}{% endcache %}", "'b'"),
    "past a key's path": ("{% cache t.name %}{{ t.lock }}{% endcache %}", "beyond its key (t.name)"),
    "the key's value whole": ("{% cache t.name %}{{ t | length }}{% endcache %}", "beyond its key"),
    "a macro reading the view": (
        "{% macro w(x) %}{{ view.words[x] }}{% endmacro %}{% cache a %}{{ w(a) }}{% endcache %}",
        "macro 'w', used in a cached fragment, reads 'view'",
    ),
    "a set only in one branch": (
        "{% cache a %}{% if a %}{% set x = 1 %}{% endif %}{{ x }}{% endcache %}",
        "'x'",
    ),
    "a key changed": ("{% cache a %}{% set _x = a.append(1) %}{% endcache %}", "changes a value"),
    "an argument changed": (
        "{% macro m(x) %}{% set _y = x.append(1) %}{% endmacro %}{% cache a %}{{ m([]) }}{% endcache %}",
        "macro 'm', used in a cached fragment, changes a value",
    ),
    "a list filled elsewhere": (
        "{% set L = [] %}{% set _y = L.append(3) %}{% cache a %}{{ L }}{% endcache %}",
        "'L'",
    ),
    "a namespace set": (
        "{% set ns = namespace(n=1) %}{% cache a %}{% set ns.n = 2 %}{% endcache %}",
        "sets ns.n outside itself",
    ),
    "an outer loop": ("{% for i in [1] %}{% cache a %}{{ loop.index }}{% endcache %}{% endfor %}", "'loop'"),
    "the key set inside": ("{% cache a %}{% set a = 2 %}{{ a }}{% endcache %}", "key 'a' is set inside it"),
    "a name set either way": (
        "{% if secret %}{% set x = 1 %}{% else %}{% set x = 2 %}{% endif %}"
        "{% cache a %}{{ x }}{% endcache %}",
        "'x'",
    ),
    "a constant set twice": (
        "{% set x = 1 %}{% block b %}{% set x = 2 %}{% cache a %}{{ x }}{% endcache %}{% endblock %}",
        "'x'",
    ),
}


@pytest.mark.parametrize("why", sorted(REJECTED))
def test_a_fragment_that_reads_more_than_its_key_does_not_load(why: str) -> None:
    source, said = REJECTED[why]
    env, _ext = fresh()
    with pytest.raises(TemplateAssertionError) as raised:
        env.from_string(source)
    assert said in str(raised.value)


ACCEPTED = [
    # constants, a pure macro, a word in the reader's language
    "{% set S = 3 %}{% macro m(x) %}{{ x * S }}{% endmacro %}"
    '{% cache a %}{{ m(a) }} {{ _("none") }}{% endcache %}',
    # a path's key covers what is read through it
    "{% cache t.name, t.rows %}{{ t.name | upper }}{% for r in t.rows %}{{ r[0] }}{% endfor %}{% endcache %}",
    # what the fragment makes itself it may change
    "{% cache a, t.rows %}{% set parts = [] %}{% for c in t.rows %}{% set _x = parts.append(c) %}{% endfor %}"
    "{{ parts | length }}{% endcache %}",
]


@pytest.mark.parametrize("source", ACCEPTED)
def test_a_fragment_drawn_from_its_key_alone_is_drawn_once(source: str) -> None:
    env, ext = fresh()
    template = env.from_string(source)
    plain = env.from_string(
        source.replace("{% cache", "{% if true or").replace("{% endcache %}", "{% endif %}")
    )
    values: dict[str, Any] = {"a": 2, "t": {"name": "x", "rows": [[1], [2]]}}
    first = template.render(values)
    assert first == plain.render(values) and ext.rendered == 1
    assert template.render(values) == first and ext.rendered == 1  # the second time from the cache
    values = {"a": 5, "t": {"name": "y", "rows": [[3]]}}  # another key: drawn again
    assert template.render(values) == plain.render(values) and ext.rendered == 2


def test_two_fragments_with_the_same_key_are_two() -> None:
    env, ext = fresh()
    one_line = env.from_string("{% cache a %}x{% endcache %}{% cache a %}y{% endcache %}")
    other = env.from_string("{% cache a %}z{% endcache %}")
    assert one_line.render(a=1) == "xy" and other.render(a=1) == "z" and ext.rendered == 3


def test_each_language_has_its_own_fragment() -> None:
    env, ext = fresh()
    template = env.from_string('{% cache 1 %}{{ _("none") }}{% endcache %}')
    english = template.render()
    with i18n.language("hu"):
        hungarian = template.render()
    assert english == "none" and hungarian not in ("", "none") and ext.rendered == 2


def test_catalogs_stood_in_for_are_other_words(monkeypatch: pytest.MonkeyPatch) -> None:
    env, ext = fresh()
    template = env.from_string('{% cache 1 %}{{ _("none") }}{% endcache %}')
    assert template.render() == "none"
    monkeypatch.setattr(i18n, "gettext", lambda message: {"none": "semmi"}.get(message, message))
    assert template.render() == "semmi" and ext.rendered == 2
    monkeypatch.undo()
    assert template.render() == "none" and ext.rendered == 2  # the first catalog's fragment again


def test_the_cache_keeps_at_most_its_limit_and_forgets_on_reload() -> None:
    env, ext = fresh()
    template = env.from_string("{% cache a %}{{ a }}{% endcache %}")
    for n in range(LIMIT + 10):
        template.render(a=n)
    assert len(ext.fragments) == LIMIT
    assert template.render(a=LIMIT + 9) == str(LIMIT + 9) and ext.rendered == LIMIT + 10  # newest kept
    template.render(a=0)  # the oldest was dropped: drawn again
    assert ext.rendered == LIMIT + 11
    environment().get_template("reef-encounter/report.html.j2")
    fragments().fragments[("x", ("en",), b"")] = "stale"
    i18n.reload()  # other catalogs: the shipped environment's fragments are drawn anew
    assert not fragments().fragments


def test_a_value_pickle_refuses_is_drawn_every_time() -> None:
    env, ext = fresh()
    template = env.from_string("{% cache f %}{{ f() }}{% endcache %}")
    assert template.render(f=lambda: "a") == "a" and template.render(f=lambda: "b") == "b"
    assert ext.rendered == 0 and not ext.fragments


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_reports_drawn_with_cached_fragments_are_those_drawn_afresh(game_type: str) -> None:
    # every seat's report of positions from setup to the end, in two languages, with the fragments
    # of all earlier positions in the cache, is byte for byte the report drawn with an empty cache
    game = registry.get_game(game_type)
    seats = [*(f"p{i}" for i in range(SEATS[game_type])), None]
    for state, turn, events in positions(game_type, seed=5, every=9):
        for lang in ("en", "hu"):
            with i18n.language(lang):
                for seat in seats:
                    ctx = context(game, "g-1", state, turn, seat, events)
                    warm = [render(game.name, fmt, ctx) for fmt in ("html", "txt")]
                    kept = dict(fragments().fragments)
                    fragments().clear()
                    assert warm == [render(game.name, fmt, ctx) for fmt in ("html", "txt")], (
                        turn,
                        seat,
                        lang,
                    )
                    fragments().fragments.update(kept)


def test_a_seats_report_is_its_own_whatever_another_seat_holds_behind_its_screen() -> None:
    # p1's hidden holdings differ between the two states: with the fragments of the one in the cache,
    # every report of the other is what it is drawn afresh, and p1's own shows its own screen
    game = registry.get_game("reef-encounter")
    state, turn, events = positions("reef-encounter", seed=6, every=8)[2]
    other = game.resample_hidden(state, "p0", Recorder.for_turn(77, 0, turn))  # p0's kept, the rest anew
    assert game.view(other, "p1")["me"] != game.view(state, "p1")["me"]
    for seat in ["p0", "p1", "p2", "p3", None]:
        for fmt in ("html", "txt"):
            render(game.name, fmt, context(game, "g-1", state, turn, seat, events))
    for seat in ["p0", "p1", "p2", "p3", None]:
        for fmt in ("html", "txt"):
            ctx = context(game, "g-1", other, turn, seat, events)
            warm = render(game.name, fmt, ctx)
            kept = dict(fragments().fragments)
            fragments().clear()
            assert warm == render(game.name, fmt, ctx), (seat, fmt)
            fragments().fragments.update(kept)
    mine = render(game.name, "txt", context(game, "g-1", other, turn, "p1", events))
    theirs = render(game.name, "txt", context(game, "g-1", state, turn, "p1", events))
    assert mine.split("YOURS ALONE")[1] != theirs.split("YOURS ALONE")[1]


def test_plain_keys_are_exact_about_their_types() -> None:
    # words and numbers are kept as the key themselves, not pickled: True and 1 (equal, one hash) print
    # differently, and so do a word and the same English of a game's term
    env, ext = fresh()
    template = env.from_string("{% cache a, b %}{{ a }} {{ b }}{% endcache %}")
    shown = [
        template.render(a=a, b=b) for a, b in [(1, "x"), (True, "x"), (1, "x"), (None, 0), (None, False)]
    ]
    assert shown == ["1 x", "True x", "1 x", "None 0", "None False"] and ext.rendered == 4
    assert template.render(a=1, b=P_("colour", "x")) == "1 x" and ext.rendered == 5  # a Text: pickled
    assert template.render(a=1.0, b="x") == "1.0 x" and ext.rendered == 6  # a float: pickled
