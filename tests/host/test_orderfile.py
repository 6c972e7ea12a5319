"""Reading order files: the size limit, the encoding and a YAML loader with no aliases or deep nesting."""

from __future__ import annotations

import contextlib
import gc
import subprocess
import sys
from typing import Any

import pytest
import yaml

from pbem.intake import orderfile
from pbem.intake.orderfile import MAX_BYTES, MAX_DEPTH, OrderFileError, load


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


@pytest.fixture(params=["libyaml", "python"])
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test using it runs with libyaml's parser and with the pure-Python fallback."""
    if request.param == "libyaml":
        monkeypatch.setattr(orderfile, "_Loader", orderfile._COrderLoader)
    else:
        monkeypatch.setattr(orderfile, "_Loader", orderfile._PyOrderLoader)
    return str(request.param)


def answer(raw: str | bytes, loader_class: Any) -> tuple[Any, ...]:
    """What ``load`` answers with ``loader_class``: the data, or the error's step, code and message."""
    saved = orderfile._Loader
    orderfile._Loader = loader_class
    try:
        return ("data", load(raw))
    except OrderFileError as exc:
        return ("error", exc.step, exc.code, exc.message)
    finally:
        orderfile._Loader = saved


SAME_ANSWER = {
    "orders": "game: g\nplayer: ann\nturn: 3\npassword: tulip-frog-42\norders:\n  - bid: 3\n  - pass\n",
    "flow orders": "{game: g, orders: [{place: Bd5}, {move: [a1, b2]}, pass]}",
    "scalars": "a: 1\nb: -2.5\nc: true\nd: ~\ne: 0x1f\nf: 1_000\ng: 2001-12-14\nh: .inf\ni: '007'\n",
    "strings": 'a: "caf\\u00e9 \\t tab"\nb: |\n  two\n  lines\nc: >\n  folded\n  text\nd: \u00e9\u20ac\n',
    "byte order mark": "\ufeffgame: g".encode(),
    "empty": "",
    "only a comment": "# nothing\n",
    "a list": "- game\n- player\n",
    "nesting at the limit (flow)": "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "nesting at the limit (block)": "".join("  " * i + "-\n" for i in range(MAX_DEPTH - 1))
    + "  " * (MAX_DEPTH - 1)
    + "- x\n",
    "alias": "a: &a [1]\nb: *a\n",
    "lone anchor": "orders: &mine [pass]",
    "merge key": "base: &b {x: 1}\nmore:\n  <<: *b\n",
    "one level too deep (flow)": "orders: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    "one level too deep (block)": "orders:\n"
    + "".join("  " * i + "-\n" for i in range(MAX_DEPTH))
    + "  - x\n",
    "5,000 levels on one line": "orders: " + "[" * 5_000 + "]" * 5_000,
    "past libyaml's own 1,000 levels": "orders: " + "{a: " * 1_500 + "}" * 1_500,
    "an anchor before 1,500 levels": "orders: &a " + "[" * 1_500 + "]" * 1_500,
    "too deep then an alias": "a: " + "[" * 30 + "]" * 30 + "\nb: *x\n",
    "duplicate key": "turn: 3\nturn: 4\n",
    "list as key": "? [a, b]\n: 1\n",
    "mapping as key": "{? {a: 1} : 2}",
    "python tag": "orders: !!python/object/apply:os.system ['true']",
    "local tag": "orders: !mine x",
    "two documents": "game: a\n---\ngame: b\n",
    "control character": "game: g\norders: [\x07]",
    "not UTF-8": "game: caf\u00e9".encode("latin-1"),
    "too large": b"a: " + b"x" * MAX_BYTES,
}
#: refused by each parser in words of its own: the code and the line are the same, not the wording
SAME_CODE = {
    "unclosed flow": "game: g\norders: [bid: 3\n",
    "bad indentation": "game: g\n  orders: x\n",
    "a tab where a token starts": "game: g\n\t- x\n",
    "unclosed quote": 'game: "g\n',
}


def test_libyaml_reads_order_files() -> None:
    # The reader's 100 ms bound on a legal file holds with libyaml's parser (PyYAML's wheels carry
    # it); on a PyYAML built without it the fallback answers the same, slower, and this says so.
    assert yaml.__with_libyaml__, (
        "PyYAML was built without libyaml: order files are read by the slow fallback"
    )
    assert orderfile._Loader is orderfile._COrderLoader


@pytest.mark.parametrize("name", SAME_ANSWER)
def test_libyaml_and_the_python_fallback_give_the_same_answer(name: str) -> None:
    raw = SAME_ANSWER[name]
    assert answer(raw, orderfile._COrderLoader) == answer(raw, orderfile._PyOrderLoader)


@pytest.mark.parametrize("name", SAME_CODE)
def test_libyaml_and_the_python_fallback_refuse_broken_yaml_alike(name: str) -> None:
    fast, slow = (
        answer(SAME_CODE[name], orderfile._COrderLoader),
        answer(SAME_CODE[name], orderfile._PyOrderLoader),
    )
    assert fast[:3] == slow[:3] == ("error", "yaml", "yaml.syntax")
    assert fast[3].split(",")[0] == slow[3].split(",")[0]  # "line N"


def test_libyaml_refuses_an_escaped_surrogate() -> None:
    # The pure-Python scanner lets "\ud800" through as a lone surrogate, which no UTF-8 text can hold.
    err = error_of('game: g\nplayer: "\\ud800"\n')
    assert (err.code, err.message) == (
        "yaml.syntax",
        "line 2, column 12: a backslash escape in double quotes that is not a character; write the "
        "character itself, or use single quotes",
    )


def test_deep_nesting_is_refused_where_it_goes_too_deep(loader: str) -> None:
    err = error_of("orders: " + "[" * 5_000 + "]" * 5_000)
    assert (err.code, err.message) == (
        "yaml.too_deep",
        f"line 1, column {8 + MAX_DEPTH}: nested deeper than 20 levels",  # the mapping is the first level
    )
    block = "orders:\n" + "".join("  " * i + "-\n" for i in range(MAX_DEPTH)) + "  " * MAX_DEPTH + "- x\n"
    assert (
        error_of(block).message
        == f"line {MAX_DEPTH + 1}, column {2 * MAX_DEPTH - 1}: nested deeper than 20 levels"
    )
    value: Any = load("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for _level in range(MAX_DEPTH - 1):
        (value,) = value
    assert value == []


def test_twenty_thousand_items_on_one_line_are_too_large(loader: str) -> None:
    err = error_of("orders: [" + "1, " * 20_000 + "]\n")
    assert (err.step, err.code) == ("size", "input.too_large")


def test_the_longest_legal_line_is_read(loader: str) -> None:
    items = (MAX_BYTES - len("orders: [1]\n")) // 2
    raw = ("orders: [" + "1," * items + "1]\n").encode()
    assert len(raw) == MAX_BYTES - (MAX_BYTES - len("orders: [1]\n")) % 2
    assert load(raw) == {"orders": [1] * (items + 1)}


def test_a_scalar_filling_the_file_is_read(loader: str) -> None:
    raw = b"game: " + b"g" * (MAX_BYTES - len("game: \n")) + b"\n"
    assert len(raw) == MAX_BYTES
    assert load(raw) == {"game": "g" * (MAX_BYTES - 7)}
    assert error_of(raw + b"g").code == "input.too_large"


def test_archives_read_past_the_order_limits(loader: str) -> None:
    nested = "[" * 40 + "]" * 40
    assert error_of(nested).code == "yaml.too_deep"
    assert load(nested, max_depth=64) is not None
    big = "turns:\n" + "  - {turn: 1, orders: [pass, {bid: 3}]}\n" * 5_000
    assert len(big.encode()) > MAX_BYTES
    assert load(big, max_bytes=1024 * 1024)["turns"][4_999] == {"turn": 1, "orders": ["pass", {"bid": 3}]}


def test_the_garbage_collector_is_left_as_it_was(loader: str) -> None:
    assert gc.isenabled()
    for raw in ("game: g", "orders: " + "[" * 5_000, "game: [", "a: &a 1"):
        with contextlib.suppress(OrderFileError):
            load(raw)
        assert gc.isenabled()
    gc.disable()
    try:
        load("game: g")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("text", "code", "column"),
    [
        ("x: 2001-02-30", "yaml.value", 4),  # a date that does not exist
        ("x: 0x_", "yaml.value", 4),
        ("x: !!bool maybe", "yaml.value", 4),
        ("x: !!timestamp x", "yaml.value", 4),
        ("? !!set {a}\n: 1", "yaml.key", 3),  # a set as a key
    ],
)
def test_a_value_yaml_cannot_build_is_an_answer_not_a_traceback(
    loader: str, text: str, code: str, column: int
) -> None:
    err = error_of(text)
    assert (err.step, err.code) == ("yaml", code)
    assert err.message.startswith(f"line 1, column {column}: ")


# ------------------------------------------------------------------ every game's files, and odd ones


def game_files() -> dict[str, str]:
    """Order files as players get them: each game's template (every comment in it) and the bot's
    choice, the first turns of a 4-seat game of each."""
    from pbem.core import registry
    from pbem.core.chance import Recorder
    from pbem.intake.envelope import order_template, orders_yaml

    files = {}
    for name in ("reef-encounter", "mare-balticum", "coral-divers"):
        game = registry.get_game(name)
        seats = ["ann", "bob", "cy", "dee"]
        state = game.setup(seats, game.options_model(), Recorder.for_turn(1, 0, 0))
        for number in range(1, 4):
            pending = game.pending(state)
            orders = {}
            for seat, decision in pending.items():
                bot = game.bot(state, seat, Recorder.for_turn(1, 0, number, f"bot:{seat}"))
                for how, text in (("template", game.template(state, seat)), ("bot", orders_yaml(bot))):
                    files[f"{name} turn {number} {seat} {how}"] = order_template(
                        title=game.title,
                        game_id="g-1",
                        seat=seat,
                        turn=number,
                        decision=decision,
                        orders_text=text,
                        game_name=game.name,
                    )
                orders[seat] = game.order_model(decision).model_validate(bot)
            state = game.resolve(state, orders, Recorder.for_turn(1, 0, number)).state
    return files


ODD_BUT_PLAIN = {
    "an asterisk in a comment": "game: g  # * not an alias\nturn: 3\n",
    "an ampersand in a quoted value": "game: 'fish & chips'\n",
    "a key that is a list": "? [a, b]\n: 1\n",
    "a key nested past the limit": "? " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n: 1\n",
    "a key at the limit": "? " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n: 1\n",
    "a merge key without an alias": "a:\n  <<: {x: 1}\n  y: 2\n",
    "an undefined alias": "a: *nowhere\n",
    "a tag": "a: !!str 3\nb: !!int '7'\n",
    "ten thousand levels": "[" * 10_000,
    "one level past": "a:\n" + "".join("  " * i + "- b:\n" for i in range(MAX_DEPTH // 2)),
}


@pytest.mark.parametrize("name", ODD_BUT_PLAIN)
def test_odd_but_plain_files_are_answered_alike_by_libyaml_and_the_python_fallback(name: str) -> None:
    raw = ODD_BUT_PLAIN[name]
    assert answer(raw, orderfile._COrderLoader) == answer(raw, orderfile._PyOrderLoader)


def test_order_files_of_every_game_read_as_the_plain_safe_loader_reads_them() -> None:
    files = game_files()
    assert len(files) > 20
    for name, raw in files.items():
        expected = yaml.safe_load(orderfile.markers.inside(raw))
        assert isinstance(expected, dict) and expected, name
        assert answer(raw, orderfile._COrderLoader) == ("data", expected), name
        assert answer(raw, orderfile._PyOrderLoader) == ("data", expected), name


@pytest.mark.parametrize("opener", ["- ", "[", "{a: ", "? "])
def test_a_deeply_nested_file_is_refused_in_words_on_a_small_stack_not_crashed(opener: str) -> None:
    """libyaml's composer recurses in C with no depth check: a hostile file of thousands of levels must
    never reach it (the checking composer, in Python, stops at the limit), or a thread with a small
    stack dies of it (a segfault, in a child process here)."""
    levels = (MAX_BYTES - 10) // len(opener)
    script = f"""
import sys, threading
from pbem.intake import orderfile
text = {opener!r} * {levels} + "x"
def read():
    try:
        orderfile.load(text)
    except orderfile.OrderFileError as err:
        print(err.code)
threading.stack_size(256 * 1024)
reader = threading.Thread(target=read)
reader.start()
reader.join()
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() in {"yaml.too_deep", "yaml.syntax"}, done.stdout
