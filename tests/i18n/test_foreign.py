"""The scanners of foreign words find what a reader would stumble on, and leave the order grammar,
ids and names alone (tests/i18n/foreign.py)."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from tests.i18n.foreign import english_words, language_of, latin_in_chinese, misdeclared, order_words


def test_an_english_frame_around_a_translated_line_is_found() -> None:
    reply = (
        "Your orders (read from the body) were NOT accepted:\n6. sor, 1. oszlop: tabulátor.\nNothing changed."
    )
    assert english_words(reply, "hu")[:4] == ["Your", "orders", "read", "from"]
    assert "changed" in english_words(reply, "hu")


def test_the_order_grammar_ids_and_names_are_not_english_prose() -> None:
    template = (
        "game: reef-7\nplayer: ann\npassword: YOUR-PASSWORD\norders:\n"
        "  - larva: orange      # a lárvakocka színe\n  - place: {at: Bd5, from: front}\n  - pass\n"
        "Írd a `take` lépést utoljára; ültetés (plant); írj a ann@example.org címre: https://x.org/a_b"
    )
    assert english_words(template, "hu", allowed=["ann"]) == []


def test_a_keyword_used_as_a_word_is_english_and_a_colour_value_in_prose_too() -> None:
    assert english_words("Ültess egy row 1 sort", "hu") == ["row"]
    assert latin_in_chinese("打出了 orange 珊瑚幼虫，吃掉 polyp") == ["orange", "polyp"]
    assert "place" in order_words() and "orange" not in order_words()


def test_latin_inside_chinese_is_found_line_by_line_and_code_is_not() -> None:
    text = "图例：G 绿色\nGame: reef-7\n`take` 总是最后一步（take）\n轮到 ann 行动"
    assert latin_in_chinese(text, allowed=["ann"]) == ["G"]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Your orders for turn 3 were accepted.", "en"),
        ("A 3. lépés parancsait elfogadtuk, és nem kell mást tenned.", "hu"),
        ("Vaše rozkazy na tah 3 jsme přijali a nic dalšího není třeba.", "cs"),
        ("你第 3 回合的指令已被接受。", "zh"),
        ("Ваши приказы на ход 3 приняты.", "ru"),
        # á and í are Czech as much as Hungarian; ids in Latin letters are no language's words
        ("Vaše hlášení je na konci, tah 3 a další místa", "cs"),
        ("Ваш корабль: gdansk-deep, gulf-of-riga; ход 3.", "ru"),
    ],
)
def test_the_language_of_a_text_is_told_by_its_letters_and_small_words(text: str, lang: str) -> None:
    assert language_of(text) == lang


def test_a_content_language_that_does_not_match_the_words_is_reported() -> None:
    mail = EmailMessage()
    mail.set_content("A 3. lépés parancsait elfogadtuk, és nem kell mást tenned.")
    mail["Content-Language"] = "en"
    assert misdeclared(mail) == "Content-Language en, but the text reads as hu"
    mail.replace_header("Content-Language", "hu")
    assert misdeclared(mail) is None


def test_a_line_ending_in_a_colon_does_not_hide_the_order_line_after_it() -> None:
    text = "  #   amelynek ez a nagy algája:\n  #   - algae: {pay: orange, colour: blue, to: space}\n"
    assert english_words(text, "hu") == []
