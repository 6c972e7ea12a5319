"""A turn's reports render each distinct table once (pbem.render.tables): from the game's table inputs
alone, kept by them, and every report stays byte for byte what rendering it afresh gives, for positions
of every shipped game from setup to the end."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.core import caches, i18n, registry
from pbem.core.chance import Recorder
from pbem.core.game import Event
from pbem.render import tables
from pbem.render.reports import context, render_reports
from pbem.render.tables import render, table_key

SEATS = {"reef-encounter": 4, "mare-balticum": 4, "coral-divers": 4}
MAX_TURNS = 2_000


def positions(game_type: str, seed: int, every: int) -> list[tuple[Any, int, list[Event]]]:
    """Some (state, turn, events) of one bot game: the setup, every ``every``-th turn, and the end."""
    game = registry.get_game(game_type)
    seats = [f"p{i}" for i in range(SEATS[game_type])]
    state = game.setup(seats, game.options_model(), Recorder.for_turn(seed, 0, 0))
    found: list[tuple[Any, int, list[Event]]] = [(state, 0, [])]
    for number in range(1, MAX_TURNS + 1):
        pending = game.pending(state)
        if not pending:
            break
        orders = {}
        for seat, decision in pending.items():
            data = game.bot(state, seat, Recorder.for_turn(seed, 0, number, f"bot:{seat}"))
            orders[seat] = game.order_model(decision).model_validate(data)
        resolution = game.resolve(state, orders, Recorder.for_turn(seed, 0, number))
        state = resolution.state
        if number % every == 0 or not game.pending(state):
            found.append((state, number, list(resolution.events)))
    assert game.outcome(state) is not None, f"{game_type} seed {seed} did not end"
    return found


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every table rendered (game, format), the caches forgotten first and after."""
    caches.clear_all()
    rendered: list[tuple[str, str]] = []
    real = tables._render_table

    def counting(game_name: str, fmt: str, inputs: Any) -> str:
        rendered.append((game_name, fmt))
        return real(game_name, fmt, inputs)

    monkeypatch.setattr(tables, "_render_table", counting)
    yield rendered
    caches.clear_all()


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_each_report_is_byte_identical_to_rendering_it_afresh(game_type: str) -> None:
    game = registry.get_game(game_type)
    seats = [*(f"p{i}" for i in range(SEATS[game_type])), None]
    for state, turn, events in positions(game_type, seed=3, every=7):
        contexts = [
            context(game, "g-1", state, turn, s, events, deadline="Mon 1 Jan 12:00 UTC") for s in seats
        ]
        shared = [tables.render_pair(game, ctx) for ctx in contexts]  # tables from the first reader's
        for seat, ctx, pair in zip(seats, contexts, shared, strict=True):
            caches.clear_all()
            afresh = (render(game, "txt", ctx), render(game, "html", ctx))
            assert pair == afresh, (game_type, turn, seat)


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_every_shipped_game_renders_its_table_once_a_turn(game_type: str, counted: list[Any]) -> None:
    # no shipped game's table shows a seat anything of its own: one table a format for all five readers
    game = registry.get_game(game_type)
    for state, turn, events in positions(game_type, seed=4, every=10)[:4]:
        counted.clear()
        for seat in [*(f"p{i}" for i in range(SEATS[game_type])), None]:
            tables.render_pair(game, context(game, "g-1", state, turn, seat, events))
        assert sorted(counted) == [(game.name, "html"), (game.name, "txt")], turn


def test_the_inputs_leave_out_what_is_a_seats_own() -> None:
    game = registry.get_game("reef-encounter")
    state, turn, events = positions("reef-encounter", seed=5, every=10)[1]
    mine, public = (context(game, "g-1", state, turn, seat, events)["view"] for seat in ["p0", None])
    assert mine["me"] != public["me"]  # the seat's screen: only in its own block
    assert "me" not in game.table_inputs(mine)
    assert table_key(game, mine)[1] == table_key(game, public)[1]
    changed = {**public, "bag": public["bag"] + 1}
    assert table_key(game, changed)[1] != table_key(game, public)[1]


def test_mare_balticum_shows_every_seat_the_same_players_table_while_holdings_stay_its_own() -> None:
    game = registry.get_game("mare-balticum")
    state, turn, events = positions("mare-balticum", seed=4, every=5)[3]
    assert game.outcome(state) is None
    views = [context(game, "g-1", state, turn, seat, events)["view"] for seat in ["p0", "p1", None]]
    assert (
        views[0]["players"]["p0"]["warehouse"] is not None and views[1]["players"]["p0"]["warehouse"] is None
    )
    inputs = [game.table_inputs(v) for v in views]
    assert inputs[0] == inputs[1] == inputs[2]
    assert all("warehouse" not in p and "market" not in p for p in inputs[0]["players"].values())


def test_inputs_that_cannot_be_pickled_have_no_key_to_share() -> None:
    class Opaque:
        name = "reef-encounter"

        def table_inputs(self, view: Any) -> Any:
            return {"lock": threading.Lock()}

    assert table_key(Opaque(), {})[1] is None  # type: ignore[arg-type]


def test_an_events_words_are_shared_by_the_readers_of_a_language_and_a_private_one_by_none() -> None:
    # render_reports keeps each event's words per language for the turn's next reader: a private event
    # still reaches only its seat, and each reader gets the words of their own language
    game = registry.get_game("reef-encounter")
    state, turn, _events = positions("reef-encounter", seed=5, every=10)[1]
    note = "This game was recorded elsewhere and imported."
    events = [Event("secret note 42", to="p1"), Event(note)]
    languages = {"p0": "en", "p1": "hu", "p2": "en", "p3": "hu"}
    rendered = render_reports(game, "g-1", list(languages), state, turn, events, None, languages=languages)
    with i18n.language("hu"):
        hungarian = i18n._(note)
    assert hungarian != note
    for seat, text, page, _table_at in rendered:
        assert ("secret note 42" in text) == (seat == "p1") and ("secret note 42" in page) == (seat == "p1")
        mine, other = (hungarian, note) if languages.get(seat) == "hu" else (note, hungarian)
        assert mine in text and other not in text and mine in page and other not in page, seat
