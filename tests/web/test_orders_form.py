"""The orders form at /g/<game>/<seat>/orders through the app, as a browser without JavaScript uses it:
every step a button of a form, the chosen steps carried in the form, CSRF checked, the preview after
each step, sending through the intake of mail and files (same receipt, stored orders, mailed
confirmation), and a whole turn of Reef Encounter played by clicks alone."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.intake.orderfile import load
from pbem.play import builder, orders
from pbem.play.status import status
from pbem.play.turns import process
from pbem.storage.models import OutboxRow, SubmissionRow
from tests.web.conftest import Host, SignedIn
from tests.web.forms import Form, encoded, forms
from tests.web.orders_game import speaks

BASE = "/g/reef-1/{seat}/orders"


def _page(client: TestClient, seat: str) -> str:
    answer = client.get(BASE.format(seat=seat))
    assert answer.status_code == 200, answer.text
    return answer.text


def _press(client: TestClient, form: Form, data: list[tuple[str, str]]) -> str:
    answer = client.post(form.action, data=encoded(data))
    assert answer.status_code == 200, answer.text
    return answer.text


def _wanted(host: Host, seat: str) -> list[Any]:
    """The steps the game's bot would send: the clicks a player makes in this test."""
    steps = load(orders.template(host.engine, "reef-1", seat, suggest=True))["orders"]
    return steps if isinstance(steps, list) else [steps]


def play_by_clicks(host: Host, client: TestClient, seat: str) -> str:
    """Build the bot's orders one click at a time and send them; the page after sending."""
    page = _page(client, seat)
    for step in _wanted(host, seat):
        form = forms(page)["step"]
        page = _press(client, form, form.data(form.button("add", builder.step_token(step))))
        assert 'class="refusal"' not in page, page
        chosen = [value for name, value in forms(page)["step"].hidden if name == "step"]
        assert chosen[-1] == builder.step_token(step)
    assert "Preview of your orders" in page  # shown once the orders are complete
    form = forms(page)["submit"]
    return _press(client, form, form.data())


def _awaited(host: Host) -> list[str]:
    return list(status(host.engine, "reef-1")[0]["awaited"])


def test_a_whole_turn_is_played_by_clicks_alone(host: Host, player: SignedIn) -> None:
    clients = {seat: player(seat) for seat in ("ann", "bo", "cy")}
    for turn in (1, 2):
        for seat in _awaited(host):
            after = play_by_clicks(host, clients[seat], seat)
            assert "Your orders are accepted for turn" in after
        assert process(host.engine, "reef-1") == [turn]
    with Session(host.engine) as session:
        sent = session.exec(select(SubmissionRow).where(SubmissionRow.source == "web")).all()
        mails = session.exec(select(OutboxRow)).all()
    assert len(sent) == 4 and {row.status for row in sent} == {"consumed"}  # 3 setups, 1 first turn
    confirmations = [m for m in mails if "orders accepted for" in m.subject]
    assert len(confirmations) == len(sent)
    report = clients["ann"].get("/g/reef-1/ann")
    assert report.status_code == 200 and "Turn 2" in report.text


def test_each_step_offers_only_legal_choices_and_undo_takes_the_last_back(
    host: Host, player: SignedIn
) -> None:
    client = player("ann")
    page = _page(client, "ann")
    form = forms(page)["step"]
    first = form.button("add")
    offered = builder.steps(host.engine, "reef-1", "ann", [])
    assert {b.value for b in form.buttons if b.name == "add"} == {c.token for c in offered.choices}
    page = _press(client, form, form.data(first))
    assert [v for n, v in forms(page)["step"].hidden if n == "step"] == [first.value]
    form = forms(page)["step"]
    page = _press(client, form, form.data(form.button("undo")))
    assert [v for n, v in forms(page)["step"].hidden if n == "step"] == []
    assert "Preview of your orders" not in page


def test_a_step_the_rules_refuse_is_said_in_words_and_the_form_goes_on(host: Host, player: SignedIn) -> None:
    client = player("ann")
    form = forms(_page(client, "ann"))["step"]
    page = _press(client, form, form.data(add='{"setup":{"polyp":"nowhere"}}'))
    refusal = re.search(r'<p class="refusal" role="alert">(.*?)</p>', page, re.S)
    assert refusal and "[orders.shape]" in refusal.group(1)
    assert "Traceback" not in page and "pydantic" not in page.lower()
    assert forms(page)["step"].buttons, "the form starts over with the legal first steps"


def test_a_form_kept_past_its_turn_is_refused(host: Host, player: SignedIn) -> None:
    client = player("ann")
    form = forms(_page(client, "ann"))["step"]
    data = [(n, "0" if n == "turn" else v) for n, v in form.data(form.button("add"))]
    page = _press(client, form, data)
    assert "an earlier turn" in page and 'class="refusal"' in page


def test_every_post_checks_the_csrf_token(host: Host, player: SignedIn) -> None:
    client = player("ann")
    page = _page(client, "ann")
    for name in ("step", "submit", "yaml"):
        form = forms(page)[name]
        data = [(n, "forged" if n == "csrf" else v) for n, v in form.data()]
        answer = client.post(form.action, data=encoded(data))
        assert answer.status_code == 403, name


def test_another_seats_form_is_not_served(host: Host, player: SignedIn) -> None:
    client = player("ann")
    assert client.get(BASE.format(seat="bo")).status_code == 403
    stranger = host.client()
    assert stranger.get(BASE.format(seat="ann")).status_code == 303  # to the sign-in page


def test_the_yaml_box_checks_and_sends_without_script(host: Host, player: SignedIn) -> None:
    client = player("ann")
    form = forms(_page(client, "ann"))["yaml"]
    text = form.textareas["text"]
    assert "player: ann" in text and "game: reef-1" in text
    bad = text.replace("player: ann", "player: bo")
    page = _press(client, form, [(n, v) for n, v in form.hidden] + [("text", bad), ("do", "check")])
    assert "[auth.other_seat]" in page
    good = orders.template(host.engine, "reef-1", "ann", suggest=True)
    page = _press(client, form, [(n, v) for n, v in form.hidden] + [("text", good), ("do", "check")])
    assert "These orders are legal." in page and "Preview of your orders" in page
    page = _press(client, form, [(n, v) for n, v in form.hidden] + [("text", good), ("do", "send")])
    assert "Your orders are accepted for turn 1" in page
    assert builder.standing_orders(host.engine, "reef-1", "ann") is not None


def test_with_the_fragment_header_only_the_changed_part_comes_back(host: Host, player: SignedIn) -> None:
    client = player("ann")
    form = forms(_page(client, "ann"))["step"]
    answer = client.post(
        form.action, data=encoded(form.data(form.button("add"))), headers={"X-PBEM-Fragment": "1"}
    )
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<section id="orders"') and "<html" not in answer.text


def test_the_script_is_served_by_the_host(host: Host) -> None:
    answer = host.client().get("/static/orders.js")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/javascript")
    assert "http" not in answer.text.replace("X-PBEM-Fragment", "")  # nothing fetched from elsewhere


def test_the_seat_page_links_to_the_orders_form(host: Host, player: SignedIn) -> None:
    page = player("ann").get("/g/reef-1/ann").text
    assert 'href="/g/reef-1/ann/orders"' in page


def test_the_form_speaks_the_seats_language(host: Host, player: SignedIn) -> None:
    speaks(host.engine, "cy", "ru")
    client = player("cy")
    page = _page(client, "cy")
    assert '<html lang="ru">' in page and "Ваши приказы на ход 1" in page and "Приказы в YAML" in page
    form = forms(page)["step"]
    page = _press(client, form, form.data(add="{not json"))
    assert "шаг 1 не удалось прочитать" in page
