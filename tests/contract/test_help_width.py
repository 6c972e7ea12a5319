"""Every command is in the README, and its ``--help`` fits an 80-column terminal whole: no option's
name cut short (``--require-from-ma…``), no line wider than the terminal."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from pbem.cli.app import app, main


def _commands(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, [*path, name])
    else:
        yield path, command


COMMANDS = dict((" ".join(path), command) for path, command in _commands(typer.main.get_command(app), []))


def test_every_command_is_seen() -> None:
    assert {"new", "mail test", "mail fetch", "tick", "verify"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_at_80_columns_shows_every_option_name_whole(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.suppress(SystemExit):
        main([*name.split(), "--help"])
    text = shown.getvalue()
    assert "Usage: pbem" in text
    options = [
        option
        for param in COMMANDS[name].params
        if not getattr(param, "hidden", False)
        for option in (*param.opts, *param.secondary_opts)
        if option.startswith("--")
    ]
    assert [option for option in options if option not in text] == []
    assert [line for line in text.splitlines() if len(line) > 80] == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_readme_shows_every_command(name: str) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"pbem (\S+\|)?{name}\b", readme), f"README.md never shows `pbem {name}`"
