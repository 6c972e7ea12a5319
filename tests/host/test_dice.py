"""Committed dice (issue 17): the commitment published from the start, each turn's draws derived from the
seed and that turn's orders, the seed revealed at the end, and ``pbem verify`` re-deriving every draw
from an archive alone, in a new process; a changed draw, seed or commitment each refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine
from sqlmodel import Session

from host.conftest import SEATS, T0, Table, run_pbem
from pbem.archive.files import export
from pbem.archive.replay import from_database, verify
from pbem.core import dice
from pbem.core.chance import Recorder, derived_rng
from pbem.core.errors import UserError
from pbem.play.create import create_game
from pbem.play.orders import submit
from pbem.play.status import status
from pbem.play.turns import process
from pbem.render.reports import report
from pbem.storage.db import connect
from pbem.storage.history import current_state, game_of
from pbem.storage.models import GameRow


def play_out(engine: Engine, game_id: str) -> None:
    for _ in range(5_000):
        if not process(engine, game_id, fill_missing=True):
            return
    raise AssertionError(f"{game_id} did not end")


def stream(record_dice: int, seed: int, turn: int, digest: str) -> list[int]:
    """A turn's RNG as 4 x 64 bits: two streams that agree here are the same stream."""
    rng = Recorder.for_dice(record_dice, seed, 0, turn, digest)._rng
    return [rng.getrandbits(64) for _ in range(4)]


def test_the_commitment_is_sha256_of_the_tag_and_the_seed() -> None:
    import hashlib

    assert dice.commitment(11) == hashlib.sha256(b"pbem/dice/commitment/v2\x00" + b"11").hexdigest()
    assert dice.commitment(11) != dice.commitment(12)


def test_the_orders_digest_is_in_seat_order_whatever_the_mapping_order() -> None:
    seats = ["red", "blue", "green"]
    a = dice.orders_digest(seats, {"red": [{"bid": 1}], "blue": [{"bid": 2}]})
    b = dice.orders_digest(seats, {"blue": [{"bid": 2}], "red": [{"bid": 1}]})
    assert a == b
    assert a != dice.orders_digest(seats, {"red": [{"bid": 2}], "blue": [{"bid": 1}]})
    assert a != dice.orders_digest(["blue", "red", "green"], {"red": [{"bid": 1}], "blue": [{"bid": 2}]})


def test_a_running_game_publishes_its_commitment_and_hides_its_seed(table: Table, tmp_path: Path) -> None:
    committed = dice.commitment(11)
    text = report(table.engine, table.game_id, "red")
    said = "Commitment to the draws (SHA-256 of the seed, revealed when the game ends):"
    assert f"{said}\n  {committed}\n" in text
    assert "Seed of the draws" not in text
    assert committed in report(table.engine, table.game_id, None, fmt="html")
    entry = status(table.engine, table.game_id)[0]
    assert entry["dice_commitment"] == committed and "seed" not in entry
    # a running game's archive would tell its future draws: refused, unless moved on by the game master
    with pytest.raises(UserError, match="--include-secrets"):
        export(table.engine, table.game_id, str(tmp_path / "a.json"))
    moved = json.loads(export(table.engine, table.game_id, str(tmp_path / "m.json"), include_secrets=True))
    assert moved["game"]["commitment"] == committed and moved["game"]["dice"] == dice.CURRENT
    assert moved["game"]["seed"] == 11


def test_the_final_report_reveals_the_seed(table: Table) -> None:
    play_out(table.engine, table.game_id)
    final = report(table.engine, table.game_id, "blue")
    assert f"  {dice.commitment(11)}\nSeed of the draws: 11 (pbem verify checks it" in final
    assert "Seed of the draws" not in report(table.engine, table.game_id, "blue", turn=1)
    assert status(table.engine, table.game_id)[0]["seed"] == "11"


def _bids(table: Table, change_red: bool) -> None:
    with Session(table.engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        hands = current_state(game_of(row), row).hands
    for seat, _ in SEATS:
        bid = hands[seat][0] if seat == "red" and change_red else hands[seat][-1]
        assert submit(table.engine, table.orders(seat, [{"bid": bid}])).accepted


def test_a_changed_order_changes_that_turns_draws_and_only_those(tmp_path: Path) -> None:
    tables = []
    for name, change in (("a", False), ("b", True)):
        engine = connect(f"sqlite:///{tmp_path / name}.sqlite")
        table = Table(engine, "", "pd-1", create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0))
        _bids(table, change)
        assert process(engine, "pd-1") == [1]
        play_out(engine, "pd-1")
        tables.append(from_database(engine, "pd-1"))
    same, changed = tables
    assert same.turns[0].chance == changed.turns[0].chance  # the setup: no orders, same draws
    assert same.turns[1].orders != changed.turns[1].orders
    digests = [same.digest(same.turns[1]), changed.digest(changed.turns[1])]
    assert digests[0] != digests[1]
    assert stream(2, 11, 1, digests[0]) != stream(2, 11, 1, digests[1])
    # each game's draws are those its own orders give
    assert verify(same)["ok"] and verify(changed)["ok"]
    assert same.turns[1].chance != changed.turns[1].chance
    # only that turn: change turn 2's recorded orders and re-key every turn; only turn 2's stream moves
    record = same
    before = [stream(2, 11, t.number, record.digest(t)) for t in record.turns]
    edited = record.model_copy(deep=True)
    edited.turns[2].orders = {**edited.turns[2].orders, "extra": ["x"]}
    after = [stream(2, 11, t.number, edited.digest(t)) for t in edited.turns]
    assert [b == a for b, a in zip(before, after, strict=True)] == [t.number != 2 for t in record.turns]


def test_no_one_can_know_a_turns_draws_before_its_orders(table: Table) -> None:
    """Turn 1's RNG is not that of (seed, turn) alone, as in dice version 1: it needs the orders."""
    _bids(table, False)
    process(table.engine, table.game_id)
    record = from_database(table.engine, table.game_id)
    old = derived_rng(11, 0, 1)
    assert stream(2, 11, 1, record.digest(record.turns[1])) != [old.getrandbits(64) for _ in range(4)]
    assert stream(2, 11, 1, record.digest(record.turns[1])) != stream(2, 11, 1, dice.orders_digest([], {}))


def test_a_game_from_before_keeps_its_derivation_and_replays(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dice, "CURRENT", 1)  # a host from before committed dice
    create_game(engine, "pearl-dive", "old-1", SEATS, seed=5, now=T0)
    monkeypatch.undo()
    play_out(engine, "old-1")
    record = from_database(engine, "old-1")
    assert record.dice == 1 and record.commitment is None
    for turn in record.turns:  # version 1: the draws of (seed, epoch, turn) alone
        rng = derived_rng(5, 0, turn.number)
        assert [rng.randrange(n) for _label, n, _o in turn.chance] == [o for _l, _n, o in turn.chance]
    assert verify(record)["ok"]
    assert "Dice" not in report(engine, "old-1", "red")


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished bot game of each real game, exported."""
    folder = tmp_path_factory.mktemp("dice")
    engine = connect(f"sqlite:///{folder / 'games.sqlite'}")
    found = {}
    for number, game_type in enumerate(("reef-encounter", "mare-balticum", "coral-divers")):
        game_id = f"g-{number}"
        seats = [("ann", "a@x.org"), ("bo", "b@x.org"), ("cy", "c@x.org")]
        create_game(engine, game_type, game_id, seats, seed=40 + number)
        play_out(engine, game_id)
        found[game_type] = folder / f"{game_type}.json"
        export(engine, game_id, str(found[game_type]))
    return found


def _verify_alone(path: Path, tmp_path: Path) -> tuple[int, str, str]:
    """``pbem verify`` in a new process, in an empty folder, with no database."""
    alone = tmp_path / "alone"
    alone.mkdir(exist_ok=True)
    ran = run_pbem("verify", str(path), cwd=alone)
    assert not (alone / "pbem.sqlite").exists()
    return ran.returncode, ran.stdout, ran.stderr


@pytest.mark.parametrize("game_type", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_verify_rederives_every_draw_of_every_game_from_the_archive_alone(
    archives: dict[str, Path], game_type: str, tmp_path: Path
) -> None:
    data = json.loads(archives[game_type].read_text())
    draws = sum(len(t["chance"]) for t in data["turns"])
    code, out, err = _verify_alone(archives[game_type], tmp_path)
    assert code == 0, err
    assert f"is the one committed to ({data['game']['commitment']})" in out
    assert f"{draws} draws over {len(data['turns'])} turns re-derived; every state hash matches" in out


def _tampered(source: Path, tmp_path: Path, change: str) -> Path:
    data = json.loads(source.read_text())
    if change == "seed":
        data["game"]["seed"] += 1
    elif change == "commitment":
        data["game"]["commitment"] = dice.commitment(data["game"]["seed"] + 1)
    else:
        turn = next(t for t in data["turns"] if t["number"] > 0 and t["chance"])
        label, n, outcome = turn["chance"][0]
        turn["chance"][0] = [label, n, (outcome + 1) % n if n > 1 else outcome]
    path = tmp_path / f"{change}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("draw", "draw: turn "),
        ("seed", "seed: "),
        ("commitment", "commitment: "),
    ],
)
def test_verify_refuses_a_tampered_archive_by_name(
    archives: dict[str, Path], tmp_path: Path, change: str, named: str
) -> None:
    code, _out, err = _verify_alone(_tampered(archives["reef-encounter"], tmp_path, change), tmp_path)
    assert code == 1
    problems = err.splitlines()
    assert problems[-1].endswith("the dice do NOT check out")
    assert problems[0].startswith(named), err
    others = {"draw: turn ", "seed: ", "commitment: "} - {named}
    assert not any(p.startswith(o) for p in problems for o in others), err
    assert "Traceback" not in err


def test_verify_of_a_running_game_says_the_seed_is_not_yet_revealed(table: Table, tmp_path: Path) -> None:
    path = tmp_path / "running.json"
    # a running game's archive leaves the host only with its secrets; a copy without its seed
    data = yaml.safe_load(export(table.engine, table.game_id, None, include_secrets=True))
    data["game"]["seed"] = None
    path.write_text(json.dumps(data))
    ran = run_pbem("verify", str(path))
    assert ran.returncode == 1 and "seed: the archive holds no seed" in ran.stderr
    assert "Traceback" not in ran.stderr
