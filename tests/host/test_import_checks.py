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
from proof.edges import HOSTILE_ARCHIVES as HOSTILE

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
