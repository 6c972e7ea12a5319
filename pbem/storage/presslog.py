"""Press kept with a game (issue 14): what :mod:`pbem.mail.press` stored, for ``pbem status`` (counts
only) and for the archive of a finished game (every message), and the rows an imported archive brings.

Private press is hidden information of its sender and readers while the game runs: nothing here is
shown for a running game but counts, and :func:`pbem.archive.files.build_archive` refuses a running game's
archive unless the game master moves it to another host (``--include-secrets``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field
from sqlmodel import Session, func, select

from pbem.core import clock
from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.errors import UserError
from pbem.storage.models import MAX_INT, PressRow


class PressEntry(BaseModel):
    """One press message as an archive holds it."""

    sender: str
    to: str | list[str]  # "all", or the seats it went to
    recipients: list[str] = []
    epoch: int = Field(default=0, ge=0, le=MAX_INT)
    turn: int = Field(ge=0, le=MAX_INT)
    sent_at: str
    text: str


def counts(session: Session, game_id: str) -> dict[str, int]:
    """Press messages sent by each seat (for ``pbem status``: counts only, never who to or what)."""
    rows = session.exec(
        select(PressRow.sender, func.count()).where(PressRow.game_id == game_id).group_by(PressRow.sender)
    ).all()
    return {sender: int(n) for sender, n in rows}


def archived(session: Session, game_id: str) -> list[dict[str, Any]]:
    """Every press message of ``game_id``, oldest first, as the archive keeps it."""
    rows = session.exec(
        select(PressRow).where(PressRow.game_id == game_id).order_by(PressRow.sent_at, PressRow.id)  # type: ignore[arg-type]
    ).all()
    return [
        {
            "sender": row.sender,
            "to": "all" if row.to_all else json.loads(row.recipients_json),
            "recipients": json.loads(row.recipients_json),
            "epoch": row.epoch,
            "turn": row.turn,
            "sent_at": clock.utc(row.sent_at).isoformat(),
            "text": row.text,
        }
        for row in rows
    ]


def imported(game_id: str, entries: list[PressEntry], seats: list[str]) -> list[PressRow]:
    """The press rows of an imported archive, each checked to name seats of the game."""
    rows = []
    for at, entry in enumerate(entries):
        named = [entry.sender, *entry.recipients, *(entry.to if isinstance(entry.to, list) else [])]
        unknown = [seat for seat in named if seat not in seats]
        if unknown or (isinstance(entry.to, str) and entry.to != "all"):
            raise UserError(
                f"the archive's press[{at}] names {', '.join(unknown) or repr(entry.to)}, which is no seat "
                f"of the game; seats: {', '.join(seats)}"
            )
        sent_at = clock.checked(entry.sent_at, f"the archive's press[{at}].sent_at")
        recipients = entry.recipients or (entry.to if isinstance(entry.to, list) else [])
        rows.append(
            PressRow(
                key=f"import:{game_id}:{at}:{sha256_hex(canonical_json(entry.model_dump()))[:24]}",
                game_id=game_id,
                epoch=entry.epoch,
                turn=entry.turn,
                sender=entry.sender,
                to_all=entry.to == "all",
                recipients_json=json.dumps(recipients),
                sent_at=sent_at,
                text=entry.text,
            )
        )
    return rows
