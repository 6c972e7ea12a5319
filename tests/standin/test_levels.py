"""The stand-in's levels in the host: a seat it plays from the start (``pbem new --bot SEAT=LEVEL``), the
missed-orders policy ``bot:LEVEL``, a seat given to it (``pbem replace GAME SEAT bot:LEVEL``); each turn
it plays records its level, every report names it in the reader's language, and the archive replays."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from host.conftest import Ran
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive.replay import from_database, verify
from pbem.core import i18n
from pbem.host.tick import TickSettings, tick
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import submit, template
from pbem.play.status import describe, status
from pbem.play.turns import process
from pbem.render import reports
from pbem.storage.models import GameRow, SeatRow, SubmissionRow, TurnRow

Pbem = Callable[..., Ran]


def turns_of(engine: Engine, game_id: str) -> list[TurnRow]:
    with Session(engine) as session:
        query = select(TurnRow).where(TurnRow.game_id == game_id).order_by(TurnRow.number)  # type: ignore[arg-type]
        return list(session.exec(query))


def game_of(engine: Engine, game_id: str) -> GameRow:
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row


def send(engine: Engine, game_id: str, seat: str, password: str) -> None:
    """``seat``'s orders as its player would send them: the template's suggestion, signed."""
    text = template(engine, game_id, seat, suggest=True).replace(PASSWORD_PLACEHOLDER, password)
    assert submit(engine, text).accepted


def test_a_solo_game_by_the_cli_resolves_each_turn_once_the_player_s_orders_are_in(
    pbem: Pbem, engine: Engine, tmp_path: Path
) -> None:
    ran = pbem(
        "new", "pearl-dive", "--id", "solo", "--player", "ann=ann@example.org", "--bot", "bo=strong",
        "--bot", "cy=normal", "--seed", "5", "--option", "rounds=3", "--deadline", "48h", "--json",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    seats = {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}
    assert list(seats) == ["ann"]  # nobody is told a stand-in seat's password
    with Session(engine) as session:
        levels = {s.name: (s.email, s.bot_level) for s in session.exec(select(SeatRow))}
    assert levels == {"ann": ("ann@example.org", None), "bo": ("", "strong"), "cy": ("", "normal")}
    while game_of(engine, "solo").status == "active":
        number = game_of(engine, "solo").turn
        assert pbem("process", "solo").out.startswith("solo: nothing to resolve")  # it waits for ann only
        orders = tmp_path / f"ann-{number}.yaml"
        orders.write_text(pbem("template", "solo", "--player", "ann", "--suggest").out.replace(
            PASSWORD_PLACEHOLDER, seats["ann"]))  # fmt: skip
        assert pbem("submit", str(orders)).code == 0
        assert pbem("process", "solo").out.startswith(f"solo: resolved turn {number + 1}")
    played = [json.loads(t.by_bot_json) for t in turns_of(engine, "solo")[1:]]
    # a turn is the stand-in's seats' and ann's, or ann's alone (Pearl Dive's second step of a round)
    assert ["bo=strong", "cy=normal"] in played and all(m in (["bo=strong", "cy=normal"], []) for m in played)
    with Session(engine) as session:
        sources = {(s.seat, s.source) for s in session.exec(select(SubmissionRow))}
    assert sources == {("ann", "file"), ("bo", "bot"), ("cy", "bot")}
    text = reports.report(engine, "solo", "ann", turn=1)
    assert "The stand-in played for bo this turn, at the strong level." in text
    assert "The stand-in played for cy this turn, at the normal level." in text
    assert verify(from_database(engine, "solo"))["ok"]


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "The stand-in played for blue this turn, at the normal level."),
        ("hu", "Ebben a lépésben a gépi helyettes játszott blue helyett, normál szinten."),
        ("cs", "Za hráče blue v tomto tahu hrál zástupce, na běžné úrovni."),
        ("zh", "本回合由替补代替 blue 行动，等级：普通。"),
        ("ru", "В этом ходу за игрока blue играл заменяющий бот, на обычном уровне."),
    ],
)
def test_the_missed_orders_policy_plays_at_its_level_and_each_report_says_so_in_its_language(
    engine: Engine, language: str, line: str
) -> None:
    seats = [("red", "red@example.org"), ("blue", "blue@example.org")]
    issued = create_game(
        engine, "pearl-dive", "g", seats, seed=3, nmr="bot:normal", seat_languages={"red": language}
    )
    send(engine, "g", "red", issued["red"])
    assert process(engine, "g") == []  # the policy plays once the tick finds the deadline passed
    assert process(engine, "g", fill_missing=True) == [1]
    assert json.loads(turns_of(engine, "g")[1].by_bot_json) == ["blue=normal"]
    assert line in reports.report(engine, "g", "red", turn=1)
    assert verify(from_database(engine, "g"))["ok"]  # the replay words the turn the same


def test_a_seat_given_to_the_stand_in_is_no_longer_waited_for(pbem: Pbem, engine: Engine) -> None:
    seats = [("red", "red@example.org"), ("blue", "blue@example.org")]
    issued = create_game(engine, "pearl-dive", "g", seats, seed=3)
    send(engine, "g", "red", issued["red"])
    ran = pbem("replace", "g", "blue", "bot:strong")
    assert (ran.code, ran.out.strip()) == (0, "seat blue of g is now played by the stand-in (strong)")
    assert process(engine, "g")[0] == 1  # and on, through any turn only blue plays
    assert json.loads(turns_of(engine, "g")[1].by_bot_json) == ["blue=strong"]
    with Session(engine) as session:
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
    assert (blue.email, blue.bot_level) == ("", "strong")
    # the seat's old password opens nothing now
    text = template(engine, "g", "blue").replace(PASSWORD_PLACEHOLDER, issued["blue"])
    assert not submit(engine, text).accepted


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--bot", "bo=hard"], "--bot bo=hard: the stand-in's levels are easy, normal, strong"),
        (["--bot", "bo=strong", "--bot", "bo=easy"], "seat names must differ: ann, bo, bo"),
        (["--bot", "ann=easy"], "seat names must differ: ann, ann"),
        (["--bot", "bo=easy", "--nmr", "bot:hard"], "policy 'bot:hard': use one of wait, bot, bot:easy"),
    ],
)
def test_a_bad_level_is_refused_with_what_to_write(pbem: Pbem, args: list[str], said: str) -> None:
    ran = pbem("new", "pearl-dive", "--id", "g", "--player", "ann=ann@example.org", *args)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert said in ran.err


def test_the_tick_plays_a_turn_only_the_stand_in_owes_without_a_deadline(engine: Engine) -> None:
    players = [("ann", "ann@example.org"), ("bo", "")]
    create_game(engine, "coral-divers", "g", players, seed=7, bots={"bo": "normal"})
    assert game_of(engine, "g").turn == 0  # Coral Divers' first turn is bo's (the seed's starting player)
    [entry] = status(engine, "g")
    assert (entry["awaited"], entry["stand_ins"]) == ([], {"bo": "normal"})  # nobody is waited for
    with i18n.language("hu"):
        assert "a gépi helyettes játszik: bo (normál szint)" in describe(entry)
    summary = tick(engine, datetime(2026, 12, 1, 9, tzinfo=UTC), settings=TickSettings(host="test"))
    assert summary.errors == 0 and game_of(engine, "g").turn == 1
    assert json.loads(turns_of(engine, "g")[1].by_bot_json) == ["bo=normal"]


def test_replace_with_an_unknown_level_says_what_to_write_and_a_person_takes_a_stand_in_seat_back(
    pbem: Pbem, engine: Engine
) -> None:
    create_game(engine, "pearl-dive", "g", [("red", "red@example.org"), ("blue", "")], bots={"blue": "easy"})
    ran = pbem("replace", "g", "blue", "bot:hard")
    assert ran.code != 0 and "write bot:easy, bot:normal or bot:strong" in ran.err
    assert pbem("replace", "g", "blue", "bob@example.org", "--no-welcome").code == 0
    with Session(engine) as session:
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
    assert (blue.email, blue.bot_level) == ("bob@example.org", None)  # a player's seat again: waited for
