"""Attacks on the web host tried as an outsider and as a cheating player: forged forms (CSRF), script
through press and through what is typed into a form or a URL, open redirects, and request floods."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pbem.core import i18n
from pbem.storage.models import PressRow
from pbem.web.app import create_app
from pbem.web.words import REASONS
from web.conftest import Host, csrf_of, make_host, signed_in

SCRIPT = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_a_post_without_the_sessions_token_is_refused(host: Host) -> None:
    ann = signed_in(host, "ann")
    assert ann.post("/g/reef-1/ann/press", data={"to": "all", "text": "hi"}).status_code == 403
    # a token from another browser's session is worth nothing here
    other = host.client()
    stolen = csrf_of(other.get("/sign-in").text)
    answer = ann.post("/g/reef-1/ann/press", data={"to": "all", "text": "hi", "csrf": stolen})
    assert answer.status_code == 403 and "did not come from this site" in answer.text
    assert ann.post("/sign-out", data={}).status_code == 403
    form = host.client()
    assert (
        form.post(
            "/sign-in", data={"game": "reef-1", "seat": "ann", "password": host.passwords["ann"]}
        ).status_code
        == 403
    )
    with Session(host.engine) as session:
        assert session.exec(select(PressRow)).all() == []


def test_script_in_press_reaches_its_reader_as_text(host: Host) -> None:
    ann = signed_in(host, "ann")
    page = ann.get("/g/reef-1/ann").text
    sent = ann.post("/g/reef-1/ann/press", data={"to": "bo", "text": SCRIPT, "csrf": csrf_of(page)})
    assert sent.status_code == 303
    shown = signed_in(host, "bo").get("/g/reef-1/bo").text
    assert "&lt;script&gt;alert(" in shown and "<script>alert" not in shown and "<img src=x" not in shown


def test_what_is_typed_into_a_form_or_url_comes_back_escaped(host: Host) -> None:
    client = host.client()
    form = client.get("/sign-in?next=" + '"><script>alert(1)</script>')
    assert "<script>alert(1)" not in form.text
    answer = client.post(
        "/sign-in", data={"game": SCRIPT, "seat": "<b>x</b>", "password": "p", "csrf": csrf_of(form.text)}
    )
    assert answer.status_code == 422 or answer.status_code == 400
    assert "<script>alert" not in answer.text and "<b>x</b>" not in answer.text
    for path in ["/g/<script>/x", "/archive/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/lang/%3Cb%3E"]:
        shown = client.get(path)
        assert "<script>alert" not in shown.text and "<b>" not in shown.text, path


def test_signing_in_never_sends_anyone_to_another_site(host: Host) -> None:
    client = host.client()
    form = client.get("/sign-in")
    for target in ["https://evil.example/", "//evil.example/", "/\\evil.example"]:
        answer = client.post(
            "/sign-in",
            data={
                "game": "reef-1",
                "seat": "ann",
                "password": host.passwords["ann"],
                "csrf": csrf_of(form.text),
                "next": target,
            },
        )
        assert answer.headers["location"] == "/g/reef-1/ann", target
        form = client.get("/sign-in")
    assert client.get("/lang/hu?next=//evil.example/").headers["location"] == "/"


def test_every_page_keeps_to_this_site(host: Host) -> None:
    answer = signed_in(host, "ann").get("/g/reef-1/ann")
    policy = answer.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["referrer-policy"] == "no-referrer"  # a sign-in link never leaves as a referrer
    assert "http://" not in answer.text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in answer.text


def test_a_flood_is_answered_429_in_the_readers_words(tmp_path: Path) -> None:
    host = make_host(tmp_path, requests_per_minute=5)
    client = host.client()
    answers = [client.get("/", headers={"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.5"}) for _ in range(7)]
    assert [a.status_code for a in answers] == [200] * 5 + [429] * 2
    with i18n.language("hu"):
        said = i18n._(REASONS["rate"])
    assert said != REASONS["rate"]  # the message is translated
    assert 'lang="hu"' in answers[-1].text and said in answers[-1].text
    assert answers[-1].headers["retry-after"] == "60"


def test_password_guessing_is_throttled_per_address(tmp_path: Path) -> None:
    host = make_host(tmp_path, sign_ins_per_minute=3)
    client = host.client()
    codes = []
    for _ in range(5):
        form = client.get("/sign-in")
        codes.append(
            client.post(
                "/sign-in",
                data={"game": "reef-1", "seat": "ann", "password": "x", "csrf": csrf_of(form.text)},
            ).status_code
        )
    assert codes == [400, 400, 400, 429, 429]


def test_a_flood_of_the_json_api_is_answered_in_json(tmp_path: Path) -> None:
    host = make_host(tmp_path, requests_per_minute=1)
    client = host.client()
    client.get("/")
    answer = client.get("/api/openapi.json", headers={"Accept-Language": "cs"})
    assert answer.status_code == 429 and answer.headers["retry-after"] == "60"
    with i18n.language("cs"):
        assert answer.json() == {"error": {"code": "rate", "message": i18n._(REASONS["rate"])}}


def test_a_bug_is_answered_in_words_without_internals(host: Host) -> None:
    app = create_app(host.settings)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals: /var/lib/pbem/db password=hunter2")

    answer = TestClient(app, raise_server_exceptions=False).get("/boom", headers={"Accept-Language": "ru"})
    assert answer.status_code == 500 and 'lang="ru"' in answer.text
    with i18n.language("ru"):
        assert i18n._(REASONS["broken"]) in answer.text
    assert (
        "hunter2" not in answer.text and "RuntimeError" not in answer.text and "Traceback" not in answer.text
    )
