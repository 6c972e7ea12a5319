"""The commands: one summary line per tick, a log a host can read with no secret in it, game master
commands that say what they did, and one-line errors with exit code 1."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import typer
from sqlalchemy import Engine
from sqlmodel import Session
from typer.testing import CliRunner

from pbem.cli.cron import COMMANDS, app, register
from pbem.storage.models import GameRow
from tests.cron.conftest import START, new_game, send_orders

ROOT = Path(__file__).resolve().parents[2]

H = timedelta(hours=1)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'pbem.sqlite'}"


@pytest.fixture
def db(sqlite_url: str) -> Engine:
    from pbem.storage.db import connect
    from pbem.storage.migrations import upgrade

    engine = connect(sqlite_url)
    upgrade(engine)
    return engine


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"PBEM_CONFIG": "", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


def test_tick_prints_one_summary_line_and_logs_without_secrets(
    db: Engine, sqlite_url: str, tmp_path: Path
) -> None:
    pw = new_game(db, "g")
    send_orders(db, "g", "red", pw["red"], START + H)
    log = tmp_path / "logs" / "tick.log"
    code, out, err = invoke(
        "tick", "--db", sqlite_url, "--now", (START + 13 * H).isoformat(), "--log", str(log),
        env={"PBEM_OUTBOX": str(tmp_path / "sent"), "PBEM_MAIL_FROM": "host@example.org"},
    )  # fmt: skip
    assert code == 0, err
    # the two reports of the setup and blue's reminder
    assert out == "tick: games seen 1, turns resolved 0, mails sent 3, reminders 1, errors 0\n"
    text = log.read_text()
    assert "game g turn 1: reminder to blue" in text
    assert text.rstrip().endswith(
        "INFO tick: games seen 1, turns resolved 0, mails sent 3, reminders 1, errors 0"
    )
    assert all(password not in text + out + err for password in pw.values())


def test_tick_reads_its_settings_from_the_tick_table(db: Engine, sqlite_url: str, tmp_path: Path) -> None:
    new_game(db, "g")
    config = tmp_path / "pbem.toml"
    config.write_text('[tick]\nremind = "2h"\n', encoding="utf-8")
    now = (START + 13 * H).isoformat()
    code, out, _ = invoke("tick", "--db", sqlite_url, "--now", now, "--no-mail", "--config", str(config))
    assert code == 0 and "reminders 0" in out  # 11h before the deadline: not yet, with a 2h reminder
    config.write_text('[tick]\nremind_before = "2h"\n', encoding="utf-8")
    code, _, err = invoke("tick", "--db", sqlite_url, "--now", now, "--no-mail", "--config", str(config))
    assert code == 1 and "[tick] knows only jobs, lease, log, outage, remind" in err
    for bad in ("0", '"two"', "true"):
        config.write_text(f"[tick]\njobs = {bad}\n", encoding="utf-8")
        code, out, err = invoke(
            "tick", "--db", sqlite_url, "--now", now, "--no-mail", "--config", str(config)
        )
        assert (
            code == 1 and "[tick] jobs must be a whole number of 1 or more" in err and "Traceback" not in err
        )
    config.write_text("[tick]\njobs = 2\n", encoding="utf-8")
    later = (START + 14 * H).isoformat()
    code, out, _ = invoke("tick", "--db", sqlite_url, "--now", later, "--no-mail", "--config", str(config))
    assert code == 0 and "games seen 1" in out


def test_a_failing_game_makes_tick_exit_1_with_one_line_and_no_traceback(
    db: Engine, sqlite_url: str, tmp_path: Path
) -> None:
    new_game(db, "g")
    with Session(db) as session:
        game = session.get(GameRow, "g")
        assert game is not None
        game.game_type = "no-such-game"
        session.add(game)
        session.commit()
    log = tmp_path / "tick.log"
    # one job: the in-process runner captures this process's stderr, not a forked helper's (the next
    # test runs the command for real, with helpers)
    code, out, err = invoke(
        "tick", "--db", sqlite_url, "--now", START.isoformat(), "--no-mail", "--log", str(log),
        "--jobs", "1", env={"PBEM_SMTP_PASSWORD": "pearl-secret-9"},
    )  # fmt: skip
    assert code == 1
    assert "errors 1" in out
    assert err.strip().startswith("ERROR game g: UnknownGame:") and "Traceback" not in err
    text = log.read_text()
    assert "ERROR game g: UnknownGame:" in text and "Traceback" in text  # the host's log has the detail


def test_a_helper_process_reports_a_failing_game_on_stderr_and_in_the_log(
    db: Engine, sqlite_url: str, tmp_path: Path
) -> None:
    for name in ("a", "b", "c", "d"):
        new_game(db, name)
    with Session(db) as session:
        for name in ("a", "b", "c", "d"):
            game = session.get(GameRow, name)
            assert game is not None
            game.game_type = "no-such-game"
            session.add(game)
        session.commit()
    log = tmp_path / "tick.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PBEM_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.cron.tick_worker", "--db", sqlite_url, "--now", START.isoformat(),
         "--no-mail", "--log", str(log), "--jobs", "3", "--host", "t"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1 and "games seen 4" in done.stdout and "errors 4" in done.stdout
    lines = done.stderr.strip().splitlines()
    assert sorted(line.split(":")[0] for line in lines) == [f"ERROR game {n}" for n in "abcd"]
    assert "Traceback" not in done.stderr
    assert log.read_text().count("UnknownGame") >= 4


def test_the_log_scrubs_mail_passwords_even_from_tracebacks(tmp_path: Path) -> None:
    import logging

    from pbem.cli.cron import setup_logging

    log = tmp_path / "tick.log"
    handlers = setup_logging(str(log), "h1", ["pearl-secret-9"])
    try:
        raise ConnectionError("login as pbem with pearl-secret-9 refused")
    except ConnectionError as exc:
        logging.getLogger("pbem.cron").error("mail out: %s", exc, exc_info=exc)
    finally:
        for handler in handlers:
            logging.getLogger("pbem.cron").removeHandler(handler)
            handler.close()
    text = log.read_text()
    assert "pearl-secret-9" not in text
    assert "login as pbem with [secret] refused" in text and "Traceback" in text


def test_game_master_commands_say_what_they_did(db: Engine, sqlite_url: str) -> None:
    new_game(db, "g")
    at = ("--db", sqlite_url, "--now", (START + H).isoformat())
    told = "calendar update queued for red, blue\n"  # each seat's calendar event follows the deadline
    assert invoke("pause", "g", *at)[1] == "game g paused with 23h left\n" + told
    assert invoke("resume", "g", *at)[1] == "game g resumed; deadline in 23h\n" + told
    assert (
        invoke("extend", "g", "1d", *at)[1]
        == "game g: deadline extended by 1d to 2026-03-04 09:00 UTC\n" + told
    )
    assert invoke("observe", "g", "kibitz@example.org", *at)[0] == 0
    code, out, _ = invoke("replace", "g", "blue", "carol@example.org", *at)
    assert code == 0 and out.startswith(
        "seat blue of g now belongs to carol@example.org; password (shown once): "
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("pause", "nope"), "error: there is no game 'nope'"),
        (("extend", "g", "soon"), "error: not a duration: 'soon'"),
        (("rollback", "g", "--to-turn", "5"), "error: game g is at turn 0: roll back to a turn from 0 to -1"),
        (
            ("replace", "g", "green", "x@example.org"),
            "error: game g has no seat 'green'; its seats are red, blue",
        ),
        (("tick", "--now", "yesterday"), "error: --now 'yesterday': not an ISO time"),
    ],
)
def test_bad_requests_are_one_line_and_exit_1(
    db: Engine, sqlite_url: str, args: tuple[str, ...], message: str
) -> None:
    new_game(db, "g")
    code, _, err = invoke(*args, "--db", sqlite_url)
    assert code == 1
    assert err.startswith(message) and err.count("\n") == 1


def test_register_adds_every_command_to_the_main_cli() -> None:
    main = typer.Typer()
    register(main)
    names = {c.callback.__name__ for c in main.registered_commands if c.callback}
    assert names == {"tick", "pause", "resume", "extend", "replace", "rollback", "observe", "gm"}
    assert len(COMMANDS) == len(names)
    assert all("Example:" in (command.__doc__ or "") for command in COMMANDS)


def test_the_pbem_command_carries_tick_and_the_game_master_commands() -> None:
    from pbem.cli.app import app as pbem

    for name in ("tick", "pause", "resume", "extend", "replace", "rollback", "observe", "gm"):
        result = CliRunner().invoke(pbem, [name, "--help"])
        assert result.exit_code == 0 and "Example:" in result.stdout, name
