"""The web host's pages: a seat's report and what the game waits for, earlier turns, press read and sent
by the mail's rules, the game master's commands, languages, the archive served live."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.cli.demo import play_bots
from pbem.core.codec import unpack
from pbem.mail.gm import set_game_master
from pbem.play.create import create_game
from pbem.storage.models import GameRow, OutboxRow, PressRow, ReportRow
from pbem.web.app import create_app
from pbem.web.seatpage import cut
from web.conftest import Host, csrf_of, make_host, signed_in


def test_the_seats_page_shows_its_report_its_turn_and_deadline(host: Host) -> None:
    page = signed_in(host, "ann").get("/g/reef-1/ann").text
    assert '<html lang="en">' in page
    assert "report for ann" in page and "<svg" in page  # the board as SVG, not a picture
    assert "Your orders are awaited." in page and "Deadline:" in page
    assert page.count("<h1") == 1


def test_a_turn_that_is_not_there_is_not_found(host: Host) -> None:
    client = signed_in(host, "ann")
    assert client.get("/g/reef-1/ann?turn=0").status_code == 200
    assert client.get("/g/reef-1/ann?turn=3").status_code == 404
    assert client.get("/g/reef-1/ann?turn=-1").status_code == 404


def test_press_goes_to_the_seats_named_and_is_mailed_as_by_mail(host: Host) -> None:
    ann = signed_in(host, "ann")
    page = ann.get("/g/reef-1/ann").text
    answer = ann.post(
        "/g/reef-1/ann/press", data={"to": ["bo"], "text": "Leave the orange coral?", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 303 and answer.headers["location"].endswith("#press")
    assert "Leave the orange coral?" in signed_in(host, "bo").get("/g/reef-1/bo").text
    assert "Leave the orange coral?" not in signed_in(host, "cy").get("/g/reef-1/cy").text
    with Session(host.engine) as session:
        row = session.exec(select(PressRow)).one()
        mailed = session.exec(select(OutboxRow.to_addr)).all()
    assert (row.sender, row.to_all, row.recipients_json) == ("ann", False, '["bo"]')
    assert mailed == ["bo@example.org"]


def test_press_is_refused_as_by_mail_and_says_why_in_the_seats_words(tmp_path: Path) -> None:
    host = make_host(tmp_path)
    with Session(host.engine) as session:
        game = session.get(GameRow, "reef-1")
        assert game is not None
        game.press = "public"
        session.add(game)
        session.commit()
    ann = signed_in(host, "ann")
    page = ann.get("/g/reef-1/ann").text
    answer = ann.post("/g/reef-1/ann/press", data={"to": ["bo"], "text": "psst", "csrf": csrf_of(page)})
    assert answer.status_code == 400
    assert "takes only public press" in answer.text and "psst" in answer.text  # the text is kept
    empty = ann.post("/g/reef-1/ann/press", data={"to": ["all"], "text": " ", "csrf": csrf_of(page)})
    assert empty.status_code == 400 and "the message is empty" in empty.text


def test_a_seat_reads_its_page_in_its_own_language(tmp_path: Path) -> None:
    host = make_host(tmp_path)
    create_game(
        host.engine,
        "reef-encounter",
        "reef-hu",
        [("ann", "ann@example.org"), ("bo", "bo@example.org")],
        seat_languages={"ann": "hu"},
    )
    client = signed_in(host, "ann")
    page = client.get("/g/reef-hu/ann").text
    assert '<html lang="hu">' in page
    assert ">Üzenetek</h2>" in page and ">Press</h2>" not in page  # the press heading in Hungarian


def test_an_observer_chooses_a_language(host: Host) -> None:
    client = host.client()
    assert '<html lang="ru">' in client.get("/", headers={"Accept-Language": "ru,en;q=0.5"}).text
    assert '<html lang="cs">' in client.get("/?lang=cs").text
    client.get("/lang/zh")
    assert '<html lang="zh">' in client.get("/sign-in").text


def test_the_archive_is_served_live_in_the_public_view(host: Host) -> None:
    page = host.client().get("/archive/reef-1")
    assert page.status_code == 200 and "pbem-archive-of" in page.text
    assert "A game still running" in page.text
    assert host.client().get("/archive/nope").status_code == 404


def test_a_game_master_pauses_resumes_and_extends(host: Host) -> None:
    password = set_game_master(host.engine, "reef-1", "gm@example.org")
    client = host.client()
    form = client.get("/sign-in")
    client.post("/sign-in/gm", data={"game": "reef-1", "password": password, "csrf": csrf_of(form.text)})
    token = csrf_of(client.get("/gm/reef-1").text)
    said = client.post("/gm/reef-1/pause", data={"csrf": token}, follow_redirects=True)
    assert "paused" in said.text
    with Session(host.engine) as session:
        assert session.get(GameRow, "reef-1").status == "paused"  # type: ignore[union-attr]
    said = client.post("/gm/reef-1/resume", data={"csrf": token}, follow_redirects=True)
    assert "resumed" in said.text
    said = client.post("/gm/reef-1/extend", data={"csrf": token, "by": "1d"}, follow_redirects=True)
    assert "deadline extended by" in said.text
    said = client.post("/gm/reef-1/extend", data={"csrf": token, "by": "soon"}, follow_redirects=True)
    assert "not a duration" in said.text
    assert client.post("/gm/reef-1/pause", data={}).status_code == 403


def test_a_wrong_game_master_password_is_one_answer(host: Host) -> None:
    set_game_master(host.engine, "reef-1", "gm@example.org")
    client = host.client()
    form = client.get("/sign-in")
    one = client.post("/sign-in/gm", data={"game": "reef-1", "password": "x", "csrf": csrf_of(form.text)})
    other = client.post("/sign-in/gm", data={"game": "reef-9", "password": "x", "csrf": csrf_of(form.text)})
    assert one.status_code == other.status_code == 400
    assert client.get("/gm/reef-1").status_code == 303


def test_earlier_turns_are_the_seats_stored_reports(host: Host) -> None:
    play_bots(host.engine, "reef-encounter", "reef-b", 3, 11, turns=2)
    client = signed_in(host, "alice", "reef-b")
    page = client.get("/g/reef-b/alice").text
    assert 'href="/g/reef-b/alice?turn=0"' in page and 'href="/g/reef-b/alice?turn=1"' in page
    with Session(host.engine) as session:
        stored = session.exec(
            select(ReportRow.html_z).where(
                ReportRow.game_id == "reef-b", ReportRow.seat == "alice", ReportRow.turn == 1
            )
        ).one()
    body = cut(unpack(stored)).body
    assert body in client.get("/g/reef-b/alice?turn=1").text
    assert body not in client.get("/g/reef-b/alice?turn=0").text


def test_the_seats_page_links_the_orders_form_when_the_app_has_one(host: Host) -> None:
    # (with pbem.web.orders among the routers, every app has the form: weborders' tests check its link)
    app = create_app(host.settings)
    app.add_api_route("/g/{game}/{seat}/orders", lambda: "", name="orders_form")
    client = TestClient(app, base_url="https://testserver", follow_redirects=False)
    client.get(host.link("ann"))
    page = client.get("/g/reef-1/ann").text
    assert 'href="/g/reef-1/ann/orders"' in page
