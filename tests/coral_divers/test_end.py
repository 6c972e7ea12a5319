"""The end: an empty nursery the bag cannot refill; final scoring; ties by coins, then shared."""

from __future__ import annotations

from games.coral_divers import GAME

from .conftest import line, play, position

LAST: list[str | None] = ["tube"] + [None] * 15


def test_the_game_ends_when_the_nursery_is_empty_and_the_bag_too() -> None:
    state = position(nursery=LAST, reefs=[("red", {"a1": "tube"})])
    assert GAME.outcome(state) is None
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    outcome = GAME.outcome(after)
    assert outcome is not None and GAME.pending(after) == {}
    assert outcome.reason == "the nursery is empty and the bag cannot refill it"
    assert events[-1].startswith("the game is over:")


def test_the_game_goes_on_while_the_bag_can_refill() -> None:
    state = position(nursery=LAST, reefs=[("red", {"a1": "tube"})], bag={"fan": 3})
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    assert GAME.outcome(after) is None and after.nursery_count() == 3
    assert list(GAME.pending(after)) == ["blue"]


def test_the_game_goes_on_while_the_nursery_holds_tiles() -> None:
    state = position(nursery=line(["tube"]), reefs=[("red", {"a1": "tube"})])
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    assert GAME.outcome(after) is None


def test_final_scoring_counts_reefs_with_divers_shells_and_fish_schools() -> None:
    state = position(
        nursery=LAST,
        reefs=[
            ("red", {"a1": "tube", "b1": "tube*"}),
            (None, {"k9": "fan", "k8": "fan"}),  # neutral: scores nothing more
            ("blue", {"i1": "brain*", "j1": "brain*", "k1": "brain"}),
        ],
    )
    state.players["red"] = state.players["red"].__class__(
        "red", "red", 3, 10, shells=("discount", "pearl"), fish=(2, 4), used=(), discarded=1
    )
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "c1"}})
    assert after.final is not None
    red = after.final["red"]
    assert red == {"play": 10, "stations": 0, "reefs": 3 + 1, "shells": 2, "fish": 6, "total": 22}
    assert after.final["blue"] == {
        "play": 0,
        "stations": 0,
        "reefs": 3 + 2,
        "shells": 0,
        "fish": 0,
        "total": 5,
    }
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.scores == {"red": 22, "blue": 5}
    assert outcome.places == {"red": 1, "blue": 2}


def test_an_unscored_station_gives_its_low_value_to_the_leaders_only() -> None:
    reefs = [
        ("red", {"f4": "brain", "f3": "brain"}),
        ("blue", {"e5": "fan", "d5": "fan"}),
        ("yellow", {"g6": "tube"}),
    ]
    state = position(("red", "blue", "yellow"), nursery=LAST, reefs=reefs)
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f7"}})
    assert after.final is not None
    assert [after.final[s]["stations"] for s in ("red", "blue", "yellow")] == [3 + 2, 3, 0]
    assert "final scoring, station f5 (low value 3): red +3 and blue +3" in events
    # f8 (4/2): red's new tube reef on its start space f7 is alone there
    assert "final scoring, station f8 (low value 2): red +2" in events


def test_a_scored_or_reserved_station_gives_nothing_at_the_end() -> None:
    reefs = [("red", {"f4": "brain"})]
    state = position(nursery=LAST, reefs=[*reefs, ("blue", {"a1": "tube"})], stations={"f5": (6, 3, False)})
    state.active = 1
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    assert after.final is not None and after.final["red"]["stations"] == 0
    assert not any("station f5" in e for e in events)


def test_a_points_tie_goes_to_more_coins() -> None:
    state = position(
        nursery=LAST,
        reefs=[("red", {"a1": "tube"}), ("blue", {"k9": "fan", "k8": "fan"})],
        coins={"red": 5, "blue": 2},
    )
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.scores == {"red": 2, "blue": 2}
    assert outcome.places == {"red": 1, "blue": 2}
    assert outcome.tie_breaks == ("red and blue: equal on points (2); coins decide (red: 4 and blue: 2)",)


def test_a_tie_on_points_and_coins_shares_the_place() -> None:
    state = position(
        ("red", "blue", "yellow"),
        nursery=LAST,
        reefs=[("red", {"a1": "tube"}), ("blue", {"k9": "fan", "k8": "fan"})],
        coins={"red": 3, "blue": 2, "yellow": 9},
    )
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert outcome.places == {"red": 1, "blue": 1, "yellow": 3}
    assert outcome.tie_breaks == (
        "red and blue: equal on points (2); coins decide (red: 2 and blue: 2); equal coins share a place",
    )
