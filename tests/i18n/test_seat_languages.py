"""Who reads what: a language per game (observers, and seats with none of their own) and per seat,
set by ``pbem new --lang``; every report in its reader's language; ``pbem report --lang`` renders any
report anew in another; archives carry the languages. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import files
from pbem.cli.app import main
from pbem.play import turns
from pbem.render import reports
from pbem.storage.models import GameRow, SeatRow

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PLAYERS = ["--player", "red=red@example.org", "--player", "blue=blue@example.org"]


@pytest.fixture
def pbem(capsys: pytest.CaptureFixture[str], db_url: str) -> Callable[..., tuple[int, str, str]]:
    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main([*args[:1], *args[1:], "--db", db_url] if args[0] != "mail" else list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def languages(engine: Engine, game_id: str) -> tuple[str, dict[str, str | None]]:
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        assert game is not None
        seats = {s.name: s.language for s in session.exec(select(SeatRow).where(SeatRow.game_id == game_id))}
        return game.language, seats


def new(pbem: Callable[..., tuple[int, str, str]], *extra: str) -> tuple[int, str, str]:
    # a seed of our own: a random one may not fit PostgreSQL's INTEGER seed column (0001_host_schema)
    options = ["--seed", "7", "--deadline", "24h", "--now", NOW.isoformat()]
    return pbem("new", "pearl-dive", "--id", "pd", *PLAYERS, *options, *extra)


def test_new_sets_the_games_and_a_seats_language(pbem, engine: Engine) -> None:
    code, _out, err = new(pbem, "--lang", "hu", "--lang", "red=cs")
    assert code == 0, err
    assert languages(engine, "pd") == ("hu", {"red": "cs", "blue": None})


def test_every_report_is_in_its_readers_language(pbem, engine: Engine, known_words: dict[str, str]) -> None:
    assert new(pbem, "--lang", "hu", "--lang", "red=cs")[0] == 0
    # nobody sends orders: the bot plays for both, and says so in each report
    assert turns.process(engine, "pd", now=NOW, fill_missing=True) == [1]
    red = reports.report(engine, "pd", "red", turn=1)
    blue = reports.report(engine, "pd", "blue", turn=1)
    public = reports.report(engine, "pd", None, turn=1)
    assert known_words["cs"].format(seat="blue") in red
    assert known_words["hu"].format(seat="blue") in blue
    assert known_words["hu"].format(seat="red") in public
    english = "The stand-in played for blue this turn"
    assert english not in red + blue + public
    # the deadline too, in each reader's way of writing a date
    assert "2026. márc. 3." in blue and "3. 3. 2026" in red


def test_report_lang_renders_any_report_anew(pbem, engine: Engine, known_words: dict[str, str]) -> None:
    assert new(pbem, "--lang", "red=cs")[0] == 0
    turns.process(engine, "pd", now=NOW, fill_missing=True)
    code, out, err = pbem("report", "pd", "--player", "red", "--turn", "1", "--lang", "ru")
    assert code == 0, err
    assert known_words["ru"].format(seat="blue") in out
    assert known_words["cs"].format(seat="blue") not in out
    code, out, _ = pbem("report", "pd", "--player", "red", "--turn", "1", "--lang", "zh", "--format", "html")
    assert code == 0 and "替补" in out
    # the stored report is untouched: still Czech
    assert known_words["cs"].format(seat="blue") in reports.report(engine, "pd", "red", turn=1)


def test_report_lang_refuses_an_unknown_language(pbem, engine: Engine) -> None:
    assert new(pbem)[0] == 0
    code, out, err = pbem("report", "pd", "--player", "red", "--lang", "de")
    assert code == 1
    assert "unknown language 'de': use one of en, hu, cs, zh, ru" in err + out
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--lang", "de"), "unknown language 'de': use one of en, hu, cs, zh, ru"),
        (("--lang", "red=xx"), "unknown language 'xx'"),
        (("--lang", "nobody=cs"), "there is no seat 'nobody'; seats: red, blue"),
    ],
)
def test_new_refuses_a_bad_language_and_creates_nothing(pbem, engine: Engine, extra, message) -> None:
    code, out, err = new(pbem, *extra)
    assert code == 1, (out, err)
    assert message in err + out
    with Session(engine) as session:
        assert session.get(GameRow, "pd") is None


def test_two_game_languages_are_a_usage_error(pbem) -> None:
    code, out, err = new(pbem, "--lang", "hu", "--lang", "cs")
    assert code == 2
    assert "one game language, not hu, cs" in err + out


def test_export_and_import_carry_the_languages(pbem, engine: Engine, tmp_path: Path) -> None:
    assert new(pbem, "--lang", "zh", "--lang", "blue=ru")[0] == 0
    turns.process(engine, "pd", now=NOW, fill_missing=True)
    path = str(tmp_path / "pd.yaml")
    files.export(engine, "pd", path, include_secrets=True)
    new_id, _passwords = files.import_archive(engine, path, game_id="pd-copy")
    assert languages(engine, new_id) == ("zh", {"red": None, "blue": "ru"})
