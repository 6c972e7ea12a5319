"""Issue 33, findings 5 and 9: ``pbem import`` checks an archive's settings, addresses, numbers and
times as strictly as ``pbem new`` checks its options (one check for both), and refuses a hostile or
damaged archive in words with exit 1, storing nothing: never an "internal error", never a game that
every later tick fails on."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from host.conftest import Ran
from pbem.archive.files import build_archive, dump
from pbem.core.errors import UserError
from pbem.play.create import create_game
from pbem.storage.db import connect

GAME = "pd-1"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A sound archive of a running game with a deadline, an observer and a clock."""
    engine = connect(f"sqlite:///{tmp_path_factory.mktemp('source') / 'pbem.sqlite'}")
    create_game(
        engine,
        "pearl-dive",
        GAME,
        [("ann", "ann@example.org"), ("bo", "bo@example.org")],
        seed=11,
        turn_seconds=86400,
    )
    data = build_archive(engine, GAME, include_secrets=True)
    data["observers"] = ["kibitz@example.org"]
    engine.dispose()
    return data


def _set(*path: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets ``path[:-1]`` of the archive to ``path[-1]``."""

    def change(data: dict[str, Any]) -> None:
        *keys, last, value = path
        for key in keys:
            data = data[key]
        data[last] = value

    return change


#: (a hostile or damaged archive, words the refusal must hold)
HOSTILE = {
    "turn_seconds: soon": (
        _set("game", "settings", "turn_seconds", "soon"),
        "game.settings.turn_seconds 'soon'",
    ),
    "nmr: explode": (
        _set("game", "settings", "nmr", "explode"),
        "game.settings.nmr 'explode': use one of wait",
    ),
    "abandon_after: -3": (
        _set("game", "settings", "abandon_after", -3),
        "game.settings.abandon_after -3: write a number of missed turns from 1",
    ),
    "require_from_match: maybe": (
        _set("game", "settings", "require_from_match", "maybe"),
        "require_from_match 'maybe': write true or false",
    ),
    "turn_seconds past SQLite": (_set("game", "settings", "turn_seconds", 2**70), "turn_seconds 1180591620"),
    "turn_seconds past any date": (_set("game", "settings", "turn_seconds", 2**40), "from 1 to 315360000"),
    "grace a string": (_set("game", "settings", "grace_seconds", "1h"), "grace_seconds '1h'"),
    "absence: nap": (_set("game", "absence", "nap"), "game.absence 'nap': use one of bot, extend"),
    "absence_days: -5": (_set("game", "absence_days", -5), "game.absence_days -5: write a number of days"),
    "observer with a Bcc line": (
        _set("observers", ["kibitz@example.org\r\nBcc: all@example.org"]),
        "observers[0]: 'kibitz@example.org\\x0d\\x0aBcc",
    ),
    "observer as markup": (
        _set("observers", ["<script>alert(1)</script>"]),
        "observers[0]: '<script>alert(1)</script>' is not a mail address",
    ),
    "created in year 9999": (
        _set("game", "created_at", "9999-12-31T23:59:59-05:00"),
        "game.created_at '9999-12-31T23:59:59-05:00': write a time from 1970",
    ),
    "created in year 0001": (
        _set("game", "created_at", "0001-01-01T00:00:00+05:00"),
        "game.created_at '0001",
    ),
    "deadline in year 9999": (_set("game", "deadline_at", "9999-12-31T23:00:00+00:00"), "game.deadline_at"),
    "resolved in year 9999": (
        _set("turns", 0, "resolved_at", "9999-12-31T23:59:59-05:00"),
        "turn 0 (epoch 0): resolved_at",
    ),
    "epoch past the column": (_set("game", "epoch", 2**40), "game.epoch '1099511627776'"),
    "misses past the column": (_set("players", 0, "misses", 2**70), "players.0.misses"),
    "clock with a stranger key": (_set("game", "clock", {"turn": 0, "bogus": 1}), "game.clock.bogus"),
    "seed past 64 bits": (_set("game", "seed", 2**64), "game section: seed"),
}


@pytest.mark.parametrize("change", list(HOSTILE), ids=list(HOSTILE))
def test_a_hostile_archive_is_refused_in_words_and_nothing_is_stored(
    change: str, archive: dict[str, Any], pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    alter, words = HOSTILE[change]
    data = copy.deepcopy(archive)
    alter(data)
    path = tmp_path / "hostile.yaml"
    path.write_text(dump(data), encoding="utf-8")
    done = pbem("import", str(path), "--no-welcome")
    assert done.code == 1, done.err
    assert words in done.err and "internal error" not in done.err and "Traceback" not in done.err
    assert pbem("status").out.strip() == "no games"


def test_the_sound_archive_imports_with_its_observer_written_as_the_host_writes_addresses(
    archive: dict[str, Any], pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = copy.deepcopy(archive)
    data["observers"] = [" Kibitz@Example.ORG", "kibitz@example.org"]
    path = tmp_path / "sound.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    done = pbem("import", str(path), "--no-welcome")
    assert done.code == 0, done.err
    assert pbem("export", GAME, "--include-secrets", "-o", str(tmp_path / "again.json")).code == 0
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again["observers"] == ["kibitz@example.org"]
    assert again["game"]["settings"] == archive["game"]["settings"]


def test_new_refuses_what_import_refuses_with_the_same_check(pbem: Callable[..., Ran]) -> None:
    made = pbem(
        "new", "pearl-dive", "--id", GAME, "--player", "ann=a@example.org", "--player", "bo=b@example.org",
        "--abandon-after", "99999999999",
    )  # fmt: skip
    assert made.code == 1 and "--abandon-after 99999999999: write a number of missed turns from 1" in made.err
    assert pbem("status").out.strip() == "no games"


@pytest.mark.parametrize(
    ("setting", "value", "words"),
    [
        ("turn_seconds", 2**62, "--deadline 4611686018427387904: write a number of seconds from 1"),
        ("grace_seconds", -1, "--grace -1: write a number of seconds from 0"),
        ("abandon_after", 0, "--abandon-after 0: write a number of missed turns from 1 to 10000"),
    ],
)
def test_create_game_refuses_a_setting_no_tick_could_run(
    setting: str, value: Any, words: str, tmp_path: Path
) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    with pytest.raises(UserError) as refused:
        create_game(
            engine,
            "pearl-dive",
            GAME,
            [("ann", "a@example.org"), ("bo", "b@example.org")],
            **{setting: value},
        )
    assert words in str(refused.value)
