"""Who reads an answer, and so which language every word of it is in: decided once, in one place.

Every answer a player reads (a reply to their mail, a receipt, an error, ``help``, a command's answer,
what the command line prints for a player) starts from a :class:`Reader` made here, and is written
inside :meth:`Reader.speaking`; :func:`pbem.outbox.replies.reply_message` takes the reader, not a
language, and writes ``Content-Language`` from it. So a new answer cannot be written in one language
and labelled with another, and no answer can forget to ask.

The rule (:func:`reader_of`): the seat's own language, else its game's; for a game that has no such
seat, the game's; for a mail that names no game the host knows, the language of the seat its sender's
address is registered for; else English. A seat's language is no secret (it is the language of the
mails the seat is sent), so the reader is decided before any password is checked: a player who
mistyped their password reads the refusal in their own language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from pbem.core.i18n import DEFAULT_LANGUAGE, check_language, language
from pbem.render.reports import languages_of, seat_rows
from pbem.storage.models import GameRow, SeatRow


@dataclass(frozen=True)
class Reader:
    """The reader of one answer: the language it is written in, and the game and seat it is about
    when they are known (``None`` for a stranger's mail)."""

    language: str = DEFAULT_LANGUAGE
    game_id: str | None = None
    seat: str | None = None

    @contextmanager
    def speaking(self) -> Iterator[Reader]:
        """Within the block every message (``_``) is in the reader's language."""
        with language(self.language):
            yield self

    def now_reading(self, code: str | None) -> Reader:
        """The same reader in ``code`` (a seat that has just chosen its language); ``None``: unchanged."""
        return self if not code else replace(self, language=check_language(code))


#: the reader of a mail nobody can be found for
STRANGER = Reader()


def reader_of(
    engine: Engine,
    game_id: str | None,
    seat: str | None = None,
    *,
    from_address: str | None = None,
    wanted: str | None = None,
) -> Reader:
    """The reader of an answer about ``seat`` of ``game_id`` (either may be unknown or ``None``) to a
    mail from ``from_address``; ``wanted`` (a ``--lang`` given on the command line) overrides the
    language. Raises :class:`pbem.core.i18n.UnknownLanguage` for a ``wanted`` that is no language."""
    with Session(engine) as session:
        game = session.get(GameRow, game_id) if game_id else None
        if game is not None:
            languages = languages_of(game, seat_rows(session, game.id))
            known = seat if seat in languages and seat else None
            found = Reader(languages[known or ""], game.id, known)
        else:
            found = _by_address(session, from_address) if from_address else STRANGER
    return found.now_reading(wanted)


def _by_address(session: Session, address: str) -> Reader:
    """The reader a sender's address is registered as: its seat in the newest game still running
    (else the newest game), in that seat's language; :data:`STRANGER` for an address no seat has."""
    wanted = address.strip().lower()
    if not wanted:
        return STRANGER
    found = session.exec(
        select(SeatRow, GameRow)
        .join(GameRow, col(GameRow.id) == col(SeatRow.game_id))
        .where(func.lower(func.trim(SeatRow.email)) == wanted)
        .order_by(col(GameRow.status) == "finished", col(GameRow.created_at).desc(), col(GameRow.id))
    ).first()
    if found is None:
        return STRANGER
    seat, game = found
    return Reader(seat.language or game.language, game.id, seat.name)


_ENVELOPE_LINE = re.compile(r"^(game|player)\s*:\s*['\"]?([A-Za-z0-9_-]+)['\"]?\s*(?:#.*)?$", re.MULTILINE)


def named_in(text: str) -> dict[str, str]:
    """The ``game:`` and ``player:`` lines of a mail's text, as written (before anything is checked)."""
    return {key.lower(): value for key, value in _ENVELOPE_LINE.findall(text)}


def reader_of_text(
    engine: Engine, text: str, from_address: str | None = None, *, wanted: str | None = None
) -> Reader:
    """The reader of the answer to an order file or a mail whose text is ``text``: the game and seat its
    envelope lines name, else its sender's registered seat (:func:`reader_of`)."""
    named = named_in(text)
    return reader_of(engine, named.get("game"), named.get("player"), from_address=from_address, wanted=wanted)
