"""A turn's reports (HTML and text) render each distinct table once (pbem.render.tables), and every report
stays byte-for-byte what rendering it whole gives, for positions of every shipped game from setup to the
end."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pbem.core import i18n, registry
from pbem.core.chance import Recorder
from pbem.core.game import Event
from pbem.render.reports import context, render_reports
from pbem.render.tables import TableCache, render, table_key

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


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_each_report_is_byte_identical_to_rendering_it_whole(game_type: str) -> None:
    game = registry.get_game(game_type)
    for state, turn, events in positions(game_type, seed=3, every=7):
        tables = TableCache(game.name)
        seats = [*(f"p{i}" for i in range(SEATS[game_type])), None]
        for seat in seats:
            ctx = context(game, "g-1", state, turn, seat, events, deadline="Mon 1 Jan 12:00 UTC")
            for fmt in ("html", "txt"):
                assert tables.render(ctx, fmt) == render(game.name, fmt, ctx), (game_type, turn, seat, fmt)
            # both formats of a reader keyed once: the same reports
            paired = TableCache(game.name)
            for other in seats:
                if other != seat:
                    paired.render_pair(context(game, "g-1", state, turn, other, events))
            whole = (render(game.name, "txt", ctx), render(game.name, "html", ctx))
            assert paired.render_pair(ctx) == whole, (game_type, turn, seat)


def test_reef_encounter_renders_the_table_once_a_turn() -> None:
    game = registry.get_game("reef-encounter")
    for state, turn, events in positions("reef-encounter", seed=4, every=10):
        tables = TableCache(game.name)
        for seat in ["p0", "p1", "p2", "p3", None]:
            ctx = context(game, "g-1", state, turn, seat, events)
            for fmt in ("html", "txt"):
                tables.render(ctx, fmt)
        assert tables.rendered == 2, turn  # one table a format


def test_coral_divers_renders_the_table_once_a_turn() -> None:
    game = registry.get_game("coral-divers")
    state, turn, events = positions("coral-divers", seed=4, every=10)[2]
    tables = TableCache(game.name)
    for seat in ["p0", "p1", "p2", "p3", None]:
        tables.render(context(game, "g-1", state, turn, seat, events))
    assert tables.rendered == 1


def test_a_seat_that_sees_more_of_the_table_gets_its_own() -> None:
    # Mare Balticum's view opens a seat's own warehouse and market in the players' table, so no two
    # seats may share one while the game runs; once it is over everything is open to all.
    game = registry.get_game("mare-balticum")
    found = positions("mare-balticum", seed=4, every=5)
    state, turn, events = found[3]
    assert game.outcome(state) is None
    contexts = [context(game, "g-1", state, turn, seat, events) for seat in ["p0", "p1", "p2", "p3", None]]
    for fmt in ("html", "txt"):
        assert len({table_key(game.name, ctx, fmt) for ctx in contexts}) == 5
        tables = TableCache(game.name)
        pages = [tables.render(ctx, fmt) for ctx in contexts]
        assert tables.rendered == 5
        assert pages == [render(game.name, fmt, ctx) for ctx in contexts]


def test_the_key_ignores_what_the_table_does_not_read() -> None:
    game = registry.get_game("reef-encounter")
    state, turn, events = positions("reef-encounter", seed=5, every=10)[1]
    mine, public = (context(game, "g-1", state, turn, seat, events) for seat in ["p0", None])
    assert mine["view"]["me"] != public["view"]["me"]  # the seat's screen: only in its own block
    assert table_key(game.name, mine) == table_key(game.name, public)
    changed = {**public, "view": {**public["view"], "bag": public["view"]["bag"] + 1}}
    assert table_key(game.name, changed) != table_key(game.name, public)


def test_a_context_that_cannot_be_keyed_shares_no_table() -> None:
    game = registry.get_game("reef-encounter")
    state, turn, events = positions("reef-encounter", seed=5, every=10)[1]
    unpicklable = {**context(game, "g-1", state, turn, None, events), "view": {"bag": threading.Lock()}}
    assert table_key(game.name, unpicklable) != table_key(game.name, unpicklable)


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
    for seat, text, page in rendered:
        assert ("secret note 42" in text) == (seat == "p1") and ("secret note 42" in page) == (seat == "p1")
        mine, other = (hungarian, note) if languages.get(seat) == "hu" else (note, hungarian)
        assert mine in text and other not in text and mine in page and other not in page, seat
