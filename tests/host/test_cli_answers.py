"""What ``pbem`` says to a newcomer (issue 34): an empty file is told it is empty, a second submit says
it replaced the first and when that came, and ``process`` with nothing to resolve names whom the game
waits for and by when."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from host.conftest import T0, Ran, Table
from host.test_statements import any_table  # noqa: F401 (the fixture: SQLite and PostgreSQL)
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.orders import submit

Pbem = Callable[..., Ran]


def new_game(pbem: Pbem, *extra: str) -> dict[str, str]:
    ran = pbem(
        "new", "pearl-dive", "--id", "reef-7", "--player", "red=alice@example.org",
        "--player", "blue=bob@example.org", "--seed", "42", "--option", "rounds=2", "--json", *extra,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    return {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}


@pytest.mark.parametrize("text", ["", "\n\n", "# my orders\n\n# (to follow)\n"])
def test_an_empty_file_is_told_it_is_empty(pbem: Pbem, tmp_path: Path, text: str) -> None:
    new_game(pbem)
    empty = tmp_path / "empty.yaml"
    empty.write_text(text)
    ran = pbem("submit", str(empty))
    assert ran.code == 1
    assert "the orders are empty (nothing but blank lines or comments)" in ran.err
    assert "[envelope.empty]" in ran.err and "lines of `name: value`" not in ran.err


def test_a_second_submit_says_it_replaced_the_first_and_when_that_came(pbem: Pbem, tmp_path: Path) -> None:
    passwords = new_game(pbem)
    red = tmp_path / "red.yaml"
    template = pbem("template", "reef-7", "--player", "red", "--suggest").out
    red.write_text(template.replace(PASSWORD_PLACEHOLDER, passwords["red"]))
    first = pbem("submit", str(red))
    assert first.code == 0 and "replace" not in first.out
    second = pbem("submit", str(red))
    assert second.code == 0
    found = re.search(r"these orders replace red's orders for turn 1 that came (\S+ \S+ UTC)", second.out)
    assert found is not None, second.out
    replaced = json.loads(pbem("submit", str(red), "--json").out)[0]["replaced"]
    assert replaced is not None and replaced.startswith(found.group(1)[:10])


def test_a_receipt_names_when_the_orders_it_replaced_came_on_both_backends(any_table: Table) -> None:  # noqa: F811
    first = submit(any_table.engine, any_table.orders("red"), now=T0 + timedelta(hours=1))
    assert first.accepted and first.replaced_at is None
    second = submit(any_table.engine, any_table.orders("red"), now=T0 + timedelta(hours=2))
    assert second.accepted and second.replaced_at == T0 + timedelta(hours=1)


def test_process_with_nothing_to_resolve_names_whom_it_waits_for(pbem: Pbem) -> None:
    new_game(pbem)
    said = pbem("process", "reef-7").out
    assert "reef-7: nothing to resolve: turn 1 waits for orders from red, blue (no deadline)" in said


def test_process_with_nothing_to_resolve_names_the_deadline(pbem: Pbem) -> None:
    new_game(pbem, "--deadline", "48h")
    deadline = json.loads(pbem("status", "reef-7", "--json").out)["deadline"]
    said = pbem("process", "reef-7").out
    shown = deadline[:10] + " " + deadline[11:16] + " UTC"
    assert f"reef-7: nothing to resolve: turn 1 waits for orders from red, blue, due by {shown}" in said


def test_a_rejected_file_shows_the_line_it_blames(pbem: Pbem, tmp_path: Path) -> None:
    new_game(pbem)
    greeted = tmp_path / "greeted.yaml"
    greeted.write_text("Hi all,\n\ngame: reef-7\nplayer: red\nturn: 1\npassword: x\norders:\n  - bid: 2\n")
    for command in ("submit", "check"):
        ran = pbem(command, str(greeted))
        assert ran.code == 1
        assert "yaml: line 1: `Hi all,` is not part of the orders, which begin at line 3" in ran.err
        assert "    line 1: Hi all,\n            ^^^^^^^\n" in ran.err
