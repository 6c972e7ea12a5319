"""A corpus of the mistakes players make in order files, each answered in a player's words.

Every answer must name the line, the step (or the envelope field) and what to write instead, and must
hold none of the parser's or pydantic's vocabulary. The game is a real one (Reef Encounter), past its
setup, so the orders are a turn's: ``larva``, ``place``, ``pass``, ``take``.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import Engine

from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import check, submit, template
from pbem.play.turns import process

#: words that belong to YAML parsers and pydantic, never to a message a player reads
INTERNALS = re.compile(
    r"Input should|pydantic|constrained|model_type|PlaceFrom|literal_error|string_pattern|\^\[|"
    r"found character|could not find|did not find|expected <|token|scalar|mapping values|Traceback|"
    r"\[orders\.(int_parsing|list_type|model_type)\]|instance of|valid dictionary",
)


@pytest.fixture
def turn_file(engine: Engine) -> tuple[Engine, str]:
    """Reef Encounter past its setup: red's turn-2 order file (a valid one), and the engine."""
    issued = create_game(engine, "reef-encounter", "r1", [("red", "a@x.org"), ("blue", "b@x.org")], seed=5)
    for seat in ("red", "blue"):
        text = template(engine, "r1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
        assert submit(engine, text).accepted
    assert process(engine, "r1") == [1]
    body = (
        f"game: r1\nplayer: red\nturn: 2\npassword: {issued['red']}\norders:\n"
        "  - larva: orange\n  - place: Ca3\n  - pass\n  - take: yellow\n"
    )
    assert check(engine, body).ok, check(engine, body).errors
    return engine, body


#: name -> (the change to the valid file, the line the answer names, words it must hold)
CORPUS: dict[str, tuple[tuple[str, str], int, tuple[str, ...]]] = {
    "a tab indenting a step": (("  - pass", "\t- pass"), 8, ("tab", "spaces")),
    "no space after a colon": (("player: red", "player:red"), 2, ("`player: red`", "space after the colon")),
    "turn:1 (reported on its own line)": (("turn: 2", "turn:1"), 3, ("`turn: 1`", "space after the colon")),
    "a step without its space": (("- place: Ca3", "- place:Ca3"), 7, ("`- place: Ca3`",)),
    "a wrong coordinate": (("place: Ca3", "place: ac6"), 7, ("step 2", "`place`", "ac6", "Bd5", "Write")),
    "an unknown step": (("- pass", "- jump: 3"), 8, ("step 3", "`jump`", "larva, place", "pass, take")),
    "a step misspelt by one letter": (
        ("- place: Ca3", "- plase: Ca3"), 7, ("did you mean `place`", "- place: Ca3")
    ),
    "a bare step misspelt": (("- pass", "- pas"), 8, ("did you mean `pass`", "Write `- pass`")),
    "a colour that is not one": (
        ("larva: orange", "larva: purple"), 6, ("step 1", "`larva`", "purple", "yellow")
    ),
    "a step with no value": (("larva: orange", "larva:"), 6, ("`larva` needs a value", "grey, orange")),
    "a field misspelt in the envelope": (("player: red", "plaeyr: red"), 2, ("did you mean `player`",)),
    "a turn that is no number": (("turn: 2", "turn: two"), 3, ("turn", "`two`", "turn: 3")),
    "a step indented too far": (("  - place: Ca3", "    - place: Ca3"), 7, ("indent", "two spaces")),
    "orders not a list": (("orders:\n  - larva: orange\n  - place: Ca3\n  - pass\n  - take: yellow\n",
                           "orders: pass\n"), 5, ("list", "`  - ")),
}  # fmt: skip


@pytest.mark.parametrize("name", CORPUS)
def test_each_mistake_is_answered_with_the_line_the_step_and_the_fix(
    turn_file: tuple[Engine, str], name: str
) -> None:
    engine, body = turn_file
    (old, new), line, words = CORPUS[name]
    assert old in body
    answer = check(engine, body.replace(old, new, 1))
    assert not answer.ok
    assert len(answer.errors) == 1, answer.errors  # one mistake, one answer (not one per union branch)
    message = answer.errors[0]
    assert f"line {line}" in message and f"line {line + 1}" not in message, message
    for word in words:
        assert word in message, (word, message)
    assert not INTERNALS.search(message), message


def test_the_placeholder_password_is_named_not_taken_for_a_wrong_one(turn_file: tuple[Engine, str]) -> None:
    engine, body = turn_file
    password = body.split("password: ")[1].split("\n")[0]
    answer = check(engine, body.replace(password, PASSWORD_PLACEHOLDER))
    assert answer.errors == [
        "line 4, password: the file still says YOUR-PASSWORD; write there the password you were given "
        "when the game began (in the mail that started it) [auth.placeholder]"
    ]
    # the same answer for a game that does not exist: it tells nothing about which games there are
    other = check(engine, body.replace(password, PASSWORD_PLACEHOLDER).replace("game: r1", "game: nope"))
    assert other.errors == answer.errors


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: b"\xef\xbb\xbf" + text.encode(),
        lambda text: b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(),
    ],
    ids=["windows line endings", "a byte order mark", "both"],
)
def test_windows_files_are_read_and_their_lines_counted_right(turn_file: tuple[Engine, str], encode) -> None:
    engine, body = turn_file
    assert check(engine, encode(body)).ok
    answer = check(engine, encode(body.replace("place: Ca3", "place: ac6")))
    assert answer.errors and answer.errors[0].startswith("line 7, step 2 (`place: ac6`)"), answer.errors


def test_a_rules_error_names_its_line_and_step(turn_file: tuple[Engine, str]) -> None:
    engine, body = turn_file
    answer = check(engine, body.replace("  - larva: orange\n  - place: Ca3\n", "  - place: Ca3\n"))
    assert len(answer.errors) == 1
    assert answer.errors[0].startswith("line 6, step 1 (`place: Ca3`): "), answer.errors
    assert not INTERNALS.search(answer.errors[0])


def test_a_wrong_coordinate_in_coral_divers_names_the_field(engine: Engine) -> None:
    issued = create_game(engine, "coral-divers", "cd", [("ann", "a@x.org"), ("bo", "b@x.org")], seed=3)
    from pbem.play.status import status

    seat = status(engine, "cd")[0]["awaited"][0]
    text = template(engine, "cd", seat).replace(PASSWORD_PLACEHOLDER, issued[seat])
    head = text.split("orders:")[0]
    answer = check(engine, head + "orders:\n  - plant: {line: row 2}\n  - place: {tile: 1, at: z99}\n")
    assert len(answer.errors) == 1, answer.errors
    message = answer.errors[0]
    assert "step 2 (`place: {tile: 1, at: z99}`)" in message and "`place` `at`" in message, message
    assert "like e4" in message and not INTERNALS.search(message)
