"""How the open games' commands are read from a mail (issue 32): the word and what follows it on its
line, a reply's Subject carrying a code, the mailed help listing each with an example."""

from __future__ import annotations

import pbem.mail  # noqa: F401 - registers the commands
from pbem.mail.commands import Command, detect, help_text
from pbem.play import lobby


def test_a_command_with_its_argument_on_its_line() -> None:
    assert detect("", "join reef-9 ann hu") == Command("join", "", "reef-9 ann hu")
    assert detect("", "Join reef-9\nseat: ann") == Command("join", "seat: ann", "reef-9")
    assert detect("", "games") == Command("games", "")
    assert detect("", "standby off") == Command("standby", "", "off")


def test_a_reply_left_empty_is_read_by_its_subject() -> None:
    subject = "Re: [pbem] confirm K7QD-M2XA-9RTE · join game reef-9"
    assert detect(subject, "") == Command("confirm", "", "k7qd-m2xa-9rte · join game reef-9")
    # a reply with words of its own is read by them, as every mail is
    assert detect(subject, "thanks!") is None


def test_a_word_alone_that_takes_an_argument_is_no_command_by_itself() -> None:
    assert detect("", "join") is not None  # registered: its lines below say the game
    assert detect("hello", "confirm") is not None


def test_codes_are_read_whatever_their_case_and_their_digests_only_are_kept() -> None:
    code = lobby.new_code()
    assert lobby.is_code(code.lower()) and lobby.is_code(f" {code}: ")
    assert lobby.code_digest(code.lower()) == lobby.code_digest(code) != code
    assert not lobby.is_code("AAAA-BBBB")


def test_the_help_lists_every_new_command_with_an_example() -> None:
    text = help_text()
    for example in ("games", "join reef-9", "leave reef-9", "standby reef-encounter", "resign", "concede"):
        assert f"\n    {example}\n" in text, example
