"""Reef Encounter's events and report tables in the reader's words: each event a whole sentence (its
count in the reader's plural form, its colours the glossary's), nothing of it left in English.

A stand-in catalog (a made-up Hungarian) stands for the real ones, whose entries the translators
fill after the fact: the test is about the sentences being whole, not about the catalogs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.reef_encounter import GAME
from pbem.core import i18n
from pbem.core.game import Event
from pbem.render.tables import render
from pbem.storage.history import dump_events, load_event

from .conftest import ScriptedChance, make_state, turn
from .test_placement import play, with_polyps
from .test_reports import context

WORDS = {
    "{seat} took the {space} open-sea space: the {space} larva and {polyps}": (
        "{seat} elvette a(z) {space} nyílt tengeri mezőt: a(z) {space} lárvát és {polyps}"
    ),
    "{n} {colour}": "{n} {colour}",
    "{first} and {last}": "{first} és {last}",
    "the open sea was refilled: {draws}": "a nyílt tenger feltöltődött: {draws}",
    "{colour} to {space}": "{colour} ide: {space}",
    "{seat} played their {colour} larva cube and {n} polyp: {spaces}": "x",
    "{space} ({notes})": "{space} ({notes})",
    "attack, ate {colour}": "támadás, megette: {colour}",
    "{seat} took larva cubes: {first} and {second}": "{seat} lárvakockákat vett: {first} és {second}",
}
# the plural entries: (singular) → the form for one, the form for more
FORMS = {
    "{n} polyp ({colours})": ("{n} polipot ({colours})", "{n} polipot ({colours})"),
    "{seat} played their {colour} larva cube and {n} polyp: {spaces}": (
        "{seat} kijátszotta {colour} lárvakockáját és {n} polipot: {spaces}",
        "{seat} kijátszotta {colour} lárvakockáját és {n} polipot: {spaces}",
    ),
}
COLOURS = {
    "grey": "szürke",
    "orange": "narancssárga",
    "pink": "rózsaszín",
    "white": "fehér",
    "yellow": "sárga",
    "blue": "kék",
    "green": "zöld",
    "purple": "lila",
    "red": "vörös",
}
ENGLISH = (
    "took",
    "open-sea",
    "larva",
    "polyp",
    "refilled",
    " to ",
    "attack",
    " and ",
    "grey",
    "pink",
    "white",
)


@pytest.fixture
def catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "gettext", lambda message: WORDS.get(message, message))
    monkeypatch.setattr(
        i18n, "pgettext", lambda context, word: COLOURS.get(word, word) if context == "colour" else word
    )

    def plural(singular: str, plural_form: str, n: int) -> str:
        forms = FORMS.get(singular)
        return (singular if n == 1 else plural_form) if forms is None else forms[n != 1]

    monkeypatch.setattr(i18n, "plural", plural)


def shown(text: Any) -> str:
    """The event as a report shows it, after it was stored and loaded again (as every report does)."""
    stored = json.loads(json.dumps(dump_events([Event(text)])))
    back = load_event(stored[0])
    assert back.text == text  # the English words are kept as they were
    return i18n._(back.text)


def test_taking_from_the_open_sea_is_said_whole_with_its_count_and_colours(catalog: None) -> None:
    _, events = turn(make_state(), [{"take": "pink"}], ScriptedChance([0] * 5))
    assert events[0] == "purple took the pink open-sea space: the pink larva and 1 polyp (1 pink)"
    took = shown(events[0])
    assert (
        took == "purple elvette a(z) rózsaszín nyílt tengeri mezőt: a(z) rózsaszín lárvát és "
        "1 polipot (1 rózsaszín)"
    )
    refill = shown(events[1])
    assert refill.startswith("a nyílt tenger feltöltődött: szürke ide: fehér, szürke ide: sárga")
    for said in (took, refill):
        assert not [word for word in ENGLISH if word in said], said


def test_a_larva_action_with_an_attack_is_said_whole(catalog: None) -> None:
    state = with_polyps(
        {"Ba2": "yellow", "Ba3": "yellow", "Bb2": "orange", "Bc2": "orange"}, {"Ba2": "green"}
    )
    _, events = turn(state, play("yellow", "Bb2"))
    said = shown(events[0])
    assert said == "purple kijátszotta sárga lárvakockáját és 1 polipot: Bb2 (támadás, megette: narancssárga)"
    assert not [word for word in ENGLISH if word in said], said


def test_the_report_tables_say_the_colours_and_tiles_in_the_readers_words(catalog: None) -> None:
    state = make_state()
    text = render("reef-encounter", "txt", context(state, "purple"))
    assert "(colour: lila)" in text  # the header: the seat's colour
    sea = text.split("OPEN SEA", 1)[1].split("CORAL TILES", 1)[0]
    assert "rózsaszín" in sea and "szürke" in sea
    tiles = text.split("CORAL TILES", 1)[1].split("COLOUR VALUES", 1)[0]
    assert "fehér-sárga" in tiles and "white" not in tiles and "yellow" not in tiles
    values = text.split("COLOUR VALUES", 1)[1].split("\n", 1)[0]
    assert "szürke" in values and "grey" not in values
    html = render("reef-encounter", "html", context(state, "purple"))
    assert "fehér-sárga" in html and "(colour: lila)" in html


def test_the_words_stay_english_for_orders_and_hashes() -> None:
    view = GAME.view(make_state(), "purple")
    assert (
        view["colours"]["purple"] == "purple"
        and json.dumps(view["colours"]) == '{"purple": "purple", "green": "green"}'
    )


# events as games stored them before their sentences were whole: their old messages, or plain words
OLD_EVENTS = [
    {"text": "alice played an orange larva and 1 polyp: Bc4", "to": None, "data": {}},
    {
        "text": "alice took larva cubes: grey and pink",
        "to": None,
        "data": {},
        "msgid": "{seat} took larva cubes: {cubes}",
        "params": {"seat": "alice", "cubes": "grey and pink"},
    },
]


@pytest.mark.parametrize("entry", OLD_EVENTS)
def test_an_event_stored_before_still_shows_in_its_english_words(
    catalog: None, entry: dict[str, Any]
) -> None:
    assert i18n._(load_event(entry).text) == entry["text"]


def test_a_rules_error_with_a_count_picks_the_readers_form(
    catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.reef_encounter.sea import feed_problem

    state = make_state(polyps={"Bb2": "grey", "Bb3": "grey"}, shrimp={"Bb2": "purple"})
    code, message = feed_problem(state, "purple", "Bb2")
    assert (code, message) == ("feed.too_small", "the coral at Bb2 has 2 polyps; feeding needs at least 5")
    monkeypatch.setitem(
        FORMS, "the coral at {space} has {n} polyp; feeding needs at least 5", ("{n} egy", "{n} sok")
    )
    assert i18n._(message) == "2 sok"


def test_the_html_boards_and_open_sea_list_their_polyps_in_the_readers_words(catalog: None) -> None:
    state = make_state(polyps={"Bb2": "orange"})
    html = render("reef-encounter", "html", context(state, "purple"))
    assert "b2 narancssárga" in html
    sea = html.split("algae space", 1)[0]
    assert "rózsaszín" in sea and ", pink" not in sea and ": pink" not in sea


OLD_ARCHIVE = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "archives"
    / "reef-encounter-before-whole-sentences.yaml"
)


def test_an_archive_made_before_replays_to_its_hashes_and_imports_with_whole_sentences(
    tmp_path: Path,
) -> None:
    from tests.host.conftest import run_pbem

    verified = run_pbem("replay", str(OLD_ARCHIVE), "--verify")
    assert verified.returncode == 0, verified.stderr
    assert "31 turns replayed; every state hash matches" in verified.stdout
    db = f"sqlite:///{tmp_path / 'g.sqlite'}"
    assert run_pbem("import", str(OLD_ARCHIVE), "--db", db).returncode == 0
    shown = run_pbem("report", "demo-3", "--player", "alice", "--turn", "2", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "alice played their grey larva cube and 1 polyp: Ac4 (extra growth on Ad4)" in shown.stdout
