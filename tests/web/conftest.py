"""Fixtures of the web host's tests: a Reef Encounter game on a real SQLite file, the app over it, and a
browser-like client per player (fastapi's TestClient, httpx)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from pbem.core import caches
from pbem.outbox.signin import LinkSettings, link
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.web.app import create_app
from pbem.web.settings import WebSettings

SECRET = "test-key-" + "k" * 40
URL = "https://games.example.org"
#: long enough that finding it in a page means it is there
SEED = 8_123_456_789_012_345
PLAYERS = [("ann", "ann@example.org"), ("bo", "bo@example.org"), ("cy", "cy@example.org")]


@dataclass
class Host:
    """A game on a database, the web app over it, and the seats' passwords."""

    url: str
    engine: Engine
    passwords: dict[str, str]
    settings: WebSettings

    def client(self) -> TestClient:
        return TestClient(create_app(self.settings), base_url="https://testserver", follow_redirects=False)

    def link(self, seat: str, game: str = "reef-1", generation: int = 0, now: datetime | None = None) -> str:
        made = link(LinkSettings(URL, SECRET), game, seat, generation, now or datetime.now(UTC))
        assert made is not None
        return made.removeprefix(URL)


def make_host(tmp_path: Path, url: str | None = None, **settings: object) -> Host:
    db = url or f"sqlite:///{tmp_path / 'web.sqlite'}"
    engine = connect(db)
    passwords = create_game(engine, "reef-encounter", "reef-1", PLAYERS, seed=SEED, turn_seconds=48 * 3600)
    caches.clear_all()
    return Host(db, engine, passwords, WebSettings(db_url=db, secret_key=SECRET, **settings))  # type: ignore[arg-type]


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    made = make_host(tmp_path)
    yield made
    made.engine.dispose()


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no form with a CSRF token"
    return found.group(1)


def signed_in(host: Host, seat: str, game: str = "reef-1") -> TestClient:
    """A client signed in as ``seat`` of ``game`` by its mailed link."""
    client = host.client()
    answer = client.get(host.link(seat, game))
    assert answer.status_code == 303, answer.text
    return client


SignedIn = Callable[[str], TestClient]


@pytest.fixture
def player(host: Host) -> SignedIn:
    return lambda seat: signed_in(host, seat)


LATER = timedelta(days=30)
