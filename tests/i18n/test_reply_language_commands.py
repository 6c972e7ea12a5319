"""What a player asks for, by mail or on the command line, comes in the reader's language (issue 29)
and says what a newcomer needs (issue 34): the mailed ``help`` lists every command, a ``report`` asked
for by mail is the turn's report mail rendered now, ``template``, ``check`` and ``submit`` answer in the
seat's language (or ``--lang``), the archive page is in its chosen language and offers the others, and
a report mail's subject names the turn its template is for."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from pbem import outbox
from pbem.cli.app import app
from pbem.core.i18n import NAMES as LANGUAGE_NAMES
from pbem.core.i18n import _, language
from pbem.mail import commands, helptext
from pbem.outbox import unpack_message
from pbem.play import orders, turns
from pbem.storage.db import connect
from pbem.storage.models import OutboxRow
from tests.i18n import foreign
from tests.i18n.test_reply_language import ADDRESS, GAME, NAMES, SEAT, SETTINGS, Hosted, text_of
from tests.mail.conftest import START

runner = CliRunner()


def hosted_in(tmp_path: Path, lang: str) -> Hosted:
    return Hosted(connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}"), lang)


def queued(hosted: Hosted) -> list[EmailMessage]:
    with Session(hosted.engine) as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
    return [message_from_bytes(unpack_message(r.message_z), policy=policy.default) for r in rows]  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------ help


def test_the_mailed_help_lists_every_command_the_host_knows(tmp_path: Path) -> None:
    hosted = hosted_in(tmp_path, "en")
    text = text_of(hosted.answer("help\n"))
    known = {*commands.COMMANDS, *commands._handlers, "gm"} - set(commands.GM_COMMANDS[:-1])
    assert known <= set(helptext.HELP)
    for name, (example, _says) in helptext.HELP.items():
        assert f"\n    {example}\n" in text, name  # each with its one-line example
    for name in ("report", "template", "password", "press", "language", "timezone", "away"):
        assert re.search(rf"^    {name}\b", text, re.MULTILINE), name


def test_no_sentence_of_the_help_is_broken_by_a_hard_line_break(tmp_path: Path) -> None:
    """Prose lines end a sentence (or introduce a list); only the examples are laid out by line."""
    hosted = hosted_in(tmp_path, "en")
    text = text_of(hosted.answer("help\n"))
    prose = [line for line in text.split("\n") if line and not line.startswith(" ")]
    assert prose and all(line.rstrip().endswith((".", ":")) for line in prose), prose


@pytest.mark.parametrize("lang", ["hu", "cs", "zh", "ru"])
def test_the_help_is_in_the_registered_senders_language(tmp_path: Path, lang: str) -> None:
    hosted = hosted_in(tmp_path, lang)
    reply = hosted.answer("help\n")
    assert reply["Content-Language"] == lang
    # the examples are what a player types (as order keywords are), the rest is the reader's words
    assert foreign.english_words(text_of(reply), lang, NAMES) == []
    if lang == "zh":
        assert foreign.latin_in_chinese(text_of(reply), NAMES) == []


# -------------------------------------------------------------------------------------- report by mail


def test_a_report_asked_for_by_mail_is_the_turns_report_mail_in_the_seats_new_language(
    tmp_path: Path,
) -> None:
    hosted = hosted_in(tmp_path, "en")
    outbox.enqueue_reports(hosted.engine, START, settings=SETTINGS)
    [turn_mail] = [m for m in queued(hosted) if m["To"] == ADDRESS]
    envelope = f"game: {GAME}\nplayer: {SEAT}\npassword: {hosted.passwords[SEAT]}\n"
    hosted.answer("language: hu\n" + envelope)
    reply = hosted.answer("report\n" + envelope)

    assert reply["Content-Language"] == "hu"
    page = reply.get_body(preferencelist=("html",))
    assert page is not None
    html = str(page.get_content())
    # mail-safe, as the turn's mail: no <style> or <svg> (Gmail and Outlook strip them), PNG boards by cid:
    assert "<style" not in html and "<svg" not in html
    cids = set(re.findall(r'src="cid:([^"]+)"', html))
    pictures = {str(p["Content-ID"]).strip("<>") for p in reply.walk() if p.get_content_type() == "image/png"}
    assert cids and cids == pictures
    assert '<html lang="hu">' in html
    # the same report as the turn's mail, now in Hungarian: the same boards, the seat's words
    turn_pictures = {str(p["Content-ID"]) for p in turn_mail.walk() if p.get_content_type() == "image/png"}
    assert len(turn_pictures) == len(pictures)
    assert foreign.language_of(text_of(reply)) == "hu" and foreign.language_of(text_of(turn_mail)) == "en"
    assert text_of(reply).count("\n") == pytest.approx(text_of(turn_mail).count("\n"), abs=3)


# ------------------------------------------------------------------------------------------- subjects


def test_a_report_mail_that_asks_for_orders_names_the_turn_its_template_is_for(tmp_path: Path) -> None:
    hosted = hosted_in(tmp_path, "en")
    turns.process(hosted.engine, GAME, now=START, fill_missing=True)  # turn 1 resolved
    outbox.enqueue_reports(hosted.engine, START, settings=SETTINGS)
    asked = [m for m in queued(hosted) if str(m["Subject"]).endswith("your move")]
    assert asked
    for mail in asked:
        due = re.search(r"^turn: (\d+)$", text_of(mail), re.MULTILINE)
        assert due is not None
        assert f"· turn {due.group(1)} · your move" in str(mail["Subject"])


# --------------------------------------------------------------------------------------- command line


def cli(hosted: Hosted, *args: str) -> tuple[int, str]:
    db = str(hosted.engine.url).removeprefix("sqlite:///")
    result = runner.invoke(app, [*args, "--db", db])
    return result.exit_code, result.output


@pytest.mark.parametrize("lang", ["hu", "cs", "zh", "ru"])
def test_template_is_in_the_seats_language_unless_lang_says_otherwise(tmp_path: Path, lang: str) -> None:
    hosted = hosted_in(tmp_path, lang)
    code, text = cli(hosted, "template", GAME, "--player", SEAT)
    assert code == 0
    with language(lang):
        assert text == orders.template(hosted.engine, GAME, SEAT)  # the seat's, as a mail brings it
    assert foreign.english_words(text, lang, NAMES) == []
    # the decision's headline, a comment foreign.py cannot tell from a commented YAML line, is translated
    setup = "Setup: put one of your polyps into your parrotfish and choose two larva cubes."
    with language(lang):
        assert f"# {_(setup)}\n" in text and setup not in text
    code, english = cli(hosted, "template", GAME, "--player", SEAT, "--lang", "en")
    assert code == 0 and english == orders.template(hosted.engine, GAME, SEAT) != text
    code, said = cli(hosted, "template", GAME, "--player", SEAT, "--lang", "tlh")
    assert code == 2 and "--lang" in said


@pytest.mark.parametrize("lang", ["hu", "zh"])
def test_check_and_submit_answer_in_the_language_of_the_seat_the_file_names(
    tmp_path: Path, lang: str
) -> None:
    hosted = hosted_in(tmp_path, lang)
    wrong_turn = tmp_path / "orders.yaml"
    wrong_turn.write_text(hosted.orders.replace("turn: 1", "turn: 5"), encoding="utf-8")
    for command in ("check", "submit"):
        code, said = cli(hosted, command, str(wrong_turn))
        assert code == 1
        assert "[turn.future]" in said
        assert foreign.english_words(said, lang, (*NAMES, str(wrong_turn))) == [], said
    code, said = cli(hosted, "submit", str(wrong_turn), "--lang", "en")
    assert "these orders are for turn 5, a later turn" in said


# --------------------------------------------------------------------------------------- archive page


def test_the_archive_page_is_in_the_chosen_language_and_offers_the_others(tmp_path: Path) -> None:
    hosted = hosted_in(tmp_path, "hu")
    out = tmp_path / "rh.html"
    code, said = cli(hosted, "archive", GAME, "-o", str(out), "--lang", "ru")
    assert code == 0, said
    page = out.read_text(encoding="utf-8")
    assert '<html lang="ru">' in page
    # the game is read in Hungarian: the page offers its Hungarian rendering, written beside it
    sibling = tmp_path / "rh.hu.html"
    assert sibling.is_file() and '<html lang="hu">' in sibling.read_text(encoding="utf-8")
    assert 'href="rh.hu.html"' in page and LANGUAGE_NAMES["hu"] in page
    assert 'href="rh.html"' in sibling.read_text(encoding="utf-8")
    frame = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", " ", page, flags=re.S)
    assert foreign.language_of(frame) == "ru"
    assert foreign.english_words(frame, "ru", NAMES) == []


def test_the_archive_page_is_in_the_games_language_by_default(tmp_path: Path) -> None:
    hosted = hosted_in(tmp_path, "cs")
    out = tmp_path / "rh.html"
    code, _said = cli(hosted, "archive", GAME, "-o", str(out))
    assert code == 0
    page = out.read_text(encoding="utf-8")
    assert '<html lang="cs">' in page
    assert 'class="languages"' not in page  # one language read: nothing else to offer
