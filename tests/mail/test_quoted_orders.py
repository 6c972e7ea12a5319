"""Orders filled in inside the quoted report (issue 34): ``> `` on every line, as many people edit a
reply. They are not read (a reply quotes the host's own template), and the answer says what happened
and what to do, not that "an order file is lines of name: value"."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.intake.orderfile import OrderFileError, load
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.storage.models import SubmissionRow
from tests.mail.conftest import START, Game
from tests.mail.test_mail_shapes import apple_mail, orders_of, quoted, reply_text, report_text, thunderbird


def test_orders_filled_in_inside_the_quote_are_told_to_lose_their_quote_marks(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    filled = report_text(engine, game).split("# -----BEGIN")[0] + orders_of(game, "red", framed=True)
    body = f"Here you go.\n\nOn 3/2/26 09:00, pbem test host wrote:\n{quoted(filled)}\n"
    assert inbound.handle(engine, thunderbird(body), settings, START).outcome == "rejected"
    answer = reply_text(engine)
    assert "these orders are quoted: each line starts with `>`" in answer
    assert "remove the `> ` at the start of each line" in answer
    assert "is lines of `name: value`" not in answer
    # the line blamed is the first quoted line of the document, numbered as the mail shows it
    at = body.split("\n").index(f"> game: {game.id}") + 1
    assert f"line {at}: > game: {game.id}\n" in answer
    assert "Write your orders above the quoted mail" in answer
    with Session(engine) as session:
        stored = session.exec(select(SubmissionRow)).one()
    assert game.passwords["red"] not in (stored.errors or "")
    # the host's own template quoted under a "thanks" (placeholder password) is still no orders of theirs
    thanks = "Thanks, got it!\n\n> On 2 Mar 2026, at 09:00, pbem test host wrote:\n>\n"
    assert inbound.handle(engine, apple_mail(thanks + quoted(report_text(engine, game))), settings, START)
    assert "quoted" not in reply_text(engine).split("NOT accepted")[1].split("\n\n")[1]


@pytest.mark.parametrize("prefix", ["> ", ">", ">> "])
def test_a_quoted_order_file_is_told_so_on_its_first_line(prefix: str) -> None:
    text = "\n" + "\n".join(prefix + line for line in ["game: g", "player: red", "orders:", "  - pass"])
    with pytest.raises(OrderFileError) as info:
        load(text)
    assert info.value.code == "yaml.quoted"
    assert info.value.message.startswith("line 2: these orders are quoted")
