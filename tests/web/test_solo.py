"""A solo game on the web: a player against the stand-in's seats sends orders by clicking, and the turn
resolves at once (the stand-ins owe nothing), so the next report is on the seat's page straight away, not
at the next tick. A game with other players still waits for them."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from pbem.core import caches
from pbem.play.create import create_game
from pbem.play.status import status
from pbem.storage.db import connect
from pbem.web.settings import WebSettings
from tests.web.conftest import SECRET, SEED, Host, signed_in
from tests.web.test_orders_form import play_by_clicks


def _solo_host(tmp_path: Path) -> Host:
    db = f"sqlite:///{tmp_path / 'solo.sqlite'}"
    engine = connect(db)
    passwords = create_game(
        engine,
        "reef-encounter",
        "reef-1",
        [("ann", "ann@example.org"), ("bo", ""), ("cy", "")],
        seed=SEED,
        turn_seconds=48 * 3600,
        bots={"bo": "normal", "cy": "easy"},
    )
    caches.clear_all()
    return Host(db, engine, passwords, WebSettings(db_url=db, secret_key=SECRET))


def _turn(host: Host) -> int:
    return int(status(host.engine, "reef-1")[0]["turn"])


def test_a_solo_turn_resolves_as_soon_as_the_player_sends(tmp_path: Path) -> None:
    host = _solo_host(tmp_path)
    client: TestClient = signed_in(host, "ann")
    before = _turn(host)
    after = play_by_clicks(host, client, "ann")
    assert "Your orders are accepted for turn" in after
    assert _turn(host) == before + 1  # no tick, no `pbem process`: the stand-ins played at once
    assert status(host.engine, "reef-1")[0]["awaited"] == ["ann"]  # the player's next decision
    host.engine.dispose()


def test_a_game_with_other_players_still_waits_for_them(host: Host) -> None:
    before = _turn(host)
    play_by_clicks(host, signed_in(host, "ann"), "ann")
    assert _turn(host) == before
    assert "ann" not in status(host.engine, "reef-1")[0]["awaited"]
