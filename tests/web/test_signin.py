"""Signing in to the web host: the mailed link, the password form, sessions and their revocation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

from fastapi import Depends
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.cron import admin
from pbem.mail.password_reset import request as reset_password
from pbem.outbox.settings import MailSettings
from pbem.play.create import create_game
from pbem.storage.models import PasswordFailureRow, SeatRow
from pbem.web.app import create_app
from pbem.web.auth import SeatAccess, api_token, bearer_access
from pbem.web.sessions import COOKIE
from web.conftest import SECRET, Host, csrf_of, make_host, signed_in


def test_a_mailed_link_signs_in_to_the_seats_page(host: Host) -> None:
    client = host.client()
    answer = client.get(host.link("ann"))
    assert answer.status_code == 303 and answer.headers["location"] == "/g/reef-1/ann"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    page = client.get("/g/reef-1/ann")
    assert page.status_code == 200 and "report for ann" in page.text


def test_behind_tls_the_cookie_is_secure(tmp_path: Path) -> None:
    host = make_host(tmp_path, behind_tls=True)
    answer = host.client().get(host.link("ann"))
    assert "Secure" in answer.headers["set-cookie"]


def test_an_expired_link_signs_nobody_in(host: Host) -> None:
    client = host.client()
    old = host.link("ann", now=datetime.now(UTC) - timedelta(days=15))
    answer = client.get(old)
    assert answer.status_code == 400 and "no longer works" in answer.text
    assert client.get("/g/reef-1/ann").status_code == 303  # still signed in as nobody


def test_a_forged_link_signs_nobody_in(host: Host) -> None:
    token = host.link("ann").removeprefix("/in/")
    body, _dot, signature = token.rpartition(".")
    forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + signature
    client = host.client()
    assert client.get("/in/" + forged).status_code == 400
    assert client.get("/in/not-a-token").status_code == 400
    assert client.get("/g/reef-1/ann").status_code == 303


def test_a_password_reset_revokes_the_links_and_the_sessions_made_before(host: Host) -> None:
    client = signed_in(host, "ann")
    link = host.link("ann")
    reset_password(host.engine, {"game": "reef-1", "player": "ann"}, settings=MailSettings())
    assert client.get("/g/reef-1/ann").status_code == 303  # the session ended with it
    assert host.client().get(link).status_code == 400  # and the link
    assert host.client().get(host.link("ann", generation=1)).status_code == 303  # a new one works


def test_replace_revokes_the_old_players_links(host: Host) -> None:
    client = signed_in(host, "bo")
    admin.replace(host.engine, "reef-1", "bo", "new@example.org", datetime.now(UTC))
    assert client.get("/g/reef-1/bo").status_code == 303
    assert host.client().get(host.link("bo")).status_code == 400


def test_the_password_form_signs_in_and_renews_the_session_id(host: Host) -> None:
    client = host.client()
    form = client.get("/sign-in")
    before = client.cookies.get(COOKIE)
    assert before  # the form's CSRF token belongs to a session begun here
    answer = client.post(
        "/sign-in",
        data={"game": "reef-1", "seat": "ann", "password": host.passwords["ann"], "csrf": csrf_of(form.text)},
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/g/reef-1/ann"
    after = client.cookies.get(COOKIE)
    assert after and after != before
    # no fixation: the cookie from before sign-in is still signed in as nobody
    planted = host.client()
    planted.cookies.set(COOKIE, before)
    assert planted.get("/g/reef-1/ann").status_code == 303
    assert client.get("/g/reef-1/ann").status_code == 200


def _wrong_try(host: Host, game: str, seat: str) -> tuple[int, str]:
    client = host.client()
    form = client.get("/sign-in")
    answer = client.post(
        "/sign-in", data={"game": game, "seat": seat, "password": "tulip-frog-42", "csrf": csrf_of(form.text)}
    )
    return answer.status_code, answer.text


def test_a_wrong_password_reads_the_same_whether_the_seat_exists_and_is_counted(host: Host) -> None:
    status, page = _wrong_try(host, "reef-1", "ann")
    status_none, page_none = _wrong_try(host, "reef-1", "zed")
    assert status == status_none == 400
    assert page.replace("ann", "zed").replace(csrf_of(page), "") == page_none.replace(csrf_of(page_none), "")
    with Session(host.engine) as session:
        counted = session.exec(
            select(PasswordFailureRow.seat).where(PasswordFailureRow.game_id == "reef-1")
        ).all()
    assert sorted(counted) == ["ann", "zed"]  # with the mail's guessing holds, existing or not


def test_one_address_sees_all_its_games_on_one_page(host: Host) -> None:
    create_game(
        host.engine, "reef-encounter", "reef-2", [("ann", "Ann@Example.org"), ("dee", "dee@example.org")]
    )
    client = signed_in(host, "ann")
    me = client.get("/me")
    assert '/g/reef-1/ann"' in me.text and '/g/reef-2/ann"' in me.text
    assert client.get("/g/reef-2/ann").status_code == 200
    assert client.get("/g/reef-2/dee").status_code == 403


def test_a_password_sign_in_gives_that_seat_alone(host: Host) -> None:
    create_game(
        host.engine, "reef-encounter", "reef-2", [("ann", "ann@example.org"), ("dee", "dee@example.org")]
    )
    client = host.client()
    form = client.get("/sign-in")
    client.post(
        "/sign-in",
        data={"game": "reef-1", "seat": "ann", "password": host.passwords["ann"], "csrf": csrf_of(form.text)},
    )
    assert client.get("/g/reef-1/ann").status_code == 200
    assert client.get("/g/reef-2/ann").status_code == 403


def test_signing_out_ends_the_session(host: Host) -> None:
    client = signed_in(host, "ann")
    page = client.get("/g/reef-1/ann")
    assert client.post("/sign-out", data={"csrf": csrf_of(page.text)}).status_code == 303
    assert client.get("/g/reef-1/ann").status_code == 303


def test_a_seat_row_keeps_its_generation(host: Host) -> None:
    with Session(host.engine) as session:
        generations = session.exec(select(SeatRow.link_generation).where(SeatRow.game_id == "reef-1")).all()
    assert generations == [0, 0, 0]


def test_a_bearer_token_stands_for_its_seat_until_it_is_revoked(host: Host) -> None:
    app = create_app(host.settings)

    @app.get("/api/whoami")
    def whoami(access: Annotated[SeatAccess, Depends(bearer_access)]) -> dict[str, str]:
        return {"game": access.game_id, "seat": access.seat}

    client = TestClient(app)
    token = api_token(SECRET, SeatAccess("reef-1", "bo", "en", ""), 0)
    assert client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).json() == {
        "game": "reef-1",
        "seat": "bo",
    }
    forged = token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")
    for header in ["", "Bearer", f"Basic {token}", f"Bearer {forged}", f"Bearer {host.link('bo')[4:]}"]:
        answer = client.get("/api/whoami", headers={"Authorization": header} if header else {})
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer", header
    admin.replace(host.engine, "reef-1", "bo", "new@example.org", datetime.now(UTC))
    assert client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).status_code == 401
