"""The order template's pieces that are worked out without PyYAML's emitter or textwrap each time:
the same text as those libraries give, for every input."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core import i18n
from pbem.intake.envelope import scalar_flow, yaml_flow

# the characters a game id, a seat or a step is made of, and those YAML gives a meaning
_ALPHABET = "abcxyzAEINOTY0123456789_-.:+~#&*!|>'\"%@`,?[]{}= \t"

# words PyYAML's resolver reads as something other than a string, and near misses that it does not
_WORDS = [
    *("on", "On", "ON", "off", "yes", "Yes", "no", "NO", "true", "True", "false", "FALSE", "y", "n"),
    *("null", "Null", "NULL", "~", "", "12", "-1", "+1", "1_000", "0x1f", "0o17", "017", "0b101"),
    *("1.5", ".5", "1e3", "1.0e+3", ".inf", "-.Inf", ".nan", "NaN", "1:20", "190:20:30", "=", "<<"),
    *("2024-01-01", "2024-1-1", "2024-01-01t10:00:00z", "2001-12-14 21:59:43.10 -5", "-", "a-", "-a"),
    *("mail-0", "reef-1", "ann", "_x", "a.b", "a..b", "a--b", "x_1.2-3", "yes-no", "on.off", "1-2-3"),
]


@pytest.mark.parametrize("word", _WORDS)
def test_a_word_is_written_as_pyyamls_emitter_writes_it(word: str) -> None:
    assert scalar_flow(word) == yaml_flow(word)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=12))
def test_any_text_is_written_as_pyyamls_emitter_writes_it(text: str) -> None:
    assert scalar_flow(text) == yaml_flow(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=8))
def test_any_unicode_text_is_written_as_pyyamls_emitter_writes_it(text: str) -> None:
    assert scalar_flow(text) == yaml_flow(text)


@pytest.mark.parametrize(
    "value", [7, 1.5, True, None, ["a", "on"], {"feed": "Ad5"}, {"at": "b3", "from": "front"}]
)
def test_other_values_are_pyyamls_own(value: object) -> None:
    assert scalar_flow(value) == yaml_flow(value)


_SENTENCES = st.text(alphabet="abc def,;:-()0123456789 ", min_size=0, max_size=200)


@settings(max_examples=300, deadline=None)
@given(_SENTENCES, st.integers(min_value=10, max_value=90), st.sampled_from(["# ", "#   ", "  # "]))
def test_a_comment_is_wrapped_as_textwrap_wraps_it(text: str, width: int, lead: str) -> None:
    with i18n.language("en"):
        got = i18n.comment(text, lead=lead, width=width)
    lines = textwrap.wrap(text, width - len(lead), break_on_hyphens=False, break_long_words=False) or [""]
    assert got == [lead + lines[0], *(lead + line for line in lines[1:])]
    # asked again (now from the cache): the same lines, and a list of its own to change
    again = i18n.comment(text, lead=lead, width=width)
    assert again == got and again is not got


def test_a_comment_is_in_each_readers_language_however_often_it_was_wrapped() -> None:
    message = "steps run in the order written; action numbers as in the rules."
    with i18n.language("en"):
        english = i18n.comment(message)
    with i18n.language("hu"):
        hungarian = i18n.comment(message)
        words = i18n.gettext(message)
    with i18n.language("en"):
        assert i18n.comment(message) == english
    assert english == ["# " + message]
    assert words != message  # the catalog has it: the cache must not answer in English
    expected = textwrap.wrap(words, 74, break_on_hyphens=False, break_long_words=False)
    assert hungarian == ["# " + line for line in expected]
