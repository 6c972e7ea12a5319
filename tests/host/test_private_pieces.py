"""The shared pieces of a report are private by construction (pbem.render.tables,
pbem.render.environment.piece): a table is rendered from the game's table inputs alone and a piece
from its arguments alone, so even a filter or global that takes the whole context (``@pass_context``)
finds nothing of a seat's hidden holdings there; equal inputs share one rendering, differing ones do
not; a cached report is byte for byte the report drawn afresh."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import pass_context
from jinja2.runtime import Context

from host.pearl_dive import PearlDive
from host.test_shared_table import SEATS, positions
from pbem.core import caches, i18n, registry
from pbem.core.chance import Recorder
from pbem.render import tables
from pbem.render.environment import environment, piece
from pbem.render.reports import context

PIECES = "spy-dive/pieces.html.j2"


class SpyDive(PearlDive):
    """Pearl Dive under another name, whose templates (tests/host/templates/spy-dive) read their whole
    context through a filter and a global."""

    name = "spy-dive"


class HandOnTable(SpyDive):
    """A game whose table shows a seat its own hand: its inputs differ from seat to seat."""

    def table_inputs(self, view: Mapping[str, Any]) -> Mapping[str, Any]:
        return dict(view)


#: every context the ``spy`` filter and the ``peek()`` global were handed, all of it
SEEN: list[dict[str, Any]] = []


@pass_context
def spy(ctx: Context, _value: object) -> str:
    SEEN.append(dict(ctx.get_all()))
    return ""


@pass_context
def peek(ctx: Context) -> str:
    SEEN.append(dict(ctx.get_all()))
    return ""


def _globals() -> frozenset[str]:
    """What every context holds whatever it renders: the environment's globals (but the spy's own)."""
    return frozenset(environment().globals) - {"peek"}


def _install() -> None:
    env = environment()
    env.filters["spy"], env.globals["peek"] = spy, peek
    env.cache.clear()  # type: ignore[union-attr]  # a template copies the globals as it loads: load anew
    SEEN.clear()
    caches.clear_all()


def _uninstall() -> None:
    env = environment()
    del env.filters["spy"], env.globals["peek"]
    env.cache.clear()  # type: ignore[union-attr]  # the templates that copied ``peek`` are forgotten
    caches.clear_all()


@pytest.fixture
def seen() -> Iterator[list[dict[str, Any]]]:
    """:data:`SEEN`, emptied, with the caches; the spy filter and global installed for the test."""
    _install()
    yield SEEN
    _uninstall()


def _state(game: PearlDive, hands: dict[str, list[int]] | None = None) -> Any:
    state = game.setup(["p0", "p1", "p2"], game.options_model(), Recorder.for_turn(1, 0, 0))
    return state if hands is None else state.model_copy(update={"hands": hands})


def test_a_pass_context_filter_in_the_table_sees_only_the_table_inputs(seen: list[dict[str, Any]]) -> None:
    game = SpyDive()
    state = _state(game, {"p0": [5, 5, 4], "p1": [1], "p2": []})
    ctx = context(game, "g-1", state, 0, "p0", [])
    assert ctx["view"]["hand"] == [5, 5, 4]
    tables.render_pair(game, ctx)
    assert seen, "the spy was not called"
    for found in seen:
        own = set(found) - _globals() - {"peek"}
        if "view" in own:  # the table's context
            assert own == {"view", "language"}
            assert found["view"] == game.table_inputs(ctx["view"])
            assert "hand" not in found["view"]
        else:  # the piece's: its module's own macros, no report's values at all
            assert own <= {"bag", "typed"}, own
        assert "seat" not in found and "events" not in found and "decision" not in found


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=5), min_size=2, max_size=2),
    st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=1),
    st.lists(st.integers(min_value=1, max_value=5), max_size=6),
)
def test_what_the_table_may_see_is_the_same_whatever_the_others_hold(
    p1: list[int], p2: list[int], mine: list[int]
) -> None:
    # how many pearls each holds is public (the view's "held"); which ones is not: the first rendering
    # with hands of ones, the second with these
    _install()
    hidden_from_p0 = []
    try:
        game = SpyDive()
        for hands in ({"p0": [1] * len(mine), "p1": [1, 1], "p2": [1]}, {"p0": mine, "p1": p1, "p2": p2}):
            caches.clear_all()
            SEEN.clear()
            ctx = context(game, "g-1", _state(game, hands), 0, "p0", [])
            pair = tables.render_pair(game, ctx)
            shared = [{k: v for k, v in found.items() if k not in _globals() | {"peek"}} for found in SEEN]
            hidden_from_p0.append((repr(shared), pair[0].split("Your pearls")[0]))
        # what the table's filter and global saw, and the table, tell no hand apart: not the others', nor
        # the reader's own (its "yours alone" shows that, outside the table)
        assert hidden_from_p0[0] == hidden_from_p0[1]
    finally:
        _uninstall()


def test_equal_inputs_share_one_rendering_and_differing_ones_do_not(
    seen: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[str] = []
    real = tables._render_table
    monkeypatch.setattr(tables, "_render_table", lambda *a: rendered.append(a[1]) or real(*a))
    hands = {"p0": [5], "p1": [2, 3], "p2": []}
    shared, own = SpyDive(), HandOnTable()
    for seat in ["p0", "p1", "p2", None]:
        tables.render_pair(shared, context(shared, "g-1", _state(shared, hands), 0, seat, []))
    assert sorted(rendered) == ["html", "txt"]  # the hands are not in the inputs: one table a format
    rendered.clear()
    caches.clear_all()  # (the observer's inputs are the same in both games, and so is its table)
    texts = {}
    for seat in ["p0", "p1", "p2", None]:
        ctx = context(own, "g-1", _state(own, hands), 0, seat, [])
        texts[seat] = tables.table(own, "txt", ctx["view"])
    assert len(rendered) == 4  # each seat's hand in its inputs (the observer's: none): four tables
    assert "hand 5" in texts["p0"] and "hand 2,3" in texts["p1"] and "hand" not in texts[None]
    for seat in ["p0", "p1"]:  # asked again: taken from the cache
        tables.table(own, "txt", context(own, "g-1", _state(own, hands), 0, seat, [])["view"])
    assert len(rendered) == 4


def test_a_piece_is_drawn_once_for_its_arguments_and_words(seen: list[dict[str, Any]]) -> None:
    drawn = []
    for size in (3, 3, 4, 3):
        drawn.append(piece(PIECES, "bag", size))
    assert drawn[0] == drawn[1] == drawn[3] != drawn[2]
    assert len(seen) == 2 * 2  # two drawings, each spied on twice (the filter and the global)
    with i18n.language("hu"):
        hungarian = piece(PIECES, "bag", 3)
    assert hungarian != drawn[0] and len(seen) == 6  # another language: drawn in its words


def test_catalogs_stood_in_for_are_other_words(seen: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with i18n.language("hu"):
        first = piece(PIECES, "bag", 3)
        monkeypatch.setattr(i18n, "gettext", lambda message: "X" + message)
        assert piece(PIECES, "bag", 3) != first


def test_clearing_the_caches_forgets_every_piece_and_table(seen: list[Any]) -> None:
    piece(PIECES, "bag", 3)
    i18n.reload()  # other catalogs: every piece drawn anew
    piece(PIECES, "bag", 3)
    assert len(seen) == 4


def test_plain_arguments_are_exact_about_their_types(seen: list[Any]) -> None:
    assert [piece(PIECES, "typed", v) for v in (1, True, "1", None, 1)] == ["1", "True", "1", "None", "1"]


def test_an_argument_pickle_refuses_is_drawn_every_time(
    seen: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = piece.__globals__["_draw"]
    monkeypatch.setitem(piece.__globals__, "_draw", lambda *a: calls.append(a) or real(*a))
    unpicklable = lambda: None  # noqa: E731 - a value pickle refuses
    piece(PIECES, "typed", [unpicklable])
    piece(PIECES, "typed", [unpicklable])
    assert len(calls) == 2


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_reports_drawn_with_kept_pieces_are_those_drawn_afresh(game_type: str) -> None:
    # every seat's report of positions from setup to the end, in two languages, with the pieces and
    # tables another seat's report left in the caches, and with none
    game = registry.get_game(game_type)
    for state, turn, events in positions(game_type, seed=6, every=9):
        for language in ("en", "ru"):
            with i18n.language(language):
                for seat in [*(f"p{i}" for i in range(SEATS[game_type])), None]:
                    ctx = context(game, "g-1", state, turn, seat, events)
                    kept = tables.render_pair(game, ctx)
                    caches.clear_all()
                    assert tables.render_pair(game, ctx) == kept, (game_type, turn, seat, language)


def test_a_seats_report_is_its_own_whatever_another_seat_holds_behind_its_screen() -> None:
    # p1's hidden holdings differ between the two states: with the pieces and tables of the one in the
    # caches, p0's report of the other is the one drawn afresh
    game = registry.get_game("reef-encounter")
    found = positions("reef-encounter", seed=7, every=3)
    for state, turn, events in found[1:4]:
        other = game.resample_hidden(state, "p0", Recorder.for_turn(9, 0, turn))
        assert game.view(other, "p0") == game.view(state, "p0")
        assert game.view(other, "p1") != game.view(state, "p1")
        caches.clear_all()
        tables.render_pair(game, context(game, "g-1", state, turn, "p1", events))
        mine = tables.render_pair(game, context(game, "g-1", other, turn, "p0", events))
        caches.clear_all()
        assert mine == tables.render_pair(game, context(game, "g-1", other, turn, "p0", events))
