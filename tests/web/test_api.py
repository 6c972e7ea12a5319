"""The JSON API under /api/v1 on a seat's bearer token: the seat's view, the legal next steps, check,
submit, press and status; errors as {code, message} in the seat's words; the token of one seat never
reads or acts for another, and never shows another seat's secrets."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.intake.orderfile import load
from pbem.play import builder, orders
from pbem.storage.history import current_state, game_of, game_row
from pbem.storage.models import OutboxRow, PressRow, SeatRow
from pbem.web.auth import SeatAccess, api_token
from tests.web.conftest import SECRET, Host
from tests.web.orders_game import speaks

API = "/api/v1/games/reef-1/seats/{seat}"


def token(host: Host, seat: str, game: str = "reef-1", generation: int = 0) -> str:
    return api_token(SECRET, SeatAccess(game, seat, "en", ""), generation)


def bearer(host: Host, seat: str, **more: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(host, seat, **more)}"}


@pytest.fixture
def api(host: Host) -> TestClient:
    return host.client()


def _wanted(host: Host, seat: str) -> list[Any]:
    steps = load(orders.template(host.engine, "reef-1", seat, suggest=True))["orders"]
    return steps if isinstance(steps, list) else [steps]


def _views(host: Host) -> dict[str | None, dict[str, Any]]:
    with Session(host.engine) as session:
        row = game_row(session, "reef-1")
    game = game_of(row)
    state = current_state(game, row)
    return {seat: json.loads(json.dumps(game.view(state, seat))) for seat in (None, "ann", "bo", "cy")}


def test_the_view_is_the_seats_own_and_holds_no_other_seats_secrets(host: Host, api: TestClient) -> None:
    answer = api.get(API.format(seat="ann") + "/view", headers=bearer(host, "ann"))
    assert answer.status_code == 200
    body = answer.json()
    views = _views(host)
    assert body["view"] == views["ann"] and body["seat"] == "ann" and body["turn"] == 1
    assert body["decision"]["kind"] and body["orders"] is None
    for other in ("bo", "cy"):
        secret = {
            k: v for k, v in views[other].items() if v != views[None].get(k) and v != views["ann"].get(k)
        }
        assert secret, "the test needs a seat with something hidden"
        for key, value in secret.items():
            assert body["view"].get(key) != value
            assert json.dumps(value) not in answer.text or json.dumps(value) in json.dumps(views["ann"])


def test_steps_lead_to_complete_orders_with_a_preview(host: Host, api: TestClient) -> None:
    url, headers = API.format(seat="ann") + "/steps", bearer(host, "ann")
    first = api.post(url, json={"chosen": []}, headers=headers).json()
    assert not first["complete"] and first["choices"] and first["turn"] == 1
    assert {c["keyword"] for c in first["choices"]} == {"setup"}
    wanted = _wanted(host, "ann")
    done = api.post(url, json={"chosen": wanted, "turn": 1}, headers=headers).json()
    assert done["complete"] and "Preview of your orders" in done["preview"] and len(done["receipt"]) == 64
    stale = api.post(url, json={"chosen": [], "turn": 0}, headers=headers)
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "turn.stale"
    wrong = api.post(url, json={"chosen": [{"setup": {"polyp": "nowhere"}}]}, headers=headers)
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "orders.shape"


def test_check_and_submit_give_the_same_receipt_and_replace_until_the_turn_resolves(
    host: Host, api: TestClient
) -> None:
    base, headers = API.format(seat="ann"), bearer(host, "ann")
    wanted = _wanted(host, "ann")
    checked = api.post(base + "/check", json={"orders": wanted}, headers=headers).json()
    assert checked["ok"] and checked["errors"] == []
    sent = api.post(base + "/orders", json={"orders": wanted}, headers=headers)
    assert sent.status_code == 200 and sent.json()["receipt"] == checked["receipt"]
    assert sent.json()["replaced"] is None
    again = api.post(base + "/orders", json={"orders": wanted, "turn": 1}, headers=headers).json()
    assert again["replaced"] is not None
    assert builder.standing_orders(host.engine, "reef-1", "ann") == wanted
    with Session(host.engine) as session:
        mails = session.exec(select(OutboxRow).where(OutboxRow.to_addr == "ann@example.org")).all()
    assert sum("orders accepted for ann" in m.subject for m in mails) == 2


def test_rejected_orders_answer_422_with_every_error(host: Host, api: TestClient) -> None:
    base, headers = API.format(seat="ann"), bearer(host, "ann")
    text = orders.template(host.engine, "reef-1", "ann")
    bad = text.split("orders:")[0] + "orders:\n  - setup: {parrotfish: purple}\n"
    answer = api.post(base + "/orders", json={"text": bad}, headers=headers)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] and "purple" in error["message"] and answer.json()["errors"]
    both = api.post(base + "/check", json={"text": bad, "orders": []}, headers=headers)
    assert both.status_code == 422 and both.json()["error"]["code"] == "orders.shape"


def test_press_and_status(host: Host, api: TestClient) -> None:
    base, headers = API.format(seat="ann"), bearer(host, "ann")
    sent = api.post(
        base + "/press", json={"to": ["bo"], "text": "Shall we leave orange alone?"}, headers=headers
    )
    assert sent.status_code == 200 and sent.json()["to"] == ["bo"]
    with Session(host.engine) as session:
        assert session.exec(select(PressRow.sender)).all() == ["ann"]
    empty = api.post(base + "/press", json={"to": "all", "text": "  "}, headers=headers)
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "press.refused"
    status = api.get(base + "/status", headers=headers).json()
    assert status["id"] == "reef-1" and set(status["awaited"]) == {"ann", "bo", "cy"}
    assert "seed" not in status


def test_no_token_a_forged_one_and_a_revoked_one_are_refused_alike(host: Host, api: TestClient) -> None:
    url = API.format(seat="ann") + "/view"
    answers = [
        api.get(url),
        api.get(url, headers={"Authorization": "Bearer forged.token"}),
        api.get(url, headers={"Authorization": "Basic " + token(host, "ann")}),
        api.get(url, headers=bearer(host, "ann", generation=1)),  # not the seat's generation
    ]
    with Session(host.engine) as session:  # a password reset raises the generation: the old token ends
        seat = session.exec(select(SeatRow).where(SeatRow.name == "ann")).one()
        seat.link_generation += 1
        session.add(seat)
        session.commit()
    answers.append(api.get(url, headers=bearer(host, "ann")))
    for answer in answers:
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "auth.token"
        assert answer.headers["www-authenticate"] == "Bearer"


def test_a_token_reads_and_acts_for_its_own_seat_only(host: Host, api: TestClient) -> None:
    headers = bearer(host, "bo")
    for path in ("/view", "/status"):
        answer = api.get(API.format(seat="ann") + path, headers=headers)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "auth.other_seat"
    for path, body in (
        ("/steps", {"chosen": []}),
        ("/orders", {"orders": []}),
        ("/press", {"to": "all", "text": "x"}),
    ):
        answer = api.post(API.format(seat="ann") + path, json=body, headers=headers)
        assert answer.status_code == 403, path
        assert answer.json()["error"]["code"] == "auth.other_seat"
    with Session(host.engine) as session:
        assert session.exec(select(PressRow)).all() == []  # nothing was done for ann
    assert builder.standing_orders(host.engine, "reef-1", "ann") is None
    other_game = api.get("/api/v1/games/other-9/seats/bo/view", headers=headers)
    assert other_game.status_code == 403
    unknown = api.get("/api/v1/games/reef-1/seats/nobody/view", headers=headers)
    assert unknown.status_code == 403 and unknown.json() == other_game.json()


def test_a_body_that_is_not_json_of_the_call_is_answered_in_json(host: Host, api: TestClient) -> None:
    answer = api.post(API.format(seat="ann") + "/steps", json={"chosen": "pass"}, headers=bearer(host, "ann"))
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "request.shape"
    assert "chosen" in answer.json()["error"]["message"]


def test_errors_come_in_the_seats_language(host: Host, api: TestClient) -> None:
    speaks(host.engine, "ann", "hu")
    answer = api.post(
        API.format(seat="ann") + "/steps", json={"chosen": [], "turn": 0}, headers=bearer(host, "ann")
    )
    assert answer.status_code == 409 and "korábbi körre" in answer.json()["error"]["message"]


def test_the_openapi_document_lists_every_call(host: Host, api: TestClient) -> None:
    paths = api.get("/api/openapi.json").json()["paths"]
    for call in ("view", "steps", "check", "orders", "press", "status"):
        assert "/api/v1/games/{game}/seats/{seat}/" + call in paths


def test_floods_are_answered_429_in_json(tmp_path: Any) -> None:
    from tests.web.conftest import make_host

    host = make_host(tmp_path, requests_per_minute=3)
    api = host.client()
    codes = [
        api.get(API.format(seat="ann") + "/status", headers=bearer(host, "ann")).status_code for _ in range(5)
    ]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    last = api.get(API.format(seat="ann") + "/status", headers=bearer(host, "ann"))
    assert last.json()["error"]["code"] == "rate" and last.headers["retry-after"] == "60"


def test_the_token_is_shown_on_the_seats_own_orders_page_and_the_api_takes_it(
    host: Host, api: TestClient
) -> None:
    from tests.web.conftest import signed_in

    page = signed_in(host, "ann").get("/g/reef-1/ann/orders").text
    shown = re.search(r'<code class="token">([^<]+)</code>', page)
    assert shown and API.format(seat="ann") in page
    answer = api.get(API.format(seat="ann") + "/view", headers={"Authorization": f"Bearer {shown.group(1)}"})
    assert answer.status_code == 200 and answer.json()["seat"] == "ann"


def test_no_answer_holds_another_seats_secrets(host: Host, api: TestClient) -> None:
    base, headers = API.format(seat="ann"), bearer(host, "ann")
    wanted = _wanted(host, "ann")
    answers = [
        api.get(base + "/view", headers=headers).text,
        api.post(base + "/steps", json={"chosen": []}, headers=headers).text,
        api.post(base + "/steps", json={"chosen": wanted}, headers=headers).text,
        api.post(base + "/check", json={"orders": wanted}, headers=headers).text,
        api.get(base + "/status", headers=headers).text,
        api.post(base + "/orders", json={"orders": [{"setup": "x"}]}, headers=headers).text,
    ]
    views = _views(host)
    own = json.dumps(views["ann"])
    looked = 0
    for other in ("bo", "cy"):
        for key, value in views[other].items():
            said = json.dumps(value)
            # what only the other seat sees, distinctive enough to be found (not a lone number or word)
            if value == views[None].get(key) or len(said) < 12 or said in own:
                continue
            assert all(said not in answer for answer in answers), f"{other}'s {key} leaked"
            looked += 1
    assert looked, "the other seats hold nothing of their own to look for"
