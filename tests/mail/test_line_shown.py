"""A rejection shows the line it blames (issue 34): quoted, with a marker under it, and numbered as the
player's mail shows it, not from the template's BEGIN line."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import Engine

from pbem.core import markers
from pbem.core.i18n import language
from pbem.intake.orderfile import Positions
from pbem.mail import extract, inbound
from pbem.outbox.settings import MailSettings
from tests.mail.conftest import START, Game
from tests.mail.test_mail_shapes import apple_mail, orders_of, reply_text

GREETING = "Hi all,\n\nhere are my orders for this turn.\n\n"


def mail_line(body: str, text: str) -> int:
    """The number (from 1) of the mail's line that reads ``text``."""
    return body.split("\n").index(text) + 1


def test_a_rules_error_quotes_its_step_numbered_as_in_the_mail(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    body = GREETING + orders_of(game, "red", bid=9, framed=True) + "\nAnn\n"
    assert inbound.handle(engine, apple_mail(body), settings, START).outcome == "rejected"
    answer = reply_text(engine)
    at = mail_line(body, "  - bid: 9")  # line 11 of the mail, line 6 after BEGIN
    assert f"line {at}, step 1 (`bid: 9`): action bid: you hold no pearl worth 9" in answer
    assert f"line {at}:   - bid: 9\n" in answer
    assert "^^^^^^^^" in answer.split(f"line {at}:   - bid: 9\n")[1].split("\n")[0]
    assert "Please correct the marked line" in answer


def test_a_reading_error_counts_lines_from_the_top_of_the_mail(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    doc = orders_of(game, "red").replace("orders:\n", "orders:\n - bid: 3\n   bad: [\n")
    body = GREETING + markers.frame(doc) + "\nAnn\n"
    assert inbound.handle(engine, apple_mail(body), settings, START).outcome == "rejected"
    answer = reply_text(engine)
    found = re.search(r"yaml: line (\d+), column \d+", answer)
    assert found is not None, answer
    named = int(found.group(1))
    # the parser stops a line after the slip; that line, counted from the top of the mail
    assert body.split("\n")[named - 1] == "  - bid: 4" and named > len(GREETING.split("\n"))
    assert f"line {named}:   - bid: 4\n" in answer


@pytest.mark.parametrize("lang", ["en", "hu", "cs", "zh", "ru"])
def test_the_line_an_error_names_is_found_in_every_language(lang: str) -> None:
    document = "game: g\nplayer: red\norders:\n  - bid: 9\n"
    with language(lang):
        where = Positions(steps=[4])
        error = where.step(0) + "step 1 (`bid: 9`): you hold no pearl worth 9 [bid.not_held]"
        shown = extract.point_at(document, error)
    assert shown is not None and "  - bid: 9\n" in shown and shown.endswith("^" * len("- bid: 9"))


def test_a_found_document_keeps_the_numbers_of_its_lines() -> None:
    body = "Hi,\n\ngame: g\n> a quoted line\nplayer: red\norders:\n  - pass\n\nThanks, Ann"
    found = extract.find(body)
    assert found is not None and found.text == "game: g\nplayer: red\norders:\n  - pass"
    assert found.lines == (3, 5, 6, 7)
    assert found.as_shown() == "\n\ngame: g\n\nplayer: red\norders:\n  - pass"
