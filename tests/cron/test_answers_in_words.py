"""The game master's answers, the rollback event, pbem status, pbem submit and the address and order
file head errors come out in the reader's language (issue 29): each is a catalog message, and the
caller's ``language(...)`` decides which."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from pbem.cli.app import app
from pbem.cli.games import _read_input
from pbem.core.codec import unpack
from pbem.core.errors import UserError
from pbem.core.i18n import language
from pbem.cron import admin
from pbem.intake import addresses
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play import orders
from pbem.play.status import describe, status
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import ReportRow
from tests.cron.conftest import START, new_game, owes, send_orders
from tests.cron.test_tick import run

H = timedelta(hours=1)


def _play_two_turns(engine: Engine, pw: dict[str, str]) -> None:
    for hours in (1, 2):
        for name in owes(engine, "g"):
            send_orders(engine, "g", name, pw[name], START + hours * H)
        assert run(engine, START + hours * H).turns_resolved == 1


def test_the_game_masters_answers_and_refusals_are_in_the_readers_language(engine: Engine) -> None:
    new_game(engine, "g")
    with language("hu"):
        assert admin.pause(engine, "g", START + 10 * H) == "a(z) g játszma szünetel, 14h van hátra"
        with pytest.raises(UserError, match=r"a\(z\) g játszma szünetel, nincs folyamatban"):
            admin.pause(engine, "g", START + 11 * H)
    with language("ru"):
        assert admin.extend(engine, "g", 3600, START + 12 * H).startswith("игра g: срок продлён на 1h")
        assert admin.resume(engine, "g", START + 12 * H) == "игра g возобновлена; срок истекает через 15h"
        with pytest.raises(UserError, match="игра g идёт, она не приостановлена"):
            admin.resume(engine, "g", START + 12 * H)
        with pytest.raises(UserError, match="в игре g нет места 'green'; её места: red, blue"):
            admin.replace(engine, "g", "green", "carol@example.org", START + 12 * H)
        with pytest.raises(UserError, match="игра g на ходу 0: вернуть её можно к ходу от 0"):
            admin.rollback(engine, "g", 5, START + 12 * H)
        assert admin.observe(engine, "g", "eve@example.org", START) == (
            "eve@example.org теперь наблюдает за игрой g и получает её открытые отчёты"
        )
        with pytest.raises(UserError, match="не адрес почты: в адресе почты нет пробелов"):
            admin.observe(engine, "g", "eve example.org", START)
    with language("hu"), pytest.raises(UserError, match="nincs 'nope' nevű játszma"):
        admin.extend(engine, "nope", 3600, START)
    # the record stays the operator's English, as before
    assert admin.observe(engine, "g", "eve@example.org", START) == "eve@example.org observes game g already"


def test_each_seat_reads_the_rollback_in_its_own_language(engine: Engine) -> None:
    pw = new_game(engine, "g", rounds=3, seat_languages={"red": "hu", "blue": "ru"})
    _play_two_turns(engine, pw)
    with language("cs"):
        said = admin.rollback(engine, "g", 1, START + 4 * H)
    assert said == "hra g vrácena do tahu 1 (epocha 1); 1 tah uchován jako zrušený"
    with Session(engine) as session:
        notes = {
            r.seat: unpack(r.text_z)
            for r in session.exec(select(ReportRow).where(ReportRow.epoch == 1)).all()
        }
    assert "A játékvezető visszaállította a játszmát a(z) 1. lépésre: a(z) 2–2. lépés" in notes["red"]
    assert "Ведущий вернул игру к ходу 1: ходы с 2 по 2 отменены" in notes["blue"]


def test_pbem_status_describes_a_game_in_the_readers_language(engine: Engine) -> None:
    new_game(engine, "g")
    (entry,) = status(engine, "g")
    with language("ru"):
        text = describe(entry)
    assert text.splitlines()[0].endswith("ход 1  идёт")
    assert "ждём приказов от: red, blue" in text
    with language("hu"):
        admin.pause(engine, "g", START + H)
        (entry,) = status(engine, "g")
        assert "a játékvezető szünetelteti" in describe(entry)


def test_pbem_submit_and_status_answer_in_the_readers_language(engine: Engine, tmp_path: Path) -> None:
    pw = new_game(engine, "g")
    text = orders.template(engine, "g", "red", suggest=True).replace(PASSWORD_PLACEHOLDER, pw["red"])
    good, bad = tmp_path / "red.yaml", tmp_path / "bad.yaml"
    good.write_text(text)
    bad.write_text(re.sub(r"^turn: .*$", "turn: many", text, flags=re.M))
    url = str(engine.url.render_as_string(hide_password=False))
    runner = CliRunner()
    # the seat's language decides (the game's here: English); --lang is the caller's choice
    refused = runner.invoke(app, ["submit", str(bad), "--db", url, "--lang", "ru"])
    assert f"{bad}: отклонено" in refused.output
    assert "заголовок файла приказов: " in refused.output
    assert "[envelope." in refused.output
    assert f"{bad}: rejected" in runner.invoke(app, ["submit", str(bad), "--db", url]).output
    with language("zh"), pytest.raises(UserError, match="无法读取"):
        _read_input(str(tmp_path / "none.yaml"))
    empty = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    upgrade(connect(empty))
    with language("hu"):
        assert runner.invoke(app, ["status", "--db", empty]).output == "nincs játszma\n"


def test_an_address_error_is_in_the_readers_language() -> None:
    with language("hu"), pytest.raises(addresses.AddressError, match="nem e-mail-cím: csak egy címet írj"):
        addresses.normalise("a@example.org, b@example.org")
    with language("ru"), pytest.raises(addresses.AddressError, match="в домене нужна точка"):
        addresses.normalise("ann@localhost")
    with language("cs"), pytest.raises(addresses.AddressError, match="nejvýše 254 znaků"):
        addresses.normalise("a" * 64 + "@" + ".".join(c * 50 for c in "bcde") + ".org")
