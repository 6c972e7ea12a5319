"""Another seat's secrets never reach a page, fragment or error of the web host, whatever a player,
an observer or another game's master tries: another seat's id in the path, changed case, other turns,
posts, expired or revoked links, the archive."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.core.codec import unpack
from pbem.mail.gm import set_game_master
from pbem.play.create import create_game
from pbem.storage.models import GameRow, ReportRow
from web.conftest import Host, csrf_of, signed_in

_PRIVATE = re.compile(r'<section class="block private">.*?</section>', re.DOTALL)


def secrets_of(host: Host, seat: str) -> list[str]:
    """What only ``seat`` may read: its hidden holdings as its report shows them, its password, its
    address, and the game's seed."""
    with Session(host.engine) as session:
        page = unpack(
            session.exec(
                select(ReportRow.html_z).where(ReportRow.game_id == "reef-1", ReportRow.seat == seat)
            ).one()
        )
        seed = session.get(GameRow, "reef-1").seed  # type: ignore[union-attr]
    held = _PRIVATE.search(page)
    assert held, "the report has no private section to look for"
    return [held.group(0), host.passwords[seat], f"{seat}@example.org", str(seed)]


def tried_paths(game: str = "reef-1") -> list[str]:
    return [
        f"/g/{game}/bo",
        f"/g/{game}/bo?turn=0",
        f"/g/{game}/BO",
        f"/g/{game}/bo/",
        f"/g/{game}/bo%2F..%2Fann",
        f"/g/{game}/bo/orders",
        "/g/reef-9/bo",
        f"/g/{game}/zed",
        f"/archive/{game}",
        f"/archive/{game}?lang=hu",
        f"/gm/{game}",
        "/me",
        "/",
        "/sign-in?next=/g/reef-1/bo",
        "/api/openapi.json",
        "/nothing-here",
    ]


def assert_nothing_of(answer_text: str, headers: dict[str, str], secrets: list[str], where: str) -> None:
    shown = answer_text + "\n".join(f"{k}: {v}" for k, v in headers.items())
    for secret in secrets:
        assert secret not in shown, f"{where} shows a secret of bo: {secret[:60]!r}"


def _try_everything(client: TestClient, host: Host, secrets: list[str]) -> None:
    for path in tried_paths():
        answer = client.get(path)
        assert_nothing_of(answer.text, dict(answer.headers), secrets, path)
    page = client.get("/sign-in")
    token = csrf_of(page.text)
    for path in ["/g/reef-1/bo/press", "/gm/reef-1/pause", "/g/reef-1/bo/orders"]:
        answer = client.post(path, data={"csrf": token, "text": "hello", "to": "all"})
        assert answer.status_code in (303, 403, 404, 405), (path, answer.status_code)
        assert_nothing_of(answer.text, dict(answer.headers), secrets, "POST " + path)


def test_bos_secrets_are_his_own(host: Host) -> None:
    bo, ann = secrets_of(host, "bo"), secrets_of(host, "ann")
    assert bo[0] != ann[0]  # the holdings differ: looking for bo's in ann's pages means something
    page = signed_in(host, "bo").get("/g/reef-1/bo").text
    assert bo[0].split("</h2>", 1)[1][:200] in page  # and bo's own page shows them


@pytest.mark.parametrize("who", ["ann", "cy"])
def test_another_seat_sees_none_of_bos_secrets(host: Host, who: str) -> None:
    client = signed_in(host, who)
    secrets = secrets_of(host, "bo")
    _try_everything(client, host, secrets)
    assert client.get("/g/reef-1/bo").status_code == 403


def test_an_observer_sees_none_of_them(host: Host) -> None:
    secrets = secrets_of(host, "bo")
    client = host.client()
    _try_everything(client, host, secrets)
    assert client.get("/g/reef-1/bo").status_code == 303


def test_expired_and_revoked_links_show_none_of_them(host: Host) -> None:
    secrets = secrets_of(host, "bo")
    for path in [
        host.link("bo", now=datetime.now(UTC) - timedelta(days=30)),
        host.link("bo", generation=5),
        host.link("bo", game="reef-9"),
    ]:
        client = host.client()
        answer = client.get(path)
        assert answer.status_code == 400
        assert_nothing_of(answer.text, dict(answer.headers), secrets, path)
        assert client.get("/g/reef-1/bo").status_code == 303


def test_a_game_master_of_another_game_sees_none_of_them(host: Host) -> None:
    create_game(
        host.engine, "reef-encounter", "reef-2", [("dee", "dee@example.org"), ("eve", "eve@example.org")]
    )
    password = set_game_master(host.engine, "reef-2", "gm@example.org")
    client = host.client()
    form = client.get("/sign-in")
    answer = client.post(
        "/sign-in/gm", data={"game": "reef-2", "password": password, "csrf": csrf_of(form.text)}
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/gm/reef-2"
    assert client.get("/gm/reef-2").status_code == 200
    secrets = secrets_of(host, "bo")
    _try_everything(client, host, secrets)
    assert client.get("/gm/reef-1").status_code == 403
    assert client.get("/g/reef-1/bo").status_code == 403
