"""``pbem tick`` and the game master commands (``pause``, ``resume``, ``extend``, ``replace``,
``rollback``, ``observe``): thin commands over :mod:`pbem.cron`.

The main CLI mounts them with :func:`register` (``register(app)`` adds each as a top-level command).
Each parses its options, calls one service and prints; a :class:`~pbem.core.errors.UserError` becomes one
line on stderr and exit code 1. ``--now`` (hidden) sets the clock, for tests and demos.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import tomllib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from pbem import outbox
from pbem.archive.page import refresh_pages
from pbem.cli.common import DbOption, NowOption, guarded, parse_now
from pbem.core.errors import UserError
from pbem.core.search import policy_level
from pbem.cron import admin
from pbem.cron.deadlines import parse_duration
from pbem.cron.notices import calendar_updates, told_line
from pbem.host import claims, mailsteps, timebase
from pbem.host.jobs import auto_jobs
from pbem.host.tick import TickSettings, active_games
from pbem.host.tick import tick as run_tick
from pbem.mail import sources
from pbem.mail.gm import set_game_master
from pbem.mail.welcome import queue_welcomes
from pbem.outbox import transport
from pbem.outbox.settings import load_settings
from pbem.storage.db import connect

T = TypeVar("T")

app = typer.Typer(
    name="cron",
    help="Run a host from cron; game master commands.",
    no_args_is_help=True,
    add_completion=False,
)

GameArg = Annotated[str, typer.Argument(help="The game's id.")]


def _engine(db: str | None) -> Any:
    # connect() brings the schema to head; a mistyped --db is said, not ticked as an empty database
    return connect(db, create=False)


# ---------------------------------------------------------------------------------------------- tick


def _settings_file(path: Path | None) -> tuple[Path | None, dict[str, Any]]:
    """The settings file (``--config``, ``$PBEM_CONFIG``, ``./pbem.toml``) and its tables."""
    chosen = path or (Path(os.environ["PBEM_CONFIG"]) if os.environ.get("PBEM_CONFIG") else None)
    if chosen is None and Path("pbem.toml").is_file():
        chosen = Path("pbem.toml")
    if chosen is None:
        return None, {}
    try:
        return chosen, tomllib.loads(chosen.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the settings file {chosen}: {exc}") from None


def archive_dir(path: Path | None) -> Path | None:
    """``[archive] dir`` of the settings file: where the tick keeps every game's archive page."""
    chosen, data = _settings_file(path)
    section = data.get("archive", {})
    if not isinstance(section, dict) or set(section) - {"dir"} or not isinstance(section.get("dir", ""), str):
        raise UserError(f"settings file {chosen}: [archive] knows only dir (a folder's path, in quotes)")
    return Path(section["dir"]) if section.get("dir") else None


def tick_config(path: Path | None) -> dict[str, Any]:
    """The ``[tick]`` table of the settings file (``--config``, ``$PBEM_CONFIG``, ``./pbem.toml``)."""
    chosen, data = _settings_file(path)
    section = data.get("tick", {})
    known = {"remind", "outage", "lease", "log", "jobs"}
    if not isinstance(section, dict) or set(section) - known:
        raise UserError(f"settings file {chosen}: [tick] knows only {', '.join(sorted(known))}")
    jobs = section.get("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UserError(
            f"settings file {chosen}: [tick] jobs must be a whole number of 1 or more, not {jobs!r}"
        )
    return section


class _Scrub(logging.Filter):
    """Replace the mail passwords wherever they might show up in a log line."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg, record.args = self.scrub(record.getMessage()), None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = self.scrub(record.exc_text)
        return True

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[secret]")
        return text


def setup_logging(log_file: str | None, host: str, secrets: list[str]) -> list[logging.Handler]:
    """The host's log (everything, UTC times, with the tick's host name) and one line per warning or
    error on stderr. Returns the handlers, to take away again when the tick ends."""
    handlers: list[logging.Handler] = []
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(_OneLine("%(levelname)s %(message)s"))
    handlers.append(stderr)
    if log_file:
        try:
            Path(log_file).parent.mkdir(parents=True, exist_ok=True)
            # owner and group only, whatever the umask: the log names players and games
            os.close(os.open(log_file, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o640))
            to_file = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write the log {log_file}: {exc.strerror}") from None
        formatter = logging.Formatter(f"%(asctime)s {host} %(levelname)s %(message)s", "%Y-%m-%dT%H:%M:%SZ")
        formatter.converter = time.gmtime
        to_file.setFormatter(formatter)
        handlers.append(to_file)
    for handler in handlers:
        handler.addFilter(_Scrub(secrets))
    for name in LOGGERS:  # the mail layer's warnings (a quarantined message, a refused mail) too
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        for handler in handlers:
            logger.addHandler(handler)
    return handlers


#: the loggers whose records go to the tick's log
LOGGERS = ("pbem.cron", "pbem.mail")


class _OneLine(logging.Formatter):
    """No traceback on a terminal: the log file has it."""

    def format(self, record: logging.LogRecord) -> str:
        bare = logging.makeLogRecord(record.__dict__)  # the file's handler still needs the traceback
        bare.exc_info, bare.exc_text = None, None
        return super().format(bare)


@app.command()
def tick(
    db: DbOption = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Settings file (default: $PBEM_CONFIG, else ./pbem.toml).")
    ] = None,
    log: Annotated[
        str | None,
        typer.Option("--log", help="Append the host's log here (default: \\[tick] log, $PBEM_LOG)."),
    ] = None,
    remind: Annotated[
        str | None, typer.Option("--remind", help="Remind this long before a deadline (default 12h).")
    ] = None,
    outage: Annotated[
        str | None,
        typer.Option(
            "--outage", help="No tick for longer than this is an outage: deadlines move (default 3h)."
        ),
    ] = None,
    lease: Annotated[
        str | None, typer.Option("--lease", help="How long a claimed game stays ours (10m).")
    ] = None,
    host: Annotated[
        str | None,
        typer.Option("--host", help="This host's name in claims and the log (default hostname:pid)."),
    ] = None,
    maildir: Annotated[
        Path | None, typer.Option("--maildir", help="Read orders from this Maildir (else \\[mail] imap).")
    ] = None,
    mail: Annotated[bool, typer.Option("--mail/--no-mail", help="Read and send mail (default: yes).")] = True,
    game: Annotated[list[str] | None, typer.Option("--game", help="Only these games (repeatable).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, help="Processes working at once (default: one per core, at most 4)."
        ),
    ] = None,
    trust_clock: Annotated[
        bool,
        typer.Option(
            "--trust-clock", help="The host really was down over 30 days: take the gap as an outage."
        ),
    ] = False,
    now: NowOption = None,
) -> None:
    """What cron runs every few minutes: read mail, resolve every turn that is due (orders all in, or
    deadline passed), remind and warn late players, send reports. Safe to run twice at once, on one
    machine or several sharing a PostgreSQL database. Prints one summary line; exits 1 if any game
    or mail step failed (the log says why).

    [bold]Example:[/bold] */5 * * * * cd /srv/pbem && .venv/bin/pbem tick --log /var/log/pbem/tick.log
    """
    handlers: list[logging.Handler] = []

    def work() -> int:
        moment = parse_now(now)
        section = tick_config(config)
        settings = TickSettings(
            remind_before=parse_duration(remind or str(section.get("remind", "12h"))),
            outage_after=parse_duration(outage or str(section.get("outage", "3h"))),
            lease_seconds=parse_duration(lease or str(section.get("lease", "10m"))),
            host=host or claims.host_id(),
            jobs=jobs or int(section.get("jobs", 0)) or auto_jobs(),
            trust_clock=trust_clock,
        )
        mail_settings = load_settings(config)
        handlers.extend(
            setup_logging(
                log or section.get("log") or os.environ.get("PBEM_LOG"),
                settings.host,
                mail_settings.secrets(),
            )
        )
        engine = _engine(db)
        moment = timebase.tick_moment(engine, moment if now else None)
        fetch, enqueue, deliver = (
            _mail_parts(engine, moment, mail_settings, maildir) if mail else (None, None, None)
        )
        summary = _with_progress(
            engine,
            quiet,
            lambda progress: run_tick(
                engine,
                moment,
                settings=settings,
                mail=mail_settings,
                fetch=fetch,
                enqueue=enqueue,
                deliver=deliver,
                only=game or None,
                progress=progress,
            ),
        )
        typer.echo(summary.line())
        pages = archive_dir(config)
        if pages is not None:  # the watchable pages a web server serves, kept up to date
            failed: list[str] = []
            written = refresh_pages(engine, pages, only=game or None, failed=failed)
            logger = logging.getLogger("pbem.cron")
            logger.info("archive pages written: %d in %s", written, pages)
            for line in failed:
                logger.error("archive page not written: %s", line)
                typer.echo(f"error: archive page not written: {line}", err=True)
            return summary.errors + len(failed)
        return summary.errors

    try:
        errors = guarded(work)
    finally:
        for handler in handlers:
            for name in LOGGERS:
                logging.getLogger(name).removeHandler(handler)
            handler.close()
    if errors:
        raise typer.Exit(1)


def _mail_parts(engine: Any, now: datetime, settings: Any, maildir: Path | None) -> tuple[Any, Any, Any]:
    """The tick's mail steps from the settings: read from ``--maildir`` or IMAP if set, queue reports
    always, send through SMTP or the outbox Maildir if set (else mail waits in the outbox table)."""
    fetch = None
    if maildir is not None or settings.imap_url:
        source = (
            sources.read_maildir(maildir)
            if maildir is not None
            else sources.read_imap(
                settings.imap_url,
                settings.imap_password,
                after=settings.imap_after,
                move_to=settings.imap_move_to,
            )
        )
        fetch = lambda: mailsteps.fetch(engine, source, settings, now)  # noqa: E731
    deliver = None
    if settings.smtp_url or settings.outbox_dir:
        way = transport.transport_from(settings)
        deliver = lambda: mailsteps.deliver(engine, way, now, settings)  # noqa: E731
    else:
        logging.getLogger("pbem.cron").warning(
            "no way to send mail is set ([mail] smtp or outbox): mail waits in the outbox table"
        )

    def enqueue(game_id: str | None) -> int:
        return outbox.enqueue_reports(engine, now, settings=settings, game_id=game_id)

    return fetch, enqueue, deliver


def _with_progress(engine: Any, quiet: bool, run: Callable[[Callable[[str], None] | None], T]) -> T:
    """A rich progress bar over the active games when stderr is a terminal; else nothing."""
    if quiet or not sys.stderr.isatty():
        return run(None)
    total = active_games(engine)
    with Progress(
        TextColumn("tick"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("", total=total)
        return run(lambda game_id: bar.update(task, advance=1, description=game_id))


# ------------------------------------------------------------------------------------ game master


@app.command()
def pause(game_id: GameArg, db: DbOption = None, now: NowOption = None) -> None:
    """Pause a game: its deadline stops (the time left is kept), no turn resolves until resumed.

    [bold]Example:[/bold] pbem pause reef-7
    """
    typer.echo(_moving(db, game_id, now, lambda engine, moment: admin.pause(engine, game_id, moment)))


@app.command()
def resume(game_id: GameArg, db: DbOption = None, now: NowOption = None) -> None:
    """Resume a paused game: the deadline gets back the time it had left.

    [bold]Example:[/bold] pbem resume reef-7
    """
    typer.echo(_moving(db, game_id, now, lambda engine, moment: admin.resume(engine, game_id, moment)))


@app.command()
def extend(
    game_id: GameArg,
    duration: Annotated[str, typer.Argument(help="How much later: 24h, 2d, 1d12h, 90m.")],
    db: DbOption = None,
    now: NowOption = None,
) -> None:
    """Move the current deadline later (from now, if it has passed already).

    [bold]Example:[/bold] pbem extend reef-7 24h
    """
    seconds = guarded(lambda: parse_duration(duration))
    typer.echo(
        _moving(db, game_id, now, lambda engine, moment: admin.extend(engine, game_id, seconds, moment))
    )


@app.command()
def replace(
    game_id: GameArg,
    seat: Annotated[str, typer.Argument(help="The seat to give away, e.g. red.")],
    email: Annotated[
        str,
        typer.Argument(
            help="The new player's address, or bot:LEVEL (easy, normal, strong) for the stand-in."
        ),
    ],
    no_welcome: Annotated[
        bool, typer.Option("--no-welcome", help="Mail no welcome (you hand the password out yourself).")
    ] = False,
    db: DbOption = None,
    now: NowOption = None,
) -> None:
    """Give a seat to another player: a new password (printed once), misses forgotten, no longer
    abandoned. The old password stops working.

    [bold]Example:[/bold] pbem replace reef-7 red carol@example.org, or pbem replace reef-7 red bot:strong
    """
    if email.startswith("bot") and "@" not in email:
        level = policy_level(email)
        if level is None:
            raise typer.BadParameter(f"{email!r}: write bot:easy, bot:normal or bot:strong (or an address)")
        guarded(lambda: admin.replace_by_standin(_engine(db), game_id, seat, str(level), parse_now(now)))
        typer.echo(f"seat {seat} of {game_id} is now played by the stand-in ({level})")
        return
    password = guarded(lambda: admin.replace(_engine(db), game_id, seat, email, parse_now(now)))
    typer.echo(f"seat {seat} of {game_id} now belongs to {email}; password (shown once): {password}")
    if not no_welcome:
        welcomed = guarded(
            lambda: queue_welcomes(_engine(db), game_id, {seat: password}, now=parse_now(now), replaced=True)
        )
        if welcomed:
            typer.echo(f"welcome mail queued for {seat} at {email}")


@app.command()
def rollback(
    game_id: GameArg,
    to_turn: Annotated[int, typer.Option("--to-turn", help="The turn to go back to (its state is kept).")],
    db: DbOption = None,
    now: NowOption = None,
) -> None:
    """Roll a game back to the state after turn N. Later turns stay in the archive, marked undone;
    every seat gets a report saying so.

    [bold]Example:[/bold] pbem rollback reef-7 --to-turn 12
    """
    typer.echo(
        _moving(db, game_id, now, lambda engine, moment: admin.rollback(engine, game_id, to_turn, moment))
    )


@app.command()
def observe(
    game_id: GameArg,
    email: Annotated[str, typer.Argument(help="The observer's address.")],
    remove: Annotated[bool, typer.Option("--remove", help="Stop sending to this observer.")] = False,
    db: DbOption = None,
    now: NowOption = None,
) -> None:
    """Add an observer, who receives the public report of every turn (or take one away).

    [bold]Example:[/bold] pbem observe reef-7 kibitz@example.org
    """
    typer.echo(guarded(lambda: admin.observe(_engine(db), game_id, email, parse_now(now), remove=remove)))


@app.command()
def gm(
    game_id: GameArg,
    email: Annotated[str, typer.Option("--email", help="The game master's address.")],
    db: DbOption = None,
) -> None:
    """Set (or replace) the game master who may mail pause, resume, extend, replace, rollback and
    observe: a new password, printed once; the old one stops working. Mail the word gm for the help.

    [bold]Example:[/bold] pbem gm reef-7 --email gm@example.org
    """
    password = guarded(lambda: set_game_master(_engine(db), game_id, email))
    typer.echo(f"game master of {game_id}: {email.strip().lower()}; password (shown once): {password}")


def _moving(db: str | None, game_id: str, now: str | None, change: Callable[[Any, datetime], str]) -> str:
    """A game master's change of the deadline, and the seats mailed their calendar's updated event."""

    def run() -> str:
        engine, moment = _engine(db), parse_now(now)
        said, told = calendar_updates(engine, game_id, moment, lambda: change(engine, moment))
        return said + told_line(told)

    return guarded(run)


COMMANDS = (tick, pause, resume, extend, replace, rollback, observe, gm)


def register(main: typer.Typer) -> None:
    """Add ``tick`` and the game master commands to the main CLI as top-level commands."""
    for command in COMMANDS:
        main.command()(command)


if __name__ == "__main__":  # pragma: no cover - ``python -m pbem.cli.cron`` before the main CLI mounts it
    app()
