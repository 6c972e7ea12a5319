"""Reading order files: the size limit, the encoding and a YAML loader with no aliases or deep nesting."""

from __future__ import annotations

import pytest

from pbem.orderfile import MAX_BYTES, OrderFileError, load


def error_of(raw: str | bytes) -> OrderFileError:
    with pytest.raises(OrderFileError) as caught:
        load(raw)
    return caught.value


def test_plain_orders_read_as_data() -> None:
    assert load("game: g\norders:\n  - bid: 3\n  - pass\n") == {"game": "g", "orders": [{"bid": 3}, "pass"]}


def test_size_is_checked_on_bytes_before_decoding() -> None:
    ten_megabytes = b"\xff" * (10 * 1024 * 1024)  # not UTF-8 either: the size must be the error named
    err = error_of(ten_megabytes)
    assert (err.step, err.code) == ("size", "input.too_large")
    assert "10,485,760 bytes" in err.message
    assert load(b"a: " + b"x" * (MAX_BYTES - 10)) is not None  # just under the limit is read


def test_text_must_be_utf8() -> None:
    err = error_of("game: caf\u00e9".encode("latin-1"))
    assert (err.step, err.code) == ("encoding", "input.not_utf8")
    assert load("game: caf\u00e9".encode()) == {"game": "caf\u00e9"}


def test_a_byte_order_mark_is_ignored() -> None:
    assert load("\ufeffgame: g".encode()) == {"game": "g"}


def test_alias_bomb_is_refused_before_expansion() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    err = error_of(bomb)
    assert err.code == "yaml.alias"
    assert "line 1" in err.message


def test_a_lone_anchor_is_refused_too() -> None:
    assert error_of("orders: &mine [pass]").code == "yaml.alias"


def test_merge_keys_need_aliases_and_are_refused() -> None:
    assert error_of("base: &b {x: 1}\nmore:\n  <<: *b\n").code == "yaml.alias"


def test_nesting_deeper_than_any_order_is_refused() -> None:
    assert error_of("[" * 25 + "]" * 25).code == "yaml.too_deep"
    assert load("[" * 5 + "]" * 5) == [[[[[]]]]]


def test_a_key_given_twice_is_refused() -> None:
    err = error_of("turn: 3\nturn: 4\n")
    assert err.code == "yaml.duplicate_key"
    assert "'turn' is given twice" in err.message


def test_python_tags_are_refused() -> None:
    err = error_of("orders: !!python/object/apply:os.system ['true']")
    assert err.code == "yaml.syntax"
    assert "tags" in err.message


def test_two_documents_are_refused() -> None:
    err = error_of("game: a\n---\ngame: b\n")
    assert "more than one YAML document" in err.message


def test_broken_yaml_names_line_and_column() -> None:
    err = error_of("game: g\norders: [bid: 3\n")
    assert err.step == "yaml"
    assert err.message.startswith("line ")


def test_a_control_character_is_a_clear_error() -> None:
    err = error_of(b"\x02")
    assert (err.step, err.code) == ("yaml", "yaml.unprintable")
    assert err.message == "character 1 is a control character (#x0002); orders are plain text"
    assert error_of("game: g\norders: [\x07]").code == "yaml.unprintable"
