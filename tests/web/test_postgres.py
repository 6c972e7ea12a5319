"""The main path of the web host on PostgreSQL: a mailed link, the seat's page, press sent and read, a
wrong password counted, the longest names the forms take (only PostgreSQL enforces column lengths)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cron.conftest import fresh_pg_database
from sqlmodel import Session, select

from pbem.storage.models import PasswordFailureRow, PressRow
from web.conftest import Host, csrf_of, make_host, signed_in


@pytest.fixture
def pg_host(tmp_path: Path) -> Iterator[Host]:
    with fresh_pg_database("pbem_web") as url:
        host = make_host(tmp_path, url=url)
        yield host
        host.engine.dispose()


@pytest.mark.postgres
def test_the_main_path_on_postgresql(pg_host: Host) -> None:
    ann = signed_in(pg_host, "ann")
    page = ann.get("/g/reef-1/ann")
    assert page.status_code == 200 and "report for ann" in page.text
    sent = ann.post(
        "/g/reef-1/ann/press", data={"to": ["all"], "text": "hello all", "csrf": csrf_of(page.text)}
    )
    assert sent.status_code == 303
    assert "hello all" in signed_in(pg_host, "cy").get("/g/reef-1/cy").text
    assert ann.get("/g/reef-1/bo").status_code == 403
    client = pg_host.client()
    form = client.get("/sign-in")
    wrong = client.post(
        "/sign-in",
        data={"game": "g" * 64, "seat": "s" * 64, "password": "p" * 200, "csrf": csrf_of(form.text)},
    )
    assert wrong.status_code == 400
    too_long = client.post(
        "/sign-in", data={"game": "g" * 65, "seat": "s", "password": "p", "csrf": csrf_of(form.text)}
    )
    assert too_long.status_code == 400 and "sent incomplete" in too_long.text
    with Session(pg_host.engine) as session:
        assert session.exec(select(PressRow.sender)).all() == ["ann"]
        assert session.exec(select(PasswordFailureRow.seat)).all() == ["s" * 64]
    assert pg_host.client().get("/archive/reef-1").status_code == 200
