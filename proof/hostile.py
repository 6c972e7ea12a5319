"""Hostile order files: hypothesis strategies and the fixed nasty cases (alias bombs, deep nesting, huge
scalars, a 10 MB file, binary, UTF-16 and Latin-1, wrong types, unknown steps, coordinates off the
board)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from hypothesis import strategies as st

from pbem.core.game import Game
from pbem.intake.orderfile import MAX_BYTES
from proof.orders_variants import OFF_BOARD

YAML_CHARS = "-:[]{}&*!|>'\"%@`#,?\n\t \\"


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """The "billion laughs": each level an anchor holding ``width`` aliases of the one before."""
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def deep_nesting(depth: int, flow: bool = True) -> str:
    if flow:
        return "orders: " + "[" * depth + "]" * depth + "\n"
    return "orders:\n" + "".join("  " * i + "-\n" for i in range(depth)) + "  " * depth + "- x\n"


def envelope_text(game_id: str, seat: str, turn: Any, password: Any, orders: Any) -> str:
    data = {"game": game_id, "player": seat, "turn": turn, "password": password, "orders": orders}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def fixed_cases(game_id: str, seat: str, turn: int, password: str) -> dict[str, bytes]:
    """The named nasty files, each one of a kind."""
    good = envelope_text(game_id, seat, turn, password, [{"pass": None}])
    accented = good.replace("orders:", "# commande écrite à Zürich\norders:")
    return {
        "alias bomb": alias_bomb().encode(),
        "alias in orders": (good + "x: &a [1]\ny: *a\n").encode(),
        "deep nesting (flow)": deep_nesting(5_000).encode(),
        "deep nesting (block)": deep_nesting(300, flow=False).encode(),
        "deep nesting (block) at the size limit": deep_nesting(120, flow=False).encode(),
        "huge scalar (60 KB)": ("game: " + "g" * 60_000 + "\n").encode(),
        "huge scalar at the size limit": ("game: " + "g" * (MAX_BYTES - 7) + "\n").encode(),
        "huge scalar past the limit": ("orders: " + "x" * 70_000 + "\n").encode(),
        "10 MB file": b"orders:\n" + b"  - pass\n" * (10 * 1024 * 1024 // 9),
        "10 MB on one line": b"x" * (10 * 1024 * 1024),
        "binary": bytes(range(256)) * 4,
        "NUL bytes": good.encode().replace(b"\n", b"\x00\n"),
        "UTF-16": accented.encode("utf-16"),
        "UTF-16 without BOM": accented.encode("utf-16-le"),
        "Latin-1": accented.encode("latin-1"),
        "UTF-8 BOM": b"\xef\xbb\xbf" + good.encode(),
        "two documents": (good + "---\n" + good).encode(),
        "tag": (good + "x: !!python/object:os.system ls\n").encode(),
        "duplicate key": (good + "game: other\n").encode(),
        "empty": b"",
        "only a comment": b"# nothing\n",
        "a list": b"- game\n- player\n",
        "a number": b"42\n",
        "turn too big": envelope_text(game_id, seat, 10**40, password, []).encode(),
        "turn negative": envelope_text(game_id, seat, -1, password, []).encode(),
        "turn as text": envelope_text(game_id, seat, "twelve", password, []).encode(),
        "turn as float": envelope_text(game_id, seat, 1.5, password, []).encode(),
        "password as list": envelope_text(game_id, seat, turn, [password], []).encode(),
        "password empty": envelope_text(game_id, seat, turn, "", []).encode(),
        "player as mapping": envelope_text(game_id, {"name": seat}, turn, password, []).encode(),  # type: ignore[arg-type]
        "orders as text": envelope_text(game_id, seat, turn, password, "attack everything").encode(),
        "orders as mapping": envelope_text(game_id, seat, turn, password, {"fly": "home"}).encode(),
        "unknown step": envelope_text(game_id, seat, turn, password, [{"teleport": "a1"}]).encode(),
        "step of many keys": envelope_text(game_id, seat, turn, password, [{"a": 1, "b": 2}]).encode(),
        "ten thousand steps": envelope_text(game_id, seat, turn, password, [{"pass": None}] * 5_000).encode(),
        "surrogate escape": good.encode() + b'\nx: "\\ud800"\n',
        "surrogate in orders": good.split("orders:")[0].encode() + b'orders: ["\\ud800", {"\\udfff": 1}]\n',
        "surrogate as player": good.replace(f"player: {seat}", 'player: "\\ud800"').encode(),
        "control character": good.encode() + b"\nx: \x07\n",
        "very long line": ("orders: [" + "1, " * 20_000 + "]\n").encode(),
        "very long line at the size limit": ("orders: [" + "1," * ((MAX_BYTES - 11) // 2) + "]\n").encode(),
    }


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(OFF_BOARD),
)
plain_data = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=12), inner, max_size=6)
    ),
    max_leaves=30,
)
yaml_like_text = st.text(alphabet=st.sampled_from(list(YAML_CHARS + "abcxyz019é€")), max_size=400)


def raw_inputs() -> st.SearchStrategy[bytes]:
    """Any bytes an order reader may be handed: noise, YAML-ish text, YAML of random data, and text in
    the wrong encoding."""
    dumped = plain_data.map(lambda d: yaml.safe_dump(d, allow_unicode=True).encode())
    encoded = st.tuples(yaml_like_text, st.sampled_from(["utf-8", "utf-16", "latin-1", "utf-32"])).map(
        lambda pair: pair[0].encode(pair[1], errors="replace")
    )
    return st.one_of(
        st.binary(max_size=600), yaml_like_text.map(lambda t: t.encode("utf-8")), dumped, encoded
    )


COORDINATE = re.compile(r"^([A-Z]?)([a-z]?)(\d{1,2})$")


def coordinate_leaves(value: Any) -> list[str]:
    """The strings in ``value`` that look like a board coordinate (``e4``, ``Bd5``)."""
    if isinstance(value, dict):
        return [c for v in value.values() for c in coordinate_leaves(v)]
    if isinstance(value, list):
        return [c for v in value for c in coordinate_leaves(v)]
    return [value] if isinstance(value, str) and COORDINATE.match(value) else []


def same_shape_coordinates(example: str) -> list[str]:
    """Every coordinate of the shape of ``example`` in a box well past any board: letters up to ``m``
    plus ``z``, numbers 0 to 13 and 99."""
    match = COORDINATE.match(example)
    assert match is not None
    big, small, _digits = match.groups()
    bigs = [chr(c) for c in range(ord("A"), ord("M") + 1)] + ["Z"] if big else [""]
    smalls = [chr(c) for c in range(ord("a"), ord("m") + 1)] + ["z"] if small else [""]
    numbers = [*range(14), 99]
    return [f"{b}{s}{n}" for b in bigs for s in smalls for n in numbers]


def structured_orders(game: Game, words: list[str]) -> st.SearchStrategy[Any]:
    """Orders shaped like the game's (a list of one-key steps) from its own words and wrong values."""
    del game
    keys = st.sampled_from(words or ["pass"]) | st.text(max_size=10)
    values = st.sampled_from(words or ["x"]) | st.sampled_from(OFF_BOARD) | plain_data
    step = st.dictionaries(keys, values, min_size=1, max_size=2) | st.sampled_from(words or ["pass"])
    return st.lists(step, max_size=8) | plain_data
