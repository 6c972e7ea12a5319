"""What ``pbem check`` shows for legal orders: the report as it would be after them, up to the first
random draw, revealing nothing the player may not know.

The turn is resolved in trial, never on the real state: on :data:`RUNS` samples of it in which
everything the seat cannot see (other seats' holdings, the bag) is dealt anew
(``Game.resample_hidden``), with draws from an RNG that is not the game's. What comes out the same in
every trial depends only on what the player knows and on their orders; what differs depends on a draw
or on something hidden, and "happens when the turn resolves":

- every trial ends at the same table (no draw, nothing hidden mattered): the preview is the report of
  the turn after, exactly as it will be;
- else the preview lists what the orders do up to where the trials part (the events all of them share,
  from the first), and shows the table as it stands.

A turn that waits for other seats' orders too (a simultaneous decision) is not tried: their orders are
not known. The trials are a function of the public table, the seat's own holdings and the orders, and of
nothing secret: the same file gives the same preview.
"""

from __future__ import annotations

import textwrap
from typing import Any

from pydantic import BaseModel

from pbem.core.chance import Recorder, derived_rng
from pbem.core.codec import canonical_json
from pbem.core.game import Game
from pbem.core.i18n import _
from pbem.render.reports import context, report_dice
from pbem.render.tables import render
from pbem.storage.models import GameRow

#: trials, each on its own sample of the hidden and its own draws
RUNS = 4


def _trials(game: Game, state: Any, seat: str, orders: BaseModel) -> list[tuple[list[str], str, Any, int]]:
    """(events the seat sees, its view after, the state after, draws made) of each trial."""
    out = []
    for run in range(RUNS):
        # a fixed RNG of the preview's own: nothing here is drawn from, or tells of, the game's seed
        sample = game.resample_hidden(state, seat, Recorder(derived_rng(0, 0, run, "preview:hidden")))
        chance = Recorder(derived_rng(0, 0, run, "preview:draws"))
        result = game.resolve(sample, {seat: orders}, chance)
        seen = [e.words() for e in result.events if e.visible_to(seat)]
        view = canonical_json(game.view(result.state, seat))
        out.append((seen, view, result.state, len(chance.record)))
    return out


def _shared_start(lists: list[list[str]]) -> list[str]:
    shared: list[str] = []
    for items in zip(*lists, strict=False):
        if any(item != items[0] for item in items):
            break
        shared.append(items[0])
    return shared


def preview(
    game: Game,
    row: GameRow,
    state: Any,
    seat: str,
    orders: BaseModel,
    order_text: str,
    receipt: str,
    *,
    on_the_web: bool = False,
) -> str:
    """The plain-text preview of ``seat``'s legal ``orders`` for the turn that is due. ``on_the_web``: for
    the orders form, whose own button sends them (not a file sent by ``pbem submit`` or by mail)."""
    due = row.turn + 1
    head = [
        _(
            "Preview of your orders for turn {turn}: they are legal (receipt {receipt}). Nothing is stored "
            "until you send them.",
            turn=due,
            receipt=receipt[:12],
        )
        if on_the_web
        else _(
            "Preview of your orders for turn {turn}: they are legal (receipt {receipt}). Nothing is stored: "
            "send the file with pbem submit, or by mail, for it to count.",
            turn=due,
            receipt=receipt[:12],
        )
    ]
    pending = game.pending(state)
    others = [s for s in pending if s != seat]
    if others:
        head.append(
            _(
                "This turn resolves once {others} have sent their orders too; until then the table is "
                "shown as it stands.",
                others=", ".join(others),
            )
        )
        ctx = context(
            game, row.id, state, row.turn, seat, [], order_text=order_text, dice=report_dice(game, row, state)
        )
        return _frame(head, render(game, "txt", ctx))
    try:
        trials = _trials(game, state, seat, orders)
    except Exception:  # a rules engine that fails on a sample is a bug of its own; the check stands
        trials = []
    views = {view for _seen, view, _state, _draws in trials}
    if trials and len(views) == 1 and len({tuple(seen) for seen, *_rest in trials}) == 1:
        seen, _view, after, _draws = trials[0]
        head.append(
            _(
                "Nothing in this turn is left to chance or to what you cannot see: below is your report "
                "after turn {turn} as it will be.",
                turn=due,
            )
        )
        events = [_Seen(text) for text in seen]
        ctx = context(game, row.id, after, due, seat, events, dice=report_dice(game, row, after))
        return _frame(head, render(game, "txt", ctx))
    shared = _shared_start([seen for seen, *_rest in trials])
    if shared:
        head.append(_("What your orders do:"))
        head.extend(f"  - {text}" for text in shared)
    head.append(
        _(
            "The rest happens when the turn resolves: it depends on a draw, or on what only others can "
            "see. The table below is the game as it stands, with your orders as read."
        )
    )
    ctx = context(
        game, row.id, state, row.turn, seat, [], order_text=order_text, dice=report_dice(game, row, state)
    )
    return _frame(head, render(game, "txt", ctx))


class _Seen:
    """An event the seat saw in every trial, in the shape the report context reads."""

    to = None

    def __init__(self, text: str) -> None:
        self.text = text

    def visible_to(self, _seat: str | None) -> bool:
        return True

    def words(self) -> str:
        return self.text  # already in the reader's language: the trials ran inside its language block


def _frame(head: list[str], body: str) -> str:
    rule = "=" * 78
    lines = [
        textwrap.fill(line, 78, subsequent_indent="    " if line.startswith("  - ") else "") for line in head
    ]
    return "\n".join([rule, *lines, rule, ""]) + "\n" + body
