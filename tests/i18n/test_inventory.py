"""Every word a player reads is a catalog message: the source of ``pbem/``, ``games/`` and ``templates/``
builds no English for a player outside the catalogs (tests/i18n/inventory.py reads it), but for the
places listed here, each with its reason.

The scanner is tested first on small sources: the cheap ways round it (a local name, a constant, ``+``,
``.format``, an English parameter of a translated sentence, an f-string as a message, a new error
class) are seen; what is not for a player (a log line, a docstring, a comparison with input, a
catalog message) is not.
"""

from __future__ import annotations

import pytest

from games.reef_encounter.engine import _ENDINGS
from tests.i18n.inventory import (
    Finding,
    python_files,
    scan_python,
    scan_sources,
    scan_template,
    scan_templates,
    template_files,
)

#: functions whose errors only the operator meets, at the command line (``pbem new``, ``pbem import``,
#: ``pbem tick``'s settings, the database, mail transports): the host's operator reads English
OPERATOR_ONLY: dict[tuple[str, str], str] = {
    **{
        ("pbem/archive/files.py", f): "pbem export/import of a game archive: the operator's commands"
        for f in (
            "Archive.record",
            "_game_row",
            "_read_data",
            "build_archive",
            "export",
            "import_game",
            "read_archive",
        )
    },
    **{
        ("pbem/archive/records.py", f): "pbem record import/replay: the operator's commands"
        for f in (
            "_orders_of",
            "_replay",
            "_settled",
            "check_cost",
            "import_record",
            "parse_record",
            "read_record",
        )
    },
    ("pbem/archive/unknowns.py", "fill"): "a record's unknowns filled at pbem import: the operator's command",
    ("pbem/cli/fair.py", "verify_command"): "pbem verify GAME: the operator's command",
    **{
        ("pbem/archive/replay.py", f): "pbem replay of an archive: the operator's command"
        for f in ("_stored_orders", "replay", "report_at")
    },
    **{
        ("pbem/archive/store.py", f): "storing an imported game or a rolled-back turn: operator's commands"
        for f in ("replay_undone", "store_imported")
    },
    **{
        ("pbem/archive/checks.py", f): "an archive's settings checked at pbem import: the operator's command"
        for f in ("game_master", "settings", "observers", "clock_row", "epoch")
    },
    ("pbem/core/clock.py", "checked"): "a time read from an archive or a record: pbem import, the operator's",
    ("pbem/storage/history.py", "checked_state"): (
        "a damaged cached state: pbem process / the tick refuse to resolve, the operator's to mend"
    ),
    ("pbem/archive/page.py", "write_page"): "writing the page's file: the operator's disk",
    ("pbem/archive/verifying.py", "verify_in_new_process"): "pbem verify: the operator's command",
    ("pbem/cli/common.py", "parse_now"): "--now, the operator's clock for tests and replays",
    **{
        ("pbem/cli/cron.py", f): "the tick's settings file and log: the operator's"
        for f in ("_settings_file", "archive_dir", "setup_logging", "tick_config")
    },
    ("pbem/cli/demo.py", "run_demo"): "pbem demo: the operator trying the host",
    (
        "pbem/cli/fair.py",
        "away_command",
    ): "pbem away at the command line: the operator's (seats say away: by mail)",
    ("pbem/cli/orderfiles.py", "schema"): "pbem schema writes a file for tool authors",
    **{
        ("pbem/core/chance.py", f): "a record's draws replayed: pbem record/verify, the operator's"
        for f in ("Script._answer", "Script._by_face")
    },
    **{
        ("pbem/mail/sources.py", f): "reading the host's mailbox: the operator's settings"
        for f in (
            "_mailbox",
            "find_in_maildir",
            "parse_imap_url",
            "read_imap",
            "read_maildir",
            "read_mbox",
            "source_for",
        )
    },
    **{
        ("pbem/outbox/settings.py", f): "the host's mail settings: the operator's file"
        for f in ("_from_file", "load_settings")
    },
    **{
        ("pbem/outbox/transport.py", f): "sending mail (SMTP, Maildir): the operator's settings"
        for f in ("MaildirTransport.__enter__", "SmtpTransport.__init__", "transport_from")
    },
    ("pbem/outbox/queueing.py", "_game_and_seats"): "pbem mail queue GAME: the operator's command",
    ("pbem/mail/welcome.py", "queue_welcomes_in"): "pbem welcome GAME: the operator's command",
    ("pbem/mail/gm.py", "set_game_master"): "pbem new --gm / pbem gm: the operator names the game master",
    ("pbem/intake/schema.py", "order_file_schema"): "pbem schema: a file for tool authors",
    **{
        ("pbem/play/create.py", f): "pbem new: the operator creates games (no mail command does)"
        for f in (
            "check_settings",
            "check_bots",
            "check_game_id",
            "check_languages",
            "check_seats",
            "check_zones",
            "create_game",
            "parse_options",
            "store_game",
            "_store",
        )
    },
    **{
        (
            "pbem/play/lobby.py",
            f,
        ): "pbem new --open: the operator's settings (a game master's mail is checked before)"
        for f in ("_check",)
    },
    ("pbem/play/status.py", "status"): "pbem status GAME for a game that does not exist: the operator's typo",
    **{
        ("pbem/play/turns.py", f): "pbem process / the tick resolving a turn: the operator's"
        for f in ("_prepare", "_write")
    },
    **{
        ("pbem/storage/db.py", f): "opening the database: the operator's"
        for f in ("_create_schema", "connect")
    },
    ("pbem/storage/presslog.py", "imported"): "an archive's press imported: pbem import, the operator's",
    **{
        ("pbem/web/settings.py", f): "pbem serve's key and limits: the operator's settings"
        for f in ("WebSettings.checked", "from_env")
    },
}

#: single literals a player's code holds that are not words for a player, or that wait for their owner
ALLOWED: dict[tuple[str, str, str], str] = {
    ("games/mare_balticum/seasons.py", "check_company", "{goods: {}, from: warehouse}"): (
        "an order as the player writes it (YAML, shown in backticks): the order grammar"
    ),
    **{
        ("games/reef_encounter/turn.py", function, why): (
            "a reason the game ends, looked up in engine._ENDINGS, which says the whole sentence as a message"
        )
        for function, why in (
            ("<module>", "no polyp can be placed anywhere"),
            ("TurnRunner.do_algae", "every coral tile is locked by an alga"),
            ("TurnRunner.do_take", "the open sea could not be refilled or the bag holds fewer than 3 polyps"),
            ("TurnRunner.do_feed", "{} fed their fourth coral"),
        )
    },
    ("pbem/cron/notices.py", "body", "pbem replace {} {} ADDRESS"): "a command line for the game master",
    ("pbem/mail/gm.py", "_text", "seat: red"): "an example line of a game master's command, as written",
    ("pbem/outbox/replies.py", "reply_message", "Re: {}"): (
        "the reply prefix every mail program threads and strips (RFC 5322 3.6.5), in no language"
    ),
    (
        "pbem/outbox/calendar_part.py",
        "calendar_parts",
        'Content-Type: text/calendar; charset="utf-8"; method={}\r\nContent-Transfer-Encoding: base64\r\n'
        'Content-Disposition: attachment; filename="deadline-{}.ics"\r\n',
    ): "MIME headers",
    (
        "pbem/outbox/compose.py",
        "_picture_part",
        "Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\nContent-ID: <{}>\r\n"
        'Content-Disposition: inline; filename="{}"\r\n',
    ): "MIME headers",
    (
        "pbem/render/jinja_context.py",
        "QuickContext.call",
        "value was undefined because a callable raised a StopIteration exception",
    ): "Jinja's own hint inside an Undefined, for a template's author; never rendered as text",
}

#: what the scan finds on main in files other helpers own: allowed here only so the test passes until
#: their branches land, each marked with the owner who fixes it (see the reply to the coordinator)
TODO: dict[tuple[str, str], str] = {}


def _allowed(finding: Finding) -> bool:
    where = (finding.path, finding.function)
    return where in OPERATOR_ONLY or where in TODO or finding.key in ALLOWED


@pytest.fixture(scope="module")
def found() -> list[Finding]:
    return scan_python(python_files())


def test_every_word_a_player_reads_in_the_source_is_a_catalog_message(found: list[Finding]) -> None:
    found = found + scan_templates(template_files())
    left = [str(f) for f in found if not _allowed(f)]
    assert not left, "English built outside the catalogs:\n" + "\n".join(left)


def test_every_allowance_still_allows_something(found: list[Finding]) -> None:
    # an entry that allows nothing is a stale excuse: a fixed place must leave the list
    places = {(f.path, f.function) for f in found}
    keys = {f.key for f in found}
    assert sorted(set(OPERATOR_ONLY) - places) == []
    assert sorted(set(TODO) - places) == []
    assert sorted(set(ALLOWED) - keys) == []


def test_the_reasons_allowed_as_keys_are_the_keys_the_engine_looks_up() -> None:
    keys = [k[2] for k in ALLOWED if k[0] == "games/reef_encounter/turn.py" and "{}" not in k[2]]
    assert keys and all(k in _ENDINGS for k in keys)


# ----------------------------------------------------------------------------- the scanner, on small code

ENGINE = "games/pearl/turn.py"  # a path among the player's modules
HOST = "pbem/archive/other.py"  # a path that is not: only the sinks count there


def _texts(source: str, path: str = HOST) -> list[str]:
    head = "from pbem.core.game import GameError, RulesError, Event\nfrom pbem.core.i18n import _, T_, N_\n"
    return [f.text for f in scan_sources({path: head + source})]


@pytest.mark.parametrize(
    "source",
    [
        'def f(n):\n    raise RulesError("x", f"you have {n} pearls too many")\n',
        'def f(n):\n    text = f"you have {n} pearls"\n    raise RulesError("x", text)\n',
        'TOO_MANY = "you have too many pearls"\ndef f():\n    raise GameError("x", TOO_MANY)\n',
        'def f(n):\n    raise RulesError("x", "you have " + str(n) + " pearls")\n',
        'def f(n):\n    raise RulesError("x", "you have {} pearls".format(n))\n',
        'def f(n):\n    raise RulesError("x", "you have %d pearls" % n)\n',
        'def f(n):\n    raise RulesError("x", T_("{space} holds {whose}", space=n, whose="no reef here"))\n',
        'def f(n):\n    raise RulesError("x", _(f"you have {n} pearls"))\n',
        'class Mine(RulesError):\n    pass\ndef f(n):\n    raise Mine("x", f"you have {n} pearls")\n',
        'def f(n):\n    return Event(f"{n} dived for pearls")\n',
        'def f(n):\n    return Event(text=" and ".join(["one diver", "two divers"]))\n',
    ],
)
def test_english_reaching_a_players_error_or_event_is_found_however_it_is_built(source: str) -> None:
    assert _texts(source)


@pytest.mark.parametrize(
    "source",
    [
        'def f(n):\n    raise RulesError("x", T_("you have {n} pearls", n=n))\n',
        'MESSAGE = N_("you have too many pearls")\ndef f():\n    raise GameError("x", T_(MESSAGE))\n',
        'def f(n):\n    raise ValueError(f"bad count {n} of pearls")\n',
    ],
)
def test_a_catalog_message_and_a_programming_error_are_not_findings(source: str) -> None:
    assert _texts(source) == []


def test_in_a_players_module_every_english_literal_counts_but_logs_docs_keys_and_input() -> None:
    source = (
        'LEGEND = {"G": "green grass", "P": "pink coral"}\n'
        "def f(seat, n, log):\n"
        '    """Says what happens, for the code\'s reader."""\n'
        '    log.info("the turn of %s took %d ms", seat, n)\n'
        '    if seat == "no one at all":\n'
        "        return None\n"
        '    return f"in {n}d"\n'
    )
    assert _texts(source, ENGINE) == ["green grass", "pink coral", "in {}d"]
    assert _texts(source, HOST) == []  # outside the player's modules only sinks count


def test_an_order_line_is_grammar_but_its_comment_is_prose() -> None:
    source = 'def f():\n    return ["# - place: {at: b4}", "[]  # no action; replace this line"]\n'
    assert _texts(source, ENGINE) == ["[]  # no action; replace this line"]


def test_a_templates_words_outside_its_messages_are_found() -> None:
    source = (
        "{% block style %}.board td { font-weight: bold; }{% endblock %}\n"
        '<h2>{{ _("Scores") }}</h2><p class="final score">{% trans %}Well played{% endtrans %}</p>\n'
        '<td>{{ ngettext("%(num)s pearl", "%(num)s pearls", n) }}</td>\n'
        "<p>Final scores</p>\n"
        '{{ view.note or "nothing to say" }}\n'
    )
    found = scan_template("templates/pearl/report.html.j2", source)
    assert [(f.line, f.text) for f in found] == [(4, "Final scores"), (5, '"nothing to say"')]
