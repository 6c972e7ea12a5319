"""The one-click sign-in link in report and welcome mails: there when the host serves the web, signing in
as that seat only; absent (the mail unchanged) when it does not."""

from __future__ import annotations

import email
import re
from email import policy
from email.message import EmailMessage
from pathlib import Path

from sqlmodel import Session, select

from pbem.cli.demo import run_demo
from pbem.mail.welcome import queue_welcomes
from pbem.outbox.queueing import enqueue_reports, unpack_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.signin import LinkSettings
from pbem.storage.models import OutboxRow
from web.conftest import SECRET, URL, Host

_LINK = re.compile(re.escape(URL) + r"(/in/[A-Za-z0-9_.\-]+)")


def _mails(host: Host) -> dict[str, EmailMessage]:
    with Session(host.engine) as session:
        rows = session.exec(select(OutboxRow)).all()
    return {
        row.to_addr: email.message_from_bytes(unpack_message(row.message_z), policy=policy.default)  # type: ignore[misc]
        for row in rows
    }


def _texts(message: EmailMessage) -> tuple[str, str]:
    plain = message.get_body(preferencelist=("plain",))
    page = message.get_body(preferencelist=("html",))
    return (plain.get_content() if plain else ""), (page.get_content() if page else "")


def test_each_report_mail_carries_its_seats_own_link(host: Host) -> None:
    assert enqueue_reports(host.engine, settings=MailSettings(), links=LinkSettings(URL, SECRET)) == 3
    for seat, message in ((a.split("@")[0], m) for a, m in _mails(host).items()):
        text, page = _texts(message)
        [in_text] = _LINK.findall(text.replace("\n", ""))
        assert _LINK.search(page), f"{seat}'s HTML mail has no link"
        client = host.client()
        answer = client.get(in_text)
        assert answer.headers["location"] == f"/g/reef-1/{seat}"
        others = [s for s in ("ann", "bo", "cy") if s != seat]
        assert all(client.get(f"/g/reef-1/{other}").status_code == 403 for other in others)


def test_without_a_web_host_the_mails_carry_no_link(host: Host) -> None:
    assert enqueue_reports(host.engine, settings=MailSettings(), links=LinkSettings()) == 3
    for message in _mails(host).values():
        text, page = _texts(message)
        assert "/in/" not in text and "/in/" not in page


def test_the_welcome_mail_carries_the_link(host: Host) -> None:
    welcomed = queue_welcomes(
        host.engine,
        "reef-1",
        {"ann": host.passwords["ann"]},
        settings=MailSettings(),
        links=LinkSettings(URL, SECRET),
    )
    assert welcomed == ["ann"]
    text, _page = _texts(_mails(host)["ann@example.org"])
    [found] = _LINK.findall(text.replace("\n", ""))
    assert host.client().get(found).headers["location"] == "/g/reef-1/ann"


def test_the_demo_says_how_to_open_it_in_a_browser(tmp_path: Path) -> None:
    said: list[str] = []
    run_demo(game_type="pearl-dive", players=2, seed=3, out=tmp_path, say=said.append)
    [serve] = [line for line in said if line.startswith("on the web:")]
    assert f"PBEM_WEB_SECRET_FILE={tmp_path / 'web-secret'} pbem serve --db sqlite:///{tmp_path}" in serve
    key = (tmp_path / "web-secret").read_text().strip()
    assert key not in "\n".join(said) and (tmp_path / "web-secret").stat().st_mode & 0o077 == 0
    assert any("http://127.0.0.1:8000/in/" in line for line in said)
