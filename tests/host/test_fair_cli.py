"""The command line of issue 17: ``pbem new --tz/--absence``, ``pbem away``, the commitment printed at
creation, and an archive that carries the zones and the absence policy to another host."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from sqlmodel import Session, select

from host.conftest import Ran
from pbem.archive.files import import_archive
from pbem.core.dice import commitment
from pbem.storage.db import connect
from pbem.storage.models import GameRow, SeatRow


def _new(pbem: Callable[..., Ran], *extra: str) -> Ran:
    return pbem(
        "new", "pearl-dive", "--id", "pd-1", "--player", "ann=a@x.org", "--player", "bo=b@x.org",
        "--seed", "11", "--deadline", "2d", "--json", *extra,
    )  # fmt: skip


def test_new_takes_zones_and_an_absence_policy_and_prints_the_commitment(
    pbem: Callable[..., Ran], db_url: str, tmp_path: Path
) -> None:
    made = _new(pbem, "--tz", "Europe/Budapest", "--tz", "ann=Asia/Shanghai", "--absence", "bot")
    assert made.code == 0, made.err
    assert json.loads(made.out)["dice_commitment"] == commitment(11)
    engine = connect(db_url)
    with Session(engine) as session:
        game = session.get(GameRow, "pd-1")
        zones = dict(session.exec(select(SeatRow.name, SeatRow.timezone)).all())
    assert game is not None and (game.timezone, game.absence, game.absence_days) == (
        "Europe/Budapest",
        "bot",
        14,
    )
    assert zones == {"ann": "Asia/Shanghai", "bo": None}
    ann = pbem("report", "pd-1", "--player", "ann").out
    bo = pbem("report", "pd-1", "--player", "bo").out
    assert "CST (" in ann and "UTC)" in ann and ("CET (" in bo or "CEST (" in bo)

    said = pbem("away", "pd-1", "ann", "--until", "2026-03-10", "--now", "2026-03-02T09:00:00")
    assert said.code == 0 and "away until 10 March" in said.out
    assert (
        pbem("away", "pd-1", "ann", "--back", "--now", "2026-03-03T09:00:00").out.strip()
        == "pd-1: ann is back"
    )
    refused = pbem("away", "pd-1", "cy", "--until", "2026-03-10")
    assert refused.code == 1 and "has no seat 'cy'" in refused.err and "Traceback" not in refused.err

    path = tmp_path / "pd-1.json"
    assert pbem("export", "pd-1", "-o", str(path), "--include-secrets").code == 0
    data = json.loads(path.read_text())
    assert data["game"]["timezone"] == "Europe/Budapest" and data["game"]["absence"] == "bot"
    assert data["players"][0]["timezone"] == "Asia/Shanghai"
    elsewhere = connect(f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    import_archive(elsewhere, str(path))
    with Session(elsewhere) as session:
        moved = session.get(GameRow, "pd-1")
        assert moved is not None and (moved.timezone, moved.absence, moved.dice) == (
            "Europe/Budapest",
            "bot",
            2,
        )
        assert session.exec(select(SeatRow.timezone).where(SeatRow.name == "ann")).one() == "Asia/Shanghai"


def test_new_refuses_a_bad_zone_or_policy_in_the_players_words(pbem: Callable[..., Ran]) -> None:
    bad_zone = _new(pbem, "--tz", "Europe/Budapes")
    assert bad_zone.code == 1 and "unknown time zone 'Europe/Budapes'" in bad_zone.err
    assert "Europe/Budapest" in bad_zone.err and "Traceback" not in bad_zone.err
    bad_policy = _new(pbem, "--absence", "sleep")
    assert bad_policy.code == 1 and "absence policy 'sleep': use one of bot, extend" in bad_policy.err
    assert pbem("status").out.strip() == "no games"
