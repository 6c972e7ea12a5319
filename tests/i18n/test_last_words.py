"""The last English words of issue 15: Coral Divers' nursery lines and slots, its tie-breaks after a
reload and its end-of-game seabed tokens; Reef Encounter's lists of seats and counts; the report's
header. Each is rendered in another language through the real catalogs."""

from __future__ import annotations

import json

import pytest

from games.coral_divers import GAME
from games.reef_encounter.setup import new_game
from games.reef_encounter.words import counts
from pbem.core.game import GameError
from pbem.core.i18n import _, language
from pbem.render.tables import render
from tests.coral_divers.conftest import FirstChance, line, play, position, refused
from tests.coral_divers.test_reports import context

LAST: list[str | None] = ["tube"] + [None] * 15
TIED = dict(nursery=LAST, reefs=[("red", {"a1": "tube"}), ("blue", {"k9": "fan", "k8": "fan"})])


def test_a_planted_line_and_a_refused_column_are_said_in_the_readers_words() -> None:
    _after, events = play(
        position(nursery=line(["brain", "fan"])),
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"discard": {"tile": 2}},
    )
    assert str(events[0]).startswith("red planted row 1 for 2 coins")  # the English as before
    with language("cs"):
        said = _(events[0])
    assert "řada 1" in said and "row 1" not in said
    err = refused(position(), {"plant": {"line": "column 2"}})
    with language("ru"):
        message = err.message  # translated as it is read
    assert "столбец 2" in message and "column" not in message


def test_an_extra_tiles_slot_is_said_in_the_readers_words() -> None:
    nursery = line(["brain", "fan"])
    nursery[15] = "brain"
    state = position(nursery=nursery, reefs=[("red", {"f4": "brain"})], shells={"red": ["extra-tile"]})
    _after, events = play(
        state,
        {"shell": {"kind": "extra-tile", "row": 4, "column": 4}},
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f3"}},
        {"discard": {"tile": 2}},
        {"place": {"tile": 3, "at": "f2"}},
    )
    with language("zh"):
        said = _(events[0])
    assert "第 4 行第 4 列" in said and "row" not in said


def test_tie_breaks_read_in_the_readers_language_after_a_reload() -> None:
    after, _events = play(
        position(coins={"red": 5, "blue": 2}, **TIED),
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "a2"}},
    )
    fresh = GAME.outcome(after)
    # through JSON as the database stores it: a message's parameters do not survive that
    reloaded = GAME.outcome(GAME.load_state(json.loads(json.dumps(GAME.dump_state(after)))))
    assert fresh is not None and reloaded is not None
    english = "red and blue: equal on points (2); coins decide (red: 4 and blue: 2)"
    assert fresh.tie_breaks == reloaded.tie_breaks == (english,)
    with language("ru"):
        assert [_(t) for t in reloaded.tie_breaks] == [_(t) for t in fresh.tie_breaks]
        assert _(reloaded.tie_breaks[0]) != english and "red" in _(reloaded.tie_breaks[0])


def test_the_seabed_tokens_left_at_the_end_are_titled_in_the_readers_words() -> None:
    seabed = {"j9": "pearl", "j8": "fish-3"}
    after, _events = play(
        position(coins={"red": 5, "blue": 2}, seabed=seabed, **TIED),
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "a2"}},
    )
    assert GAME.outcome(after) is not None
    english = render("coral-divers", "html", context(after, "red"))
    assert "<title>pearl</title>" in english and "<title>fish school 3</title>" in english
    with language("ru"):
        html = render("coral-divers", "html", context(after, "red"))
    assert "<title>pearl</title>" not in html and "<title>fish-3</title>" not in html
    assert "<title>косяк рыб 3</title>" in html and ">косяк 3</text>" in html
    assert "seabed token pearl" not in html and "fish school" not in html


def test_the_text_reefs_table_counts_tiles_with_the_languages_plural() -> None:
    state = position(reefs=[("red", {"f4": "brain", "f3": "brain"}), (None, {"a1": "tube"})])
    with language("ru"):
        text = render("coral-divers", "txt", context(state, "red"))
    assert "2 жетона," in text and "1 жетон," in text
    assert "tiles," not in text and "tile," not in text
    with language("cs"):
        text = render("coral-divers", "txt", context(state, "red"))
    assert "řada 1: " in text and "row 1:" not in text  # the nursery's line costs


def test_reef_encounters_lists_of_counts_and_seats_take_the_languages_comma() -> None:
    numbers = counts({"grey": 1, "white": 2})
    assert str(numbers) == "1 grey, 2 white"
    with language("zh"):
        assert "、" in _(numbers) and ", " not in _(numbers)
    with pytest.raises(GameError) as info:
        new_game(["ann", "bob", "cy"], False, "dee", FirstChance())
    assert str(info.value.text) == "starting_player dee is not one of the seats ann, bob and cy"
    with language("zh"):
        assert "ann、bob" in _(info.value.text) and "ann, bob" not in _(info.value.text)


@pytest.mark.parametrize(("code", "header"), [("cs", "(barva: červená)"), ("en", "(colour: red)")])
def test_the_reports_header_gives_the_colour_as_a_label(code: str, header: str) -> None:
    with language(code):
        text = render("coral-divers", "txt", context(position(), "red"))
    assert header in text.splitlines()[1]
