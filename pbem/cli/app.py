"""The ``pbem`` command: parse, call one service, print. Exit codes: 0 ok, 1 rejected input, 2 usage,
3 internal error (a bug).

No Python traceback reaches a user: a :class:`~pbem.core.errors.UserError` is one line on stderr and exit
code 1; anything else is a bug, shown as one line too (exit code 3, so a script can tell it from rejected
input), and in full with ``PBEM_DEBUG=1``.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from typing import Annotated, Any

import typer

from pbem import __version__
from pbem.cli import common, cron, demo, fair, games, newgame, orderfiles, record, records, web
from pbem.cli.mail import app as mail_app
from pbem.core.errors import UserError

app = typer.Typer(
    name="pbem",
    help="Board games played by email: YAML orders in, rules checked, turns resolved, reports out.",
    rich_markup_mode="rich",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


#: the exit code of a bug (1 is rejected input, 2 a usage error)
INTERNAL_ERROR = 3


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


for group in (
    newgame.commands,
    games.commands,
    records.commands,
    record.commands,
    orderfiles.commands,
    demo.commands,
    web.commands,
):
    # its commands become pbem's own, in the order written there (help lists them so)
    app.registered_commands += group.registered_commands
app.add_typer(mail_app, name="mail")
cron.register(app)  # tick and the game master's commands
fair.register(app)  # verify, calendar, away (issue 17)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, help="Print pbem's version and exit.", callback=_show_version
        ),
    ] = False,
) -> None:
    """Board games played by email: YAML orders in, rules checked, turns resolved, reports out."""


#: what an option's value is called in help, where its name alone does not say
METAVARS = {
    "--id": "ID",
    "--player": "NAME=EMAIL",
    "--bot": "SEAT=LEVEL",
    "--seed": "N",
    "--option": "KEY=VALUE",
    "--deadline": "DURATION",
    "--grace": "DURATION",
    "--remind": "DURATION",
    "--outage": "DURATION",
    "--lease": "DURATION",
    "--nmr": "wait|bot[:LEVEL]",
    "--abandon-after": "N",
    "--db": "URL",
    "--turn": "N",
    "--to-turn": "N",
    "--format": "text|html",
    "--output": "FILE",
    "--decision": "KIND",
    "--players": "N",
    "--out": "DIR",
    "--now": "TIME",
    "--config": "FILE",
    "--log": "FILE",
    "--maildir": "DIR",
    "--jobs": "N",
    "--game": "GAME",
    "--host": "NAME",
}


def _tidy(command: Any) -> Any:
    """Help as a person reads it: values named (``--player NAME=EMAIL``), no ``<bool>``/``<str>``
    placeholders for flags and arguments, and each paragraph of a docstring one flowing paragraph
    (its source line breaks are not the terminal's)."""
    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False) or param.param_type_name == "argument":
            shown: str | None = None
        else:
            long = next((o for o in param.opts if o.startswith("--")), param.opts[0])
            shown = METAVARS.get(long, (param.name or "value").upper())
        param.display_type_rich = lambda ctx=None, _shown=shown: _shown
    original = command.get_help_option

    def help_option(ctx: Any, _original: Any = original) -> Any:
        option = _original(ctx)
        if option is not None:
            option.display_type_rich = lambda ctx=None: None
        return option

    command.get_help_option = help_option
    if getattr(command, "help", None):
        command.help = _flow_paragraphs(command.help)
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)
    return command


def _flow_paragraphs(text: str) -> str:
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(re.sub(r"\s*\n\s*", " ", p) for p in paragraphs)


def main(argv: list[str] | None = None) -> Any:
    """The console script."""
    try:
        return _tidy(typer.main.get_command(app))(args=argv, prog_name="pbem")
    except UserError as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:
        if os.environ.get("PBEM_DEBUG"):
            raise
        known = common.known_failure(exc)
        if known:
            print(f"pbem: {known}", file=sys.stderr)
            sys.exit(1)
        print(
            f"pbem: internal error: {type(exc).__name__}: {exc} (PBEM_DEBUG=1 shows where)", file=sys.stderr
        )
        sys.exit(INTERNAL_ERROR)
