"""Records a club can write (issue 34): draws written as what came out, unknowns filled and said to be
assumed, the game dated by its record, no welcome for a finished game, ``pbem verify GAME``; and a record
too costly to read refused before it is read (issue 33, finding 10)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from host.conftest import Ran
from pbem.archive.page import build_page
from pbem.core.codec import unpack
from pbem.render.reports import report
from pbem.storage.models import GameRow, OutboxRow, ReportRow, TurnRow

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"
BY_HAND = RECORDS / "reef-encounter-by-hand.yaml"


def by_hand() -> dict[str, Any]:
    return yaml.safe_load(BY_HAND.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: Any, name: str = "club.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, default_flow_style=None), encoding="utf-8")
    return path


def count(engine: Engine, table: Any) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_a_record_written_by_hand_from_what_came_out_imports_replays_and_verifies(
    pbem: Callable[..., Ran], engine: Engine
) -> None:
    text = BY_HAND.read_text(encoding="utf-8")
    assert "[bag, unknown]" in text and "parrotfish: unknown" in text and "[reef boards, D]" in text
    ran = pbem("import", str(BY_HAND))
    assert ran.code == 0, ran.err
    assert "the game is over: no welcome mail queued" in ran.out
    assert count(engine, OutboxRow) == 0  # a finished game invites nobody to play
    assert pbem("replay", "club-reef-by-hand", "--verify").code == 0
    verified = pbem("verify", "club-reef-by-hand")
    assert verified.code == 0, verified.err
    assert "recorded elsewhere without a seed" in verified.out and "every state hash matches" in verified.out
    with Session(engine) as session:
        row = session.get(GameRow, "club-reef-by-hand")
        assert row is not None and row.created_at.year == 2015  # the record's first time, not today's
        turns = session.exec(select(TurnRow).order_by(TurnRow.number))  # type: ignore[arg-type]
        times = [t.resolved_at.replace(tzinfo=None) for t in turns]
    assert times[0] == times[1] == times[2] == times[3] == datetime(2015, 3, 2, 9, 0)
    assert times[4] == datetime(2015, 3, 5, 9, 0)  # turn 4 has its own time


def test_what_a_record_left_unknown_is_said_to_be_assumed(pbem: Callable[..., Ran], engine: Engine) -> None:
    assert pbem("import", str(BY_HAND)).code == 0
    setup = report(engine, "club-reef-by-hand", None, turn=0)
    assert "assumed, not recorded (the record says unknown): what these draws gave: bag ×15" in setup
    with Session(engine) as session:
        row = session.exec(
            select(ReportRow).where(
                ReportRow.game_id == "club-reef-by-hand", ReportRow.turn == 1, ReportRow.seat == ""
            )
        ).one()
    public = unpack(row.text_z)
    assert "assumed, not recorded (the record says unknown): alice's setup.parrotfish" in public
    assert "setup.parrotfish: " not in public  # the value assumed is as secret as a real one
    alice = report(engine, "club-reef-by-hand", "alice", turn=1)
    assert "assumed for your orders, not recorded (the record says unknown): setup.parrotfish: " in alice


def test_every_view_that_reveals_an_assumed_value_says_it_is_assumed(
    pbem: Callable[..., Ran], engine: Engine
) -> None:
    assert pbem("import", str(BY_HAND)).code == 0
    assert pbem("import", str(RECORDS / "reef-encounter.yaml")).code == 0  # all recorded: nothing assumed
    note = "What its record left unknown was assumed: what is shown of it here is assumed, not recorded."
    revealed = "Assumed in part: what the game's record left unknown was filled in at its import"
    final = report(engine, "club-reef-by-hand", "alice")
    assert note in " ".join(final.split()) and "EVERYTHING REVEALED" in final
    assert revealed in " ".join(final.split())
    page = " ".join(build_page(engine, "club-reef-by-hand").split())
    assert note in page
    plain = report(engine, "club-reef-encounter", "alice")
    assert "EVERYTHING REVEALED" in plain and "assumed" not in plain.lower()
    hungarian = report(engine, "club-reef-by-hand", "alice", fmt="html", lang="hu")
    assert "Részben feltételezett" in hungarian


def test_the_same_record_gives_the_same_game(pbem: Callable[..., Ran], engine: Engine) -> None:
    assert pbem("import", str(BY_HAND)).code == 0
    assert pbem("import", str(BY_HAND), "--id", "again").code == 0
    with Session(engine) as session:
        hashes = {
            game: [t.state_sha256 for t in session.exec(select(TurnRow).where(TurnRow.game_id == game))]
            for game in ("club-reef-by-hand", "again")
        }
    assert hashes["club-reef-by-hand"] == hashes["again"]


def test_a_draw_that_could_not_come_out_is_refused_at_that_draw(
    pbem: Callable[..., Ran], engine: Engine, tmp_path: Path
) -> None:
    data = by_hand()
    data["setup"]["draws"][4] = ["first open-sea space", "purple"]
    path = write(tmp_path, data)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "purple" in text)
    pbem("status")  # the database exists, empty
    ran = pbem("import", str(path))
    assert ran.code == 1
    assert (
        f"setup: line {line}: draw 5 (first open-sea space): the record says purple, which could not be "
        "drawn here; the first open-sea space held grey 37, orange 37, pink 37, white 37, yellow 37"
    ) in ran.err
    assert count(engine, GameRow) == 0


def test_a_colour_the_bag_no_longer_holds_is_refused_at_the_refill_not_turns_later(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = yaml.safe_load((RECORDS / "reef-encounter.yaml").read_text(encoding="utf-8"))
    turn = next(i for i, t in enumerate(data["turns"]) if t["draws"])
    data["turns"][turn]["draws"][0] = ["bag", "black"]
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert f"turns[{turn}] (turn {turn + 1}): line " in ran.err
    assert "draw 1 (bag): the record says black, which could not be drawn here; the bag held grey " in ran.err


def test_unknowns_that_nothing_could_fill_are_refused_naming_what_contradicts_them(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = by_hand()
    # alice's larvae are set, the polyps behind the screens unknown: a first move placing a colour
    # neither the screens nor the bag could ever hold is refused as the rules refuse it
    bob = data["turns"][1]["orders"]["bob"]
    bob[0] = {"larva": "purple"}
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1 and "turns[1] (turn 2): bob's orders[0]" in ran.err


def test_a_record_as_one_long_flow_list_is_refused_before_it_is_read(
    pbem: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.archive import files

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the file was read into values")

    monkeypatch.setattr(files, "load", never)
    flow = tmp_path / "flow.yaml"
    flow.write_text("[" + ", ".join(["1"] * 300_000) + "]\n", encoding="utf-8")
    ran = pbem("import", str(flow))
    assert ran.code == 1
    assert "holds a list; an archive or a record is a mapping of keys" in ran.err
    head = "format: pbem-record\nversion: 1\ngame: reef-encounter\nengine_version: 1.0.0\nseats: [a, b]\n"
    inner = tmp_path / "inner.yaml"
    inner.write_text(head + "setup: {draws: [" + ", ".join(["[bag, 5, 1]"] * 15_000) + "]}\n")
    ran = pbem("import", str(inner))
    assert ran.code == 1 and "holds more than 50,000 YAML values" in ran.err


def test_a_record_with_draws_as_indices_still_imports(pbem: Callable[..., Ran]) -> None:
    text = (RECORDS / "reef-encounter.yaml").read_text(encoding="utf-8")
    assert "- [bag, 185, 5]" in text  # the engine's ordering, as records were first written
    assert pbem("import", str(RECORDS / "reef-encounter.yaml")).code == 0
    assert json.loads(pbem("status", "club-reef-encounter", "--json").out)["finished"]


class _Faces:
    """Answers a record's index draws and writes each as what came out, as a club would."""

    def __init__(self, draws: list[list[Any]]) -> None:
        self.draws, self.out = list(draws), []  # type: list[list[Any]]

    def pick(self, label: str, n: int) -> int:
        drawn = self.draws.pop(0)
        self.out.append(drawn)
        return int(drawn[2])

    def pick_face(self, label: str, faces: Any) -> int:
        drawn = self.draws.pop(0)
        self.out.append([label, faces[drawn[2]]])
        return int(drawn[2])


def written_by_face(data: dict[str, Any]) -> dict[str, Any]:
    from pbem.core import registry
    from pbem.play.create import parse_options

    game = registry.require(data["game"])
    chance = _Faces(data["setup"]["draws"])
    state = game.setup(data["seats"], parse_options(game, data["options"]), chance)
    data["setup"]["draws"] = chance.out
    for turn in data["turns"]:
        pending = game.pending(state)
        orders = {s: game.order_model(pending[s]).model_validate(turn["orders"][s]) for s in pending}
        chance = _Faces(turn["draws"])
        state = game.resolve(state, orders, chance).state
        turn["draws"] = chance.out
    return data


def test_with_its_seed_an_unknown_draw_is_the_seeds_and_a_face_is_checked_against_it(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = written_by_face(yaml.safe_load((RECORDS / "coral-divers.yaml").read_text(encoding="utf-8")))
    data["seed"] = 23  # make.py's bot game
    assert data["setup"]["draws"][0][0] == "bag" and isinstance(data["setup"]["draws"][0][1], str)
    data["setup"]["draws"][0] = ["bag", "unknown"]
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 0, ran.err
    assert pbem("replay", "club-coral-divers", "--verify").code == 0
    assert pbem("verify", "club-coral-divers").code == 0  # the seed gives every draw, the unknown too
    other = next(t for t in ("brain", "fan", "staghorn", "tube") if t != data["setup"]["draws"][1][1])
    data["setup"]["draws"][1] = ["bag", other]
    path = write(tmp_path, data)
    line = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("  - [bag")][1]
    ran = pbem("import", str(path), "--id", "other")
    assert ran.code == 1
    assert f"setup: line {line}: draw 2 (bag): the record says {other}; the seed gives " in ran.err
    assert "filled every way" not in ran.err  # with a seed there is nothing to fill by guessing


def test_verify_of_a_game_still_running_is_refused(pbem: Callable[..., Ran], tmp_path: Path) -> None:
    assert (
        pbem(
            "new",
            "reef-encounter",
            "--id",
            "run",
            "--player",
            "ann=ann@example.org",
            "--player",
            "bo=bo@example.org",
        ).code
        == 0
    )
    ran = pbem("verify", "run")
    assert ran.code == 1 and "game run is not finished" in ran.err


def test_an_unknown_the_order_grammar_cannot_fill_is_refused_in_words(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = by_hand()
    turn, step = next(
        (k, i)
        for k, t in enumerate(data["turns"])
        for seat, steps in t["orders"].items()
        for i, s in enumerate(steps)
        if isinstance(s, dict) and "place" in s
    )
    seat = next(iter(data["turns"][turn]["orders"]))
    data["turns"][turn]["orders"][seat][step] = {"place": "unknown"}
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert "place is unknown, and the order grammar names no values to fill it with: write it" in ran.err


def test_an_archive_of_a_game_with_assumed_draws_imports_still_saying_so(
    pbem: Callable[..., Ran], engine: Engine, tmp_path: Path
) -> None:
    assert pbem("import", str(BY_HAND)).code == 0
    archive = tmp_path / "reef.yaml"
    assert pbem("export", "club-reef-by-hand", "-o", str(archive)).code == 0
    assert "assumed" in archive.read_text(encoding="utf-8")
    assert pbem("import", str(archive), "--id", "again").code == 0
    final = " ".join(report(engine, "again", "alice").split())
    assert "What its record left unknown was assumed" in final and "Assumed in part" in final
    assert pbem("verify", str(archive)).code == 0


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+00:00"])
def test_a_turn_time_outside_the_years_kept_is_refused_in_words(
    pbem: Callable[..., Ran], engine: Engine, tmp_path: Path, when: str
) -> None:
    data = by_hand()
    data["turns"][2]["resolved_at"] = when
    pbem("status")  # the database exists, empty
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert "turn 3: resolved_at" in ran.err and "write a time from 1970" in ran.err
    assert count(engine, GameRow) == 0
