"""An order file with words around it (issue 34): ``Hi all,`` above ``game: reef-7`` is blamed on the
greeting's line, not on the fine line where the parser noticed; by file and by mail the same text is
answered the same, on the same line."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from pbem.core import markers
from pbem.intake.orderfile import OrderFileError, load
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from tests.mail.conftest import START, Game
from tests.mail.test_mail_shapes import apple_mail, orders_of, reply_text

ORDERS = "game: reef-7\nplayer: red\nturn: 1\npassword: x\norders:\n  - pass\n"


@pytest.mark.parametrize(
    ("text", "blamed"),
    [
        (
            f"Hi all,\n\n{ORDERS}\nThanks, Ann\n",
            "line 1: `Hi all,` is not part of the orders, which begin at line 3",
        ),
        (
            f"Hi all,\nhere are mine:\n\n{ORDERS}",
            "line 1: `Hi all,` is not part of the orders, which begin at line 4",
        ),
        (
            f"{ORDERS}\nThanks, Ann\n",
            "line 8: `Thanks, Ann` is not part of the orders: delete it, or put `# `",
        ),
    ],
)
def test_words_around_the_orders_are_blamed_on_their_own_line(text: str, blamed: str) -> None:
    with pytest.raises(OrderFileError) as info:
        load(text)
    assert info.value.message.startswith(blamed)


def test_a_greeting_inside_the_markers_reads_the_same_by_file_and_by_mail(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    body = "Dear host,\n\n" + markers.frame("Hi all,\n\n" + orders_of(game, "red")) + "\nAnn\n"
    by_file = orders.submit(engine, body, source="file", now=START)
    assert not by_file.accepted
    (error,) = by_file.errors
    at = body.split("\n").index("Hi all,") + 1  # line 4 of the mail and of the file
    assert error.startswith(f"yaml: line {at}: `Hi all,` is not part of the orders")
    assert inbound.handle(engine, apple_mail(body), settings, START).outcome == "rejected"
    answer = reply_text(engine)
    assert f"  - {error}" in answer
    assert f"line {at}: Hi all,\n" in answer
