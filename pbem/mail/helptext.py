"""The mailed ``help``: how to send orders, then every command a player may send, each with an example
of the line that asks for it. :mod:`pbem.mail.commands` answers ``help`` with :func:`help_text`; the
modules that register commands of their own add theirs to :data:`HELP`."""

from __future__ import annotations

from pbem.core.i18n import LANGUAGES, N_, _
from pbem.outbox.replies import HOW_TO

#: what the mailed ``help`` says of each command a player may send: an example of the line that asks
#: for it, and what it does (one sentence, a gettext message). Every command :data:`COMMANDS` names and
#: every one another module registers (:func:`handles`) is here: a test holds the two together.
HELP: dict[str, tuple[str, str]] = {
    "report": (
        "report",
        N_("your latest report again, as its mail came; add the line `turn: N` for an older one."),
    ),
    "template": (
        "template",
        N_("the order template of your next decision, in the mail and as an attached file."),
    ),
    "password": (
        "password",
        N_(
            "a new password, mailed only to the address your seat was registered with; this request needs "
            "no `password:` line."
        ),
    ),
    "press": (
        "press",
        N_(
            "a message to other players, signed with your seat's name: add the line `to:` (a seat, several "
            "seats, or `all`), and write your message below the lines."
        ),
    ),
    "language": ("language: hu", N_("the language you read the game in from now on: {codes}.")),
    "timezone": ("timezone: Europe/Budapest", N_("the time zone your deadlines are shown in.")),
    "away": (
        "away: {until: 2026-12-20}",
        N_("you are away until that day; meanwhile the game's rule for absent players applies."),
    ),
    "record": (
        "record",
        N_(
            "your record on this host (games, reliability, every missed deadline and why it counted), "
            "mailed only to the address you write from; no other lines are needed."
        ),
    ),
    "notify": (
        "notify: ntfys://ntfy.sh/my-topic",
        N_(
            "also tell you at a notice URL (`Discord`, `Matrix`, `Telegram`, `ntfy`, `Slack`: `apprise` "
            "URLs) when a turn waits for you, before its deadline and when the game ends; `notify: off` "
            "stops it."
        ),
    ),
    "excuse": (
        "excuse",
        N_("for a game master, with the lines `seat:` and `turn:`: excuse that seat's missed deadline."),
    ),
    "help": ("help", N_("this list.")),
    "gm": (
        "gm",
        N_("for a game master: how to pause, resume, extend, replace, roll back and observe a game by mail."),
    ),
}


def help_text() -> str:
    """The mailed ``help``, in the current language: how to send orders, then every command."""
    lines = [
        _(
            "Every other request is a mail whose first line (or subject) is the command, followed by the "
            "lines `game:`, `player:` and `password:` of your seat. The commands, each with its first line:"
        ),
        "",
    ]
    for example, says in HELP.values():
        codes = ", ".join(f"`{code}`" for code in LANGUAGES)  # written as the player writes them
        lines += [f"    {example}", "        " + _(says, codes=codes), ""]
    return _(HOW_TO) + "\n" + "\n".join(lines)
