"""Report mail: one per stored report and address, plain text plus the mail rendering of the HTML
report (CSS inlined, the boards as PNG pictures in a multipart/related)."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta, timezone
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from PIL import Image
from sqlalchemy import Engine, delete, update
from sqlmodel import Session, select

from pbem import outbox
from pbem.core import caches, markers
from pbem.core.codec import unpack, unpack_json
from pbem.core.i18n import language
from pbem.core.registry import get_game, register
from pbem.mail import reading
from pbem.outbox import compose, flowed_text, folding, message, queueing
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.play.create import create_game
from pbem.render import mail_html, tables
from pbem.render import pictures as mailpictures
from pbem.render.mail_html import mail_page
from pbem.render.reports import context
from pbem.render.tables import render_located, table_slice
from pbem.storage.models import ObserverRow, OutboxRow, ReportRow, SeatRow, TurnRow
from tests.browser.played import play
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, Game


def queued(engine: Engine) -> dict[str, tuple[str, EmailMessage]]:
    with Session(engine) as session:
        found = session.exec(select(OutboxRow)).all()
    return {
        r.dedupe_key: (
            r.to_addr,
            message_from_bytes(outbox.unpack_message(r.message_z), policy=policy.default),
        )  # type: ignore[misc]
        for r in found
    }


def test_each_seat_gets_its_own_report_and_observers_the_public_one(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    with Session(engine) as session:
        session.add(ObserverRow(game_id=game.id, email="Kibitz@Example.org"))
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 3
    mails = queued(engine)
    assert {k: to for k, (to, _) in mails.items()} == {
        f"report:{game.id}:0:0:red": "ann@example.org",
        f"report:{game.id}:0:0:blue": "bob@example.org",
        outbox.report_key(game.id, 0, 0, "", "kibitz@example.org"): "kibitz@example.org",
    }
    _, red = mails[f"report:{game.id}:0:0:red"]
    # the report of turn 0 carries the template for turn 1: the subject names the turn the orders are for
    assert red["Subject"] == f"[pbem] {game.id} · turn 1 · your move"
    assert red["In-Reply-To"] == red["References"] == thread_root(settings, game.id, "red")
    assert red.get_content_type() == "multipart/alternative"
    assert red["From"].addresses[0].addr_spec == HOST
    assert red["X-Loop"] == HOST and red["Auto-Submitted"] == "auto-generated"
    with Session(engine) as session:
        row = session.exec(select(ReportRow).where(ReportRow.seat == "red")).one()
    text, html = red.get_body(("plain",)), red.get_body(("html",))
    assert text is not None and html is not None
    assert text.get_param("format") == "flowed"
    flowed = text.get_content().replace("\r\n", "\n")
    assert max(len(line) for line in flowed.split("\n")) <= 78
    assert reading.unflow(flowed).rstrip("\n") == unpack(row.text_z).rstrip("\n")
    assert (
        html.get_content().replace("\r\n", "\n")
        == mail_page(unpack(row.html_z), table_slice(row.table_at)).html
    )
    _, public = mails[outbox.report_key(game.id, 0, 0, "", "kibitz@example.org")]
    assert public["Subject"] == f"[pbem] {game.id} · turn 0 · public report"
    assert "In-Reply-To" not in public  # observers have no seat thread
    assert outbox.unmailed_reports(engine) == []  # nothing left to look at, whatever the case of an address


def test_html_reports_are_self_contained(engine: Engine, game: Game, settings: MailSettings) -> None:
    outbox.enqueue_reports(engine, START, settings=settings)
    for _, msg in queued(engine).values():
        html = msg.get_body(("html",))
        assert html is not None
        content = str(html.get_content()).lower()
        assert "<style" not in content and "<svg" not in content and "var(--" not in content
        assert 'style="' in content  # the page's CSS, inlined
        for external in ('src="http', "src='http", 'href="http', "@import", "<link"):
            assert external not in content


def test_enqueue_reports_is_idempotent(engine: Engine, game: Game, settings: MailSettings) -> None:
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    assert outbox.unmailed_reports(engine) == []  # nothing left to look at, whatever the case of an address
    assert len(queued(engine)) == 2


def test_a_seat_without_an_address_gets_no_mail(engine: Engine, settings: MailSettings) -> None:
    register(PEARL_DIVE)
    create_game(
        engine, PEARL_DIVE.name, "pd-quiet", [("red", "ann@example.org"), ("blue", "")], seed=3, now=START
    )
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert [to for to, _ in queued(engine).values()] == ["ann@example.org"]


def test_a_seat_with_a_broken_address_is_skipped_without_stopping_the_others(
    engine: Engine, settings: MailSettings
) -> None:
    register(PEARL_DIVE)
    players = [("red", "ann@example.org"), ("blue", "bob@example.org")]
    create_game(engine, PEARL_DIVE.name, "pd-broken", players, seed=3, now=START)
    with Session(engine) as session:  # as an older pbem, which did not check addresses, stored it
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
        blue.email = "bob@example.org>,victim@elsewhere.org"
        session.add(blue)
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert [to for to, _ in queued(engine).values()] == ["ann@example.org"]


def test_the_mail_pass_marks_each_report_and_reads_only_the_unmarked(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    with Session(engine) as session:
        assert all(r.mail_queued for r in session.exec(select(ReportRow)))  # the public one too: no observer
        for row in session.exec(select(OutboxRow)):
            session.delete(row)  # were the pass to look at every report again, it would queue these anew
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    with Session(engine) as session:
        red = session.exec(select(ReportRow).where(ReportRow.seat == "red")).one()
        red.mail_queued = False
        session.add(red)
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert list(queued(engine)) == [f"report:{game.id}:0:0:red"]


TEXTS = [
    "plain",
    "",
    "no line break at the end",
    "naïve\ntext — with\r\nevery\rline break\n\n",
    "From the reef\n.a dot at a line start\ntrailing spaces   \n\ttab\n",
    "x" * 950 + "\n",  # longer than 900: quoted-printable although ASCII
]
HTML = "<p>Reef — turn 3 ◀ " + "x" * 120 + " </p>\n.dot at a line start\r\n<td>a=b</td>\r" * 40


def reference(settings: MailSettings, text: str, html: str) -> EmailMessage:
    """The report as the email package builds it, the standard :func:`compose.report_mail` matches."""
    msg = message.new_message(
        message.header_fields(
            settings,
            to="ann@example.org",
            subject="[pbem] g · turn 3 · report",
            key="k",
            now=START,
            thread=message.thread_root(settings, "g", "red"),
        )
    )
    body = compose.flowed(text)
    msg.set_content(body, cte=message._cte(body), params={"format": "flowed"})
    page = mail_page(html).html
    msg.add_alternative(page, subtype="html", cte=message._cte(page))
    return msg


def ours(settings: MailSettings, text: str, html: str = HTML) -> bytes:
    return compose.report_mail(
        settings,
        to="ann@example.org",
        key="k",
        game_id="g",
        turn=3,
        seat="red",
        text=text,
        html=html,
        now=START,
    )


def test_a_report_mail_reads_back_as_the_email_package_would_build_it(settings: MailSettings) -> None:
    for text in TEXTS:
        raw = ours(settings, text)
        parsed = message_from_bytes(raw, policy=policy.default)
        theirs = message_from_bytes(
            reference(settings, text, HTML).as_bytes(policy=policy.SMTP), policy=policy.default
        )
        keep = [k for k in theirs if k != "Content-Type"]
        assert [(k, str(parsed[k])) for k in keep] == [(k, str(theirs[k])) for k in keep]
        assert parsed.get_content_type() == "multipart/alternative"
        for kind in ("plain", "html"):
            mine, want = parsed.get_body((kind,)), theirs.get_body((kind,))
            assert mine is not None and want is not None
            # (the package repeats MIME-Version in a part it made with set_content: RFC 2045 asks it
            # of the message alone)
            # (the order of a part's own two headers differs once a parameter is given: no matter)
            assert sorted(mine.items()) == sorted(h for h in want.items() if h[0] != "MIME-Version"), (
                text,
                kind,
            )
            assert mine.get_content() == want.get_content(), (text, kind)
        # format=flowed read back is the text, less the trailing spaces that flowed text cannot carry
        shown = parsed.get_body(("plain",)).get_content().replace("\r\n", "\n")  # type: ignore[union-attr]
        assert reading.unflow(shown).rstrip("\n") == (
            "\n".join(line.rstrip(" ") for line in text.splitlines()).rstrip("\n")
        )


CALENDARS = [
    "BEGIN:VCALENDAR\r\nMETHOD:PUBLISH\r\nBEGIN:VEVENT\r\nSUMMARY:Tah · ход · 回合\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n",
    "BEGIN:VCALENDAR\r\nMETHOD:CANCEL\r\nBEGIN:VEVENT\r\nSUMMARY:turn 2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
]


def test_a_report_mail_with_calendars_reads_back_as_the_email_package_would_build_it(
    settings: MailSettings,
) -> None:
    text = TEXTS[0]
    raw = compose.report_mail(
        settings, to="ann@example.org", key="k", game_id="g", turn=3, seat="red", text=text, html=HTML,
        now=START, calendars=CALENDARS,
    )  # fmt: skip
    assert raw.isascii() and max(len(line) for line in raw.split(b"\r\n")) <= 78
    parsed = message_from_bytes(raw, policy=policy.default)
    want = reference(settings, text, HTML)
    want.make_mixed()
    for number, calendar in enumerate(CALENDARS, 1):
        method = "CANCEL" if "METHOD:CANCEL" in calendar else "PUBLISH"
        want.add_attachment(
            calendar.encode(), "text", "calendar", filename=f"deadline-{number}.ics",
            params={"charset": "utf-8", "method": method},
        )  # fmt: skip
    theirs = message_from_bytes(want.as_bytes(policy=policy.SMTP), policy=policy.default)
    keep = [k for k in theirs if k != "Content-Type"]
    assert [(k, str(parsed[k])) for k in keep] == [(k, str(theirs[k])) for k in keep]
    assert parsed.get_content_type() == "multipart/mixed"
    mine_parts, their_parts = list(parsed.iter_parts()), list(theirs.iter_parts())
    assert [p.get_content_type() for p in mine_parts] == [p.get_content_type() for p in their_parts] == [
        "multipart/alternative", "text/calendar", "text/calendar",
    ]  # fmt: skip
    for kind in ("plain", "html"):
        mine, wanted = mine_parts[0].get_body((kind,)), their_parts[0].get_body((kind,))
        assert mine is not None and wanted is not None and mine.get_content() == wanted.get_content()
    for mine, wanted in zip(mine_parts[1:], their_parts[1:], strict=True):
        assert mine.get_filename() == wanted.get_filename()
        assert mine.get_param("method") == wanted.get_param("method")
        assert mine.get_content_charset() == "utf-8"
        assert mine.get_content() == wanted.get_content()
        assert mine.get_content_disposition() == "attachment"


def test_a_report_mail_is_ascii_with_crlf_lines_of_at_most_78(settings: MailSettings) -> None:
    for text in TEXTS:
        raw = ours(settings, text)
        assert raw.isascii()
        assert b"\n" not in raw.replace(b"\r\n", b"") and b"\r" not in raw.replace(b"\r\n", b"")
        head, body = raw.split(b"\r\n\r\n", 1)
        assert max(len(line) for line in head.split(b"\r\n")) <= 78
        html_part = body.split(b"text/html", 1)[1]
        assert max(len(line) for line in html_part.split(b"\r\n")) <= 76


def test_the_same_report_mails_the_same_bytes(settings: MailSettings) -> None:
    assert ours(settings, "same") == ours(settings, "same")
    other = compose.report_mail(
        settings,
        to="ann@example.org",
        key="k2",
        game_id="g",
        turn=3,
        seat="red",
        text="same",
        html=HTML,
        now=START,
    )
    assert other.split(b"boundary=")[1][:40] != ours(settings, "same").split(b"boundary=")[1][:40]


def test_a_text_holding_the_boundary_is_quoted_printable(settings: MailSettings) -> None:
    boundary = ours(settings, "x").split(b'boundary="', 1)[1].split(b'"', 1)[0].decode()
    text = f"a line\n--{boundary}\nanother\n"
    raw = ours(settings, text)
    parsed = message_from_bytes(raw, policy=policy.default)
    plain = parsed.get_body(("plain",))
    assert plain is not None and plain["Content-Transfer-Encoding"] == "quoted-printable"
    assert plain.get_content().replace("\r\n", "\n") == text
    assert len(parsed.get_payload()) == 2  # type: ignore[arg-type]


def test_a_quoted_printable_text_holding_the_boundary_keeps_it_inside(settings: MailSettings) -> None:
    # only 7bit parts are searched for the boundary: a quoted-printable one cannot hold it
    boundary = ours(settings, "x").split(b'boundary="', 1)[1].split(b'"', 1)[0].decode()
    text = f"une ligne à lire\n--{boundary}\n--{boundary}--\nune autre\n"
    parsed = message_from_bytes(ours(settings, text), policy=policy.default)
    plain = parsed.get_body(("plain",))
    assert plain is not None and plain["Content-Transfer-Encoding"] == "quoted-printable"
    assert plain.get_content().replace("\r\n", "\n") == text
    assert len(parsed.get_payload()) == 2  # type: ignore[arg-type]


@given(st.text(max_size=300))
def test_quoted_printable_never_writes_a_boundary_start(text: str) -> None:
    # what lets report_mail leave such parts unsearched: every boundary starts "=_"
    for force in (True, False):
        headers, body = compose._encoded_part("plain", text, force_qp=force)
        assert not headers.endswith(compose._QP_HEADER) or b"=_" not in body
    assert b"=_" not in compose._qp(text + "\n")


def test_a_sender_name_beyond_ascii_is_encoded(settings: MailSettings) -> None:
    named = MailSettings(from_addr=HOST, from_name="Hôte des récifs")
    raw = ours(named, "t")
    assert raw.isascii()
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["From"].addresses[0].display_name == "Hôte des récifs"
    assert parsed["From"].addresses[0].addr_spec == HOST


def test_a_mail_is_stored_as_the_email_package_serialises_it(settings: MailSettings) -> None:
    for text in ["plain", "naïve\ntext — with\r\nevery\rline break\n"]:
        msg = reference(settings, text, HTML)
        assert outbox.message_bytes(msg) == msg.as_bytes(policy=policy.SMTP)
        assert outbox.unpack_message(outbox.pack_message(msg)) == msg.as_bytes(policy=policy.SMTP)


def test_a_pass_that_meets_another_while_composing_queues_nothing_twice(
    engine: Engine, game: Game, settings: MailSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = queueing._compose

    def meanwhile(*args):  # type: ignore[no-untyped-def]
        monkeypatch.setattr(queueing, "_compose", real)
        assert outbox.enqueue_reports(engine, START, settings=settings) == 2  # another tick, quicker
        return real(*args)

    monkeypatch.setattr(queueing, "_compose", meanwhile)
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    assert sorted(queued(engine)) == [f"report:{game.id}:0:0:blue", f"report:{game.id}:0:0:red"]


def test_a_pass_for_one_game_leaves_the_others(engine: Engine, game: Game, settings: MailSettings) -> None:
    register(PEARL_DIVE)
    create_game(
        engine, PEARL_DIVE.name, "pd-other", [("red", "cy@example.org"), ("blue", "")], seed=3, now=START
    )
    assert outbox.enqueue_reports(engine, START, settings=settings, game_id="pd-other") == 1
    assert list(queued(engine)) == ["report:pd-other:0:0:red"]
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2


# ------------------------------------------------------------------ boards as pictures, in real reports


def board_reports(game_name: str, players: int) -> tuple[list[str], list[tuple[str, str, slice]]]:
    """(seats, [(text, html, where html holds its table)] of every seat's report) of the middle turn
    of a bot game."""
    game = get_game(game_name)
    seats = ["alice", "bob", "carol", "dave"][:players]
    history = play(game_name, seats)
    turn = len(history) // 2
    state, events = history[turn]
    pages = []
    for seat in seats:
        ctx = context(game, "reef-7", state, turn, seat, events)
        text, html, table_at = render_located(game, ctx)
        assert table_at is not None
        pages.append((text, html, slice(*table_at)))
    return seats, pages


def boards_of(html: str) -> tuple[str, list[str]]:
    """(the style sheet, every board drawing) of a report page, as the mail composer finds them."""
    style = "\n".join(re.findall(r"<style\b[^>]*>(.*?)</style>", html, re.S))
    return style, [m.group(0) for m in re.finditer(r"<svg[^>]*data-picture.*?</svg>", html, re.S)]


def mail_of(settings: MailSettings, seat: str, text: str, html: str, table: slice | None = None) -> bytes:
    return compose.report_mail(
        settings,
        to=f"{seat}@example.org",
        key=f"k:{seat}",
        game_id="reef-7",
        turn=3,
        seat=seat,
        text=text,
        html=html,
        table=table,
        now=START,
    )


@pytest.mark.parametrize("game_name", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_a_report_mail_carries_its_boards_as_inline_pictures(settings: MailSettings, game_name: str) -> None:
    seats, pages = board_reports(game_name, 4)
    text, html, table = pages[0]
    parsed = message_from_bytes(mail_of(settings, seats[0], text, html, table), policy=policy.default)
    assert parsed.get_content_type() == "multipart/alternative"
    plain, related = parsed.get_payload()  # type: ignore[misc]
    assert plain.get_content_type() == "text/plain"  # the text first: the least preferred
    assert related.get_content_type() == "multipart/related"
    assert related.get_param("type") == "text/html"
    page, *pictures = related.get_payload()
    assert page.get_content_type() == "text/html"
    content = page.get_content()
    assert pictures, "every game draws at least one board"
    for part in pictures:
        assert part.get_content_type() == "image/png"
        assert part.get_content_disposition() == "inline"
        cid = part["Content-ID"].strip("<>")
        img = re.search(rf'<img src="cid:{re.escape(cid)}" alt="([^"]+)" width="(\d+)"', content)
        assert img is not None, cid
        assert len(img.group(1)) > 10  # an alt text that says what the picture is
        png = part.get_content()
        assert len(png) < 80_000, (cid, len(png))
        with Image.open(io.BytesIO(png)) as picture:
            # twice the pixels it is shown at, for a sharp phone screen
            assert picture.size[0] == 2 * int(img.group(2))
    assert content.count('src="cid:') == len(pictures)


def test_the_same_board_report_mails_the_same_bytes(settings: MailSettings) -> None:
    seats, pages = board_reports("reef-encounter", 2)
    first = mail_of(settings, seats[0], *pages[0])
    caches.clear_all()  # every picture and layer drawn anew
    assert mail_of(settings, seats[0], *pages[0]) == first


@pytest.mark.parametrize("game_name", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_a_board_drawn_in_layers_is_the_board_drawn_whole(game_name: str) -> None:
    from PIL import ImageChops

    _seats, pages = board_reports(game_name, 4)
    style, boards = boards_of(pages[0][1])
    layered = [mailpictures.split_layers(svg) for svg in boards]
    assert all(layers is not None for layers in layered)
    assert sum(len(layers.sprites) for layers in layered if layers) > 4  # the pieces, each on its own
    caches.clear_all()
    for svg in boards:
        with Image.open(io.BytesIO(mailpictures.picture_of(svg, style, "board").png)) as image:
            drawn = image.convert("RGB")
        whole = mailpictures._quantise(
            mailpictures._draw(svg, style, drawn.width, False, background="#ffffff")
        )
        with Image.open(io.BytesIO(whole)) as image:
            difference = ImageChops.difference(drawn, image.convert("RGB")).convert("L").histogram()
        assert sum(difference[24:]) == 0, [i for i, n in enumerate(difference) if n]
    # one static layer per board, however many pieces are on it
    assert mailpictures._static_image.cache_info().misses <= len(boards)


def test_each_drawing_is_rendered_once_for_every_seat_that_sees_it(settings: MailSettings) -> None:
    seats, pages = board_reports("reef-encounter", 4)
    caches.clear_all()
    for seat, (text, html, table) in zip(seats, pages, strict=True):
        mail_of(settings, seat, text, html, table)
    boards = {svg for _t, html, _table in pages for svg in boards_of(html)[1]}
    assert mailpictures._render.cache_info().misses == len(boards) == 4  # four boards, each drawn once


def test_a_four_player_reef_encounter_turn_mails_under_300_kb_each(settings: MailSettings) -> None:
    seats, pages = board_reports("reef-encounter", 4)
    sizes = [len(mail_of(settings, seat, *page)) for seat, page in zip(seats, pages, strict=True)]
    assert max(sizes) < 300_000, sizes


def test_the_pictures_boundary_and_the_outer_one_do_not_start_each_other(settings: MailSettings) -> None:
    seats, pages = board_reports("reef-encounter", 2)
    raw = mail_of(settings, seats[0], *pages[0])
    outer, inner = re.findall(rb'boundary="([^"]+)"', raw)
    assert not inner.startswith(outer) and not outer.startswith(inner)
    # an ASCII page (7bit otherwise) that holds the inner boundary is quoted-printable, so the
    # boundary cannot end its part
    board = (
        '<svg width="40" height="20" data-picture="board" aria-label="a board">'
        '<rect width="9" height="9"/></svg>'
    )
    tricky = f"<p>{board}</p>\n<p>--{inner.decode()}</p>\n"
    parsed = message_from_bytes(mail_of(settings, seats[0], "text", tricky), policy=policy.default)
    page = parsed.get_body(("html",))
    assert page is not None and page["Content-Transfer-Encoding"] == "quoted-printable"
    assert f"--{inner.decode()}" in page.get_content()
    assert len(parsed.get_body(("related",)).get_payload()) == 2  # type: ignore[union-attr]
    plain = mail_of(settings, seats[0], "text", f"<p>{board}</p>\n")
    assert b"Content-Transfer-Encoding: 7bit\r\n\r\n<html>" in plain  # without it: 7bit, as before


# ------------------------------------------------------------ the table made mail once for every seat


@pytest.mark.parametrize("game_name", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_the_table_made_mail_once_is_the_page_made_mail_whole(game_name: str) -> None:
    seats, pages = board_reports(game_name, 4)
    caches.clear_all()
    for _text, html, table in pages:
        split, whole = mail_page(html, table), mail_page(html)  # (no table known: made mail whole)
        assert len(split.parts) == 3 and whole.parts == ()
        assert split.html == whole.html == mail_html._mail_whole(html).html
        assert [p.cid for p in split.pictures] == [p.cid for p in whole.pictures]
    # made mail in pieces (not the whole page again), and the seats' shared table once
    info = mail_html._mail_segment.cache_info()
    assert info.misses >= 1 and info.hits + info.misses == len(seats)


def _moved(table: slice, by: int) -> slice:
    return slice(table.start + by, table.stop + by)


# each rule reaches into the table from the page around it: from an enclosing element (the table is
# then still made mail on its own, inside those elements), or by siblings or a position of one (the page
# is then made mail whole)
@pytest.mark.parametrize(
    ("rule", "on_its_own"),
    [
        ("td.frame h2 { color: #ab0001 }", True),
        ("body > table.frame div.block p { letter-spacing: 1px }", True),
        ("header ~ div.block h2 { color: #ab0002 }", False),
        ("div.block ~ div table { color: #ab0003 }", False),
        ("td.frame > div:nth-child(3) p { color: #ab0004 }", False),
    ],
)
def test_a_selector_from_outside_the_table_styles_it_as_in_the_whole_page(
    rule: str, on_its_own: bool
) -> None:
    _seats, pages = board_reports("reef-encounter", 2)
    _text, page, table = pages[0]
    html = page.replace("</style>", rule + "\n</style>", 1)  # (the style sheet is before the table)
    caches.clear_all()
    split, whole = mail_page(html, _moved(table, len(rule) + 1)), mail_html._mail_whole(html)
    assert split.html == whole.html
    shown = whole.html.split('data-table=""', 1)[1].split('<section class="block private"', 1)[0]
    assert rule.split("{")[1].split(":")[1].strip(" }") in shown  # the rule does style the table
    assert mail_html._mail_segment.cache_info().misses == (1 if on_its_own else 0)


def test_seats_whose_tables_differ_each_get_their_own_table() -> None:
    _seats, pages = board_reports("reef-encounter", 2)
    (_t, first, table), (_t2, page, its_table) = pages[0], pages[1]
    # the second seat's page with the first's table but for one word: another key, so neither seat's
    # table reaches the other
    other_table = "<p>only-bob-sees-this</p>" + first[table]
    second = page[: its_table.start] + other_table + page[its_table.stop :]
    caches.clear_all()
    one = mail_page(first, table).html
    other = mail_page(second, slice(its_table.start, its_table.start + len(other_table))).html
    assert "only-bob-sees-this" in other and "only-bob-sees-this" not in one
    assert other == mail_html._mail_whole(second).html
    assert mail_html._mail_segment.cache_info().misses == 2


def test_a_table_seen_before_is_handed_on_as_the_one_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    _seats, pages = board_reports("reef-encounter", 4)
    caches.clear_all()
    segments: list[str] = []
    real = mail_html._mail_split
    monkeypatch.setattr(
        mail_html,
        "_mail_split",
        lambda before, segment, after: segments.append(segment) or real(before, segment, after),
    )
    made = [mail_page(html, table) for _text, html, table in pages]
    # each seat's table cut out of its own page, then the same string object as the first seat's: the
    # caches after find it by identity, its hash kept
    assert len(segments) == len(pages) and all(segment is segments[0] for segment in segments)
    assert len({html[table] for _text, html, table in pages}) == 1
    for mail, (_text, html, _table) in zip(made, pages, strict=True):
        assert mail.html == mail_html._mail_whole(html).html
        assert "".join(mail.parts) == mail.html and mail.parts[1] is made[0].parts[1]


def test_a_table_that_begins_as_one_seen_before_is_its_own() -> None:
    _seats, pages = board_reports("reef-encounter", 2)
    _text, first, table = pages[0]
    # the first seat's whole table, then more of it
    more = "<p>only-in-the-longer</p>"
    longer = first[: table.stop] + more + first[table.stop :]
    caches.clear_all()
    one, other = mail_page(first, table), mail_page(longer, slice(table.start, table.stop + len(more)))
    assert "only-in-the-longer" in other.parts[1] and "only-in-the-longer" not in one.html
    assert other.html == mail_html._mail_whole(longer).html
    assert mail_html._mail_segment.cache_info().misses == 2


def test_a_table_place_that_is_no_place_of_the_page_makes_it_mail_whole() -> None:
    _seats, pages = board_reports("coral-divers", 2)
    _text, html, table = pages[0]
    whole = mail_html._mail_whole(html)
    for wrong in (slice(table.start, len(html) + 1), slice(table.stop, table.start), slice(0, 9, 2)):
        caches.clear_all()
        assert mail_page(html, wrong) == whole
        assert mail_html._mail_segment.cache_info().misses == 0


@pytest.mark.parametrize("game_name", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_the_stored_place_of_the_table_cuts_exactly_the_table_out_of_the_page(
    engine: Engine, settings: MailSettings, game_name: str
) -> None:
    game = get_game(game_name)
    seats = [("alice", "a@example.org"), ("bob", "b@example.org"), ("carol", "")]
    create_game(engine, game_name, "g-1", seats, seed=5, now=START)
    with Session(engine) as session:
        rows = session.exec(select(ReportRow).where(ReportRow.game_id == "g-1")).all()
        state = game.load_state(unpack_json(session.exec(select(TurnRow.state_z)).one()))
    assert sorted(row.seat for row in rows) == ["", "alice", "bob", "carol"]
    for row in rows:
        page, place = unpack(row.html_z), table_slice(row.table_at)
        assert place is not None, row.seat
        # the turn's table as rendered for the seat's view, and it alone: what the page shows around it
        with language("en"):  # the game's language, which every seat reads here
            shared = tables.table(game, "html", game.view(state, row.seat or None))
        assert page[place] == shared
        assert page[: place.start].endswith('<div class="block" data-table>\n')
        assert page[place.stop :].startswith("</div>")


def test_a_report_stored_without_its_table_s_place_mails_the_same_bytes(
    engine: Engine, settings: MailSettings
) -> None:
    seats = [("alice", "a@example.org"), ("bob", "b@example.org"), ("carol", "c@example.org")]
    create_game(engine, "reef-encounter", "g-1", seats, seed=5, now=START)
    caches.clear_all()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 3
    assert mail_html._mail_split.cache_info().misses == 3  # the table known: made mail once, apart
    with Session(engine) as session:
        kept = {row.dedupe_key: row.message_z for row in session.exec(select(OutboxRow))}
    with engine.begin() as conn:  # as a report stored before migration 0014 left it
        conn.execute(delete(OutboxRow.__table__))  # type: ignore[arg-type]
        conn.execute(update(ReportRow.__table__).values(table_at=None, mail_queued=False))  # type: ignore[arg-type]
    caches.clear_all()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 3
    assert mail_html._mail_split.cache_info().misses == 0  # each page made mail whole
    with Session(engine) as session:
        again = {row.dedupe_key: row.message_z for row in session.exec(select(OutboxRow))}
    assert set(again) == set(kept) and len(kept) == 3
    for key, packed in kept.items():
        assert outbox.unpack_message(again[key]) == outbox.unpack_message(packed), key


# a piece of a page: what quoted-printable treats apart (line breaks of every kind, "=", a dot, white
# space that may end a line, characters beyond ASCII, lines longer than 76)
_PIECE = st.lists(st.sampled_from([*"ab .=\t\r\n", "é", "—", "◀", "x" * 70]), max_size=40).map("".join)


@given(before=_PIECE, table=_PIECE, after=_PIECE)
def test_a_page_encoded_in_its_pieces_is_the_page_encoded_whole(before: str, table: str, after: str) -> None:
    page = mail_html.MailPage(before + table + after, (), (before, table, after))
    compose._qp_lines.cache_clear()
    assert compose._html_text_part(page) == compose._encoded_part("html", page.html)
    # the table's lines encoded once: the same for a seat whose page around it differs
    other = mail_html.MailPage("é" + before + table, (), ("é" + before, table, ""))
    assert compose._html_text_part(other) == compose._encoded_part("html", other.html)


def test_the_seats_of_a_turn_share_their_tables_encoding(settings: MailSettings) -> None:
    seats, pages = board_reports("reef-encounter", 4)
    caches.clear_all()
    compose._qp_lines.cache_clear()
    for seat, (text, html, table) in zip(seats, pages, strict=True):
        page = mail_page(html, table)
        assert compose._html_text_part(page) == compose._encoded_part("html", page.html)
        mail_of(settings, seat, text, html, table)
    info = compose._qp_lines.cache_info()
    assert info.misses == 1 and info.hits == 2 * len(seats) - 1


# --------------------------------------------------------------- headers written without the policy


@given(
    name=st.sampled_from(["To", "Subject", "Message-ID", "References", "Content-Language", "X-Loop"]),
    # what header_fields writes: one line of printable text, ASCII or not (tabs too)
    value=st.text(alphabet=st.sampled_from([chr(c) for c in range(32, 127)] + ["\t"]), max_size=90)
    | st.text(max_size=40).filter(str.isprintable),
)
def test_a_header_is_folded_as_the_email_policy_folds_it(name: str, value: str) -> None:
    assert folding.folded(name, value) == folding.HEADER_POLICY.fold_binary(
        name, folding.header_value(name, value)
    )


# subjects as the languages write them: the separator, accents, Cyrillic, Chinese, emoji, RFC 2047's
# own characters; long enough for two and three lines
_SUBJECT = st.lists(
    st.sampled_from([*"ab Z09-!*+/_=?.,;:()[]\"'·—éőüßдЖ中文字", "😀", "[pbem] reef-7 ", " · turn 12 · "]),
    min_size=1,
    max_size=80,
).map("".join) | st.text(min_size=1, max_size=260).filter(str.isprintable)


@given(value=_SUBJECT.filter(lambda v: v == v.strip()))  # a subject the host writes: no spaces at its ends
@example(value="=??Q?=00")  # ASCII shaped like an encoded word: it read back as a NUL
def test_a_subject_reads_back_as_it_was_written(value: str) -> None:
    line = folding.folded("Subject", value)
    assert line.isascii() and all(len(part) <= 78 for part in line.split(b"\r\n"))
    parsed = message_from_bytes(line + b"\r\nbody\r\n", policy=policy.default)
    assert parsed["Subject"] == value


def test_a_header_of_exactly_a_line_is_left_and_one_longer_folded() -> None:
    for length in (76, 77, 78):
        value = "x" * (length - len("Subject: ") - 10) + " " + "y" * 9
        assert folding.folded("Subject", value) == folding.HEADER_POLICY.fold_binary("Subject", value)


@pytest.mark.parametrize("game_name", ["reef-encounter", "coral-divers"])
def test_a_piece_is_drawn_once_wherever_it_stands_on_the_board(game_name: str) -> None:
    _seats, pages = board_reports(game_name, 4)
    style, boards = boards_of(pages[0][1])
    layered = [mailpictures.split_layers(svg) for svg in boards]
    sprites = [sprite for layers in layered if layers for sprite in layers.sprites]
    # every piece is written relative to its box (its group translated to the box's corner) ...
    assert sprites and all(sprite.origin == sprite.box[:2] for sprite in sprites)
    caches.clear_all()
    for svg in boards:
        mailpictures.picture_of(svg, style, "board")
    # ... so the same piece on other spaces (a polyp of one colour, an empty sea space) is one drawing
    drawn = mailpictures._sprite_image.cache_info().misses
    assert drawn == len({sprite.body for sprite in sprites}) < len(sprites)


def test_one_moment_in_two_zones_and_two_hosts_get_their_own_date_and_from() -> None:
    # the Date and From values are kept by what they are made of: each input its own line
    noon = datetime(2026, 12, 1, 12, tzinfo=UTC)

    def fields(settings: MailSettings, now: datetime) -> dict[str, str]:
        return dict(message.header_fields(settings, to="ann@example.org", subject="s", key="k", now=now))

    one, other = MailSettings(from_addr=HOST), MailSettings(from_addr="other@example.net", from_name="Reef")
    assert fields(one, noon)["Date"] == "Tue, 01 Dec 2026 12:00:00 +0000"
    assert (
        fields(one, noon.astimezone(timezone(timedelta(hours=1))))["Date"]
        == "Tue, 01 Dec 2026 13:00:00 +0100"
    )
    assert fields(one, noon)["From"] == f"pbem <{HOST}>"
    assert fields(other, noon)["From"] == "Reef <other@example.net>"


def test_a_paragraph_is_flowed_by_its_words_and_whether_it_is_in_the_order_document() -> None:
    long = "word " * 20 + "end"  # broken outside the order document, kept whole inside it
    flowed_text._flowed_paragraph.cache_clear()
    outside = compose.flowed(f"Report for ann\n\n{long}\n")
    inside = compose.flowed(f"{markers.BEGIN}\n\n{long}\n\n{markers.END}\n")
    assert long not in outside and long.strip() in inside  # the same paragraph, its own lines each
    other = compose.flowed(f"Report for bob\n\n{long}\n")
    assert other.startswith("Report for bob\n\n") and other.split("\n\n", 1)[1] == outside.split("\n\n", 1)[1]
    assert flowed_text._flowed_paragraph.cache_info().hits == 1  # the shared paragraph, made once
